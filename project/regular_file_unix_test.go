//go:build unix

package project

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestOpenRegular: regular files and symlinks to them open; directories,
// FIFOs (without a writer, so an ordinary open would block) and devices
// are refused with ErrNotRegular naming the path, by every function that
// reads a file by path (issue 14 item 16).
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		data, err := fileio.ReadRegular(p, 10)
		if err != nil || !bytes.Equal(data, []byte("x")) {
			t.Errorf("ReadRegularFile(%s) = %q, %v", p, data, err)
		}
	}
	if _, err := fileio.ReadRegular(file, 0); err == nil || !strings.Contains(err.Error(), "larger than 0 bytes") {
		t.Errorf("limit: %v", err)
	}
	if _, err := fileio.OpenRegular(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifo-link")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, what string }{
		{dir, "directory"}, {fifo, "named pipe"}, {fifoLink, "named pipe"},
		{"/dev/null", "character device"}, {"/dev/zero", "character device"},
	} {
		if f, err := fileio.OpenRegular(c.path); !errors.Is(err, fileio.ErrNotRegular) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.what) {
			t.Errorf("OpenRegular(%s) = %v, %v; want ErrNotRegular naming the path and %s", c.path, f, err, c.what)
		}
	}
	readers := map[string]func(string) error{
		"ReadCSV":            func(p string) error { _, err := dataset.ReadCSV(p, dataset.CSVOptions{}); return err },
		"HashFile":           func(p string) error { _, err := dataset.HashFile(p); return err },
		"OpenSynopsis":       func(p string) error { _, err := synopsis.Open(p, nil); return err },
		"LoadAllowedSigners": func(p string) error { _, err := keys.LoadAllowedSigners(p); return err },
		"LoadWorkspace":      func(p string) error { _, err := LoadWorkspace(p); return err },
		"LoadSigner":         func(p string) error { _, err := keys.LoadSigner(p, []byte("x")); return err },
		"KeyEncrypted":       func(p string) error { _, err := keys.KeyEncrypted(p); return err },
		"ReadPassphraseFile": func(p string) error { _, err := keys.ReadPassphraseFile(p); return err },
	}
	for name, read := range readers {
		for _, p := range []string{fifo, "/dev/zero"} {
			if err := read(p); !errors.Is(err, fileio.ErrNotRegular) {
				t.Errorf("%s(%s): %v; want ErrNotRegular", name, p, err)
			}
		}
	}
}

// TestLedgerOnFIFO: a FIFO named as the ledger is refused, not waited on.
func TestLedgerOnFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ledger.Open(fifo); !errors.Is(err, fileio.ErrNotRegular) {
		t.Errorf("OpenLedger(fifo): %v; want ErrNotRegular", err)
	}
}
