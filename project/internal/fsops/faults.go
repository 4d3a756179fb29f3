package fsops

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// ErrInjected is the error of every injected fault.
var ErrInjected = errors.New("injected fault")

// Faults is the fault-injection implementation of FS. It counts the
// file-system steps (every FS and File call) and fails step FailAt
// (1-based). A failing Write first writes half its data, like a torn write.
// With Crash set, every later step fails too and nothing more reaches the
// disk: the process "died" at that step, so no cleanup runs.
type Faults struct {
	FailAt int
	Crash  bool
	Steps  int
	Hit    bool
	Trace  []string
	// LinkErr, if set, is what every Link returns (a file system without
	// hard links); ExclErr, if set, is what every exclusive create
	// (O_EXCL) returns.
	LinkErr, ExclErr error
}

// Install makes the writers use f for the rest of the test.
func Install(t *testing.T, f *Faults) {
	t.Helper()
	old := Current
	Current = f
	t.Cleanup(func() { Current = old })
}

// Faulted returns the name of the step that failed, or "" if none did.
func (f *Faults) Faulted() string {
	if !f.Hit {
		return ""
	}
	return f.Trace[f.FailAt-1]
}

func (f *Faults) step(name string) error {
	f.Steps++
	f.Trace = append(f.Trace, name)
	if f.Hit && f.Crash {
		return fmt.Errorf("%s after crash: %w", name, ErrInjected)
	}
	if f.Steps == f.FailAt {
		f.Hit = true
		return fmt.Errorf("%s: %w", name, ErrInjected)
	}
	return nil
}

func (f *Faults) CreateTemp(dir, pattern string) (File, error) {
	if err := f.step("create-temp"); err != nil {
		return nil, err
	}
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, ops: f}, nil
}

func (f *Faults) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	if err := f.step("open"); err != nil {
		return nil, err
	}
	if f.ExclErr != nil && flag&os.O_EXCL != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: f.ExclErr}
	}
	file, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, ops: f}, nil
}

func (f *Faults) Link(oldname, newname string) error {
	if err := f.step("link"); err != nil {
		return err
	}
	if f.LinkErr != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: f.LinkErr}
	}
	return os.Link(oldname, newname)
}

func (f *Faults) Rename(oldname, newname string) error {
	if err := f.step("rename"); err != nil {
		return err
	}
	return os.Rename(oldname, newname)
}

func (f *Faults) Remove(name string) error {
	if err := f.step("remove"); err != nil {
		return err
	}
	return os.Remove(name)
}

func (f *Faults) SyncDir(dir string) error {
	if err := f.step("sync-dir"); err != nil {
		return err
	}
	return SyncDir(dir)
}

type faultFile struct {
	*os.File
	ops *Faults
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.ops.step("write"); err != nil {
		if f.ops.Hit && f.ops.Steps == f.ops.FailAt {
			n, _ := f.File.Write(p[:len(p)/2]) // torn write
			return n, err
		}
		return 0, err
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if err := f.ops.step("sync"); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Chmod(mode os.FileMode) error {
	if err := f.ops.step("chmod"); err != nil {
		return err
	}
	return f.File.Chmod(mode)
}

func (f *faultFile) Truncate(size int64) error {
	if err := f.ops.step("truncate"); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

func (f *faultFile) Close() error {
	err := f.ops.step("close")
	cerr := f.File.Close() // never leak the descriptor, even "after a crash"
	if err != nil {
		return err
	}
	return cerr
}

// ForEach runs fn with a fault at step 1, 2, … (in both the error and
// the crash mode) until fn completes without reaching the fault. fn gets a
// fresh directory; it must return the error of the operation under test.
func ForEach(t *testing.T, fn func(t *testing.T, dir string, f *Faults)) {
	ForEachWith(t, Faults{}, fn)
}

// ForEachWith is ForEach on a file system described by base (its LinkErr
// and ExclErr).
func ForEachWith(t *testing.T, base Faults, fn func(t *testing.T, dir string, f *Faults)) {
	for _, crash := range []bool{false, true} {
		for failAt := 1; ; failAt++ {
			f := &Faults{FailAt: failAt, Crash: crash, LinkErr: base.LinkErr, ExclErr: base.ExclErr}
			done := false
			t.Run(fmt.Sprintf("crash=%v/step=%d", crash, failAt), func(t *testing.T) {
				dir := t.TempDir()
				fn(t, dir, f)
				done = !f.Hit
				if f.Hit {
					t.Logf("fault at %s (trace %s)", f.Faulted(), strings.Join(f.Trace, ","))
				}
			})
			if done {
				if failAt < 3 {
					t.Fatalf("operation finished after %d steps: the seam is not used", failAt-1)
				}
				break
			}
			if failAt > 100 {
				t.Fatal("more than 100 steps")
			}
		}
	}
}

// InstallNoLinks installs, for the rest of the test, a file system without
// hard links, as FAT, exFAT and SMB shares are: link(2) returns err. No step
// fails otherwise.
func InstallNoLinks(t *testing.T, err error) *Faults {
	f := &Faults{FailAt: -1, LinkErr: err}
	Install(t, f)
	return f
}

// AssertNoTemp fails the test if dir holds a temporary file of a write
// (".NAME.tmp-DIGITS").
func AssertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
