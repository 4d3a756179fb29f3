//go:build unix

package main

import (
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestNonRegularInputsRefused: a FIFO or a device as --data, --key or
// --passphrase-file is refused at once with a clear error instead of
// hanging (issue 14 item 16). The FIFO has no writer: opening it for
// reading the ordinary way would block forever.
func TestNonRegularInputsRefused(t *testing.T) {
	w := newWorkspace(t)
	fifo := w.path("fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	te := newTestEnv()
	check := func(args []string, what string) {
		t.Helper()
		r := te.run(args...)
		if r.code == exitOK || !strings.Contains(r.stderr, "not a regular file") || !strings.Contains(r.stderr, what) {
			t.Errorf("%q: exit %d, stderr %q; want a 'not a regular file' error naming %s", args, r.code, r.stderr, what)
		}
	}
	with := func(flag, value string) []string {
		args := w.kdeRelease(w.path("o.synopsis"))
		if slices.Contains(args, flag) {
			args[indexOf(args, flag)+1] = value
			return args
		}
		return append(args, flag, value)
	}
	w.keygen(t, te) // encrypted: the passphrase file is read
	for _, c := range []struct{ flag, path, what string }{
		{"--data", fifo, "named pipe"},
		{"--data", "/dev/zero", "character device"},
		{"--data", w.dir, "directory"},
		{"--key", fifo, "named pipe"},
		{"--key", "/dev/zero", "character device"},
		{"--passphrase-file", fifo, "named pipe"},
		{"--passphrase-file", "/dev/zero", "character device"},
	} {
		check(with(c.flag, c.path), c.what)
	}
	check([]string{"verify", fifo}, "named pipe")
	check([]string{"inspect", fifo}, "named pipe")
	check([]string{"eval", fifo, "--at", "0.5"}, "named pipe")
	check([]string{"ledger", "--data", fifo}, "named pipe")
}
