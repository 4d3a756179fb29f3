//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/bernsteinrelease/bernstein/cli/figure"
	"github.com/bernsteinrelease/bernstein/project/dataset"
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

// TestOutputRefusesNonRegularTargets (adversarial review, item 1): no
// writer replaces an existing FIFO, a symbolic link to a FIFO or a
// directory with a regular file — not with --force either
// (fileio.CheckReplaceable). Only paths under t.TempDir() are used; a FIFO
// stands in for a device node.
func TestOutputRefusesNonRegularTargets(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	syn := w.path("first.synopsis")
	te.mustRun(t, w.kdeRelease(syn)...)
	mkfifo := func(p string) {
		t.Helper()
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fifo := w.path("fifo")
	mkfifo(fifo)
	link(fifo, w.path("fifo-link"))
	mkdir(w.path("dir.csv"))
	figDir, demoDir, demoDir2 := w.path("fig"), w.path("demo-fifo"), w.path("demo-link")
	mkdir(figDir)
	mkfifo(filepath.Join(figDir, figure.CSV1File))
	mkdir(demoDir)
	mkfifo(filepath.Join(demoDir, dataset.DemoKDE1DFile))
	mkdir(demoDir2)
	link(fifo, filepath.Join(demoDir2, dataset.DemoKDE1DFile))

	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"eval", syn, "--at", "0.5", "--out", fifo, "--force"}, "named pipe"},
		{[]string{"eval", syn, "--at", "0.5", "--out", fifo}, "named pipe"},
		{[]string{"eval", syn, "--at", "0.5", "--out", w.path("fifo-link"), "--force"}, "symbolic link to a named pipe"},
		{[]string{"eval", syn, "--at", "0.5", "--out", w.path("dir.csv"), "--force"}, "directory"},
		{[]string{"figure", "1", "--out", figDir, "--force", "--repeats", "1"}, "named pipe"},
		{[]string{"demo-data", "--out", demoDir, "--force"}, "named pipe"},
		{[]string{"demo-data", "--out", demoDir2, "--force"}, "symbolic link to a named pipe"},
		{w.kdeRelease(fifo, "--force"), "named pipe"},
		{w.kdeRelease(w.path("fifo-link"), "--force"), "symbolic link to a named pipe"},
	} {
		r := te.run(c.args...)
		if r.code == exitOK || !strings.Contains(r.stderr, "not a regular file") || !strings.Contains(r.stderr, c.what) {
			t.Errorf("%q: exit %d, stderr %q; want a 'not a regular file' error naming %s", c.args, r.code, r.stderr, c.what)
		}
	}
	for _, p := range []string{fifo, filepath.Join(figDir, figure.CSV1File), filepath.Join(demoDir, dataset.DemoKDE1DFile)} {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s: no longer a FIFO (%v, %v)", p, st, err)
		}
	}
	for _, p := range []string{w.path("fifo-link"), filepath.Join(demoDir2, dataset.DemoKDE1DFile)} {
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: no longer a symbolic link (%v, %v)", p, st, err)
		}
	}
	// A symbolic link to a regular file is replaced by the new file; its
	// old target is left untouched.
	old := w.path("old.csv")
	if err := os.WriteFile(old, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link(old, w.path("old-link.csv"))
	te.mustRun(t, "eval", syn, "--at", "0.5", "--out", w.path("old-link.csv"), "--force")
	if b, _ := os.ReadFile(old); string(b) != "keep\n" {
		t.Errorf("the link's target changed: %q", b)
	}
}

// TestEvalPointsFIFOPointsToStdin: a FIFO as --points is refused at once
// (no hang) with a message pointing to --points -, which reads a pipe.
func TestEvalPointsFIFOPointsToStdin(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	syn := w.path("kde.synopsis")
	te.mustRun(t, w.kdeRelease(syn)...)
	fifo := w.path("points.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := te.run("eval", syn, "--points", fifo)
	if r.code != exitRuntime || !strings.Contains(r.stderr, "named pipe") || !strings.Contains(r.stderr, "give --points - and send them to standard input") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
