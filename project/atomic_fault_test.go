package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

var errInjected = errors.New("injected fault")

// faultOps is the fault-injection implementation of fileOps. It counts the
// file-system steps (every fileOps and opsFile call) and fails step failAt
// (1-based). A failing Write first writes half its data, like a torn write.
// With crash set, every later step fails too and nothing more reaches the
// disk: the process "died" at that step, so no cleanup runs.
type faultOps struct {
	failAt int
	crash  bool
	steps  int
	hit    bool
	trace  []string
	// linkErr, if set, is what every Link returns (a file system without
	// hard links); exclErr, if set, is what every exclusive create
	// (O_EXCL) returns.
	linkErr, exclErr error
}

// installFaults makes the package's writers use f for the rest of the test.
func installFaults(t *testing.T, f *faultOps) {
	t.Helper()
	old := ops
	ops = f
	t.Cleanup(func() { ops = old })
}

// faulted returns the name of the step that failed, or "" if none did.
func (f *faultOps) faulted() string {
	if !f.hit {
		return ""
	}
	return f.trace[f.failAt-1]
}

func (f *faultOps) step(name string) error {
	f.steps++
	f.trace = append(f.trace, name)
	if f.hit && f.crash {
		return fmt.Errorf("%s after crash: %w", name, errInjected)
	}
	if f.steps == f.failAt {
		f.hit = true
		return fmt.Errorf("%s: %w", name, errInjected)
	}
	return nil
}

func (f *faultOps) CreateTemp(dir, pattern string) (opsFile, error) {
	if err := f.step("create-temp"); err != nil {
		return nil, err
	}
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, ops: f}, nil
}

func (f *faultOps) OpenFile(name string, flag int, perm os.FileMode) (opsFile, error) {
	if err := f.step("open"); err != nil {
		return nil, err
	}
	if f.exclErr != nil && flag&os.O_EXCL != 0 {
		return nil, &os.PathError{Op: "open", Path: name, Err: f.exclErr}
	}
	file, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, ops: f}, nil
}

func (f *faultOps) Link(oldname, newname string) error {
	if err := f.step("link"); err != nil {
		return err
	}
	if f.linkErr != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: f.linkErr}
	}
	return os.Link(oldname, newname)
}

func (f *faultOps) Rename(oldname, newname string) error {
	if err := f.step("rename"); err != nil {
		return err
	}
	return os.Rename(oldname, newname)
}

func (f *faultOps) Remove(name string) error {
	if err := f.step("remove"); err != nil {
		return err
	}
	return os.Remove(name)
}

func (f *faultOps) SyncDir(dir string) error {
	if err := f.step("sync-dir"); err != nil {
		return err
	}
	return syncDir(dir)
}

type faultFile struct {
	*os.File
	ops *faultOps
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.ops.step("write"); err != nil {
		if f.ops.hit && f.ops.steps == f.ops.failAt {
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

// forEachFault runs fn with a fault at step 1, 2, … (in both the error and
// the crash mode) until fn completes without reaching the fault. fn gets a
// fresh directory; it must return the error of the operation under test.
func forEachFault(t *testing.T, fn func(t *testing.T, dir string, f *faultOps)) {
	forEachFaultWith(t, faultOps{}, fn)
}

// forEachFaultWith is forEachFault on a file system described by base (its
// linkErr and exclErr).
func forEachFaultWith(t *testing.T, base faultOps, fn func(t *testing.T, dir string, f *faultOps)) {
	for _, crash := range []bool{false, true} {
		for failAt := 1; ; failAt++ {
			f := &faultOps{failAt: failAt, crash: crash, linkErr: base.linkErr, exclErr: base.exclErr}
			done := false
			t.Run(fmt.Sprintf("crash=%v/step=%d", crash, failAt), func(t *testing.T) {
				dir := t.TempDir()
				fn(t, dir, f)
				done = !f.hit
				if f.hit {
					t.Logf("fault at %s (trace %s)", f.faulted(), strings.Join(f.trace, ","))
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

func TestWriteFileAtomicFaults(t *testing.T) {
	testWriteFileAtomicFaults(t, faultOps{})
}

// TestWriteFileAtomicFaultsWithoutHardLinks: the same on a file system
// where link(2) returns EPERM (FAT, exFAT, SMB), where no-clobber writes
// take the exclusive-create fallback.
func TestWriteFileAtomicFaultsWithoutHardLinks(t *testing.T) {
	testWriteFileAtomicFaults(t, faultOps{linkErr: syscall.EPERM})
}

func testWriteFileAtomicFaults(t *testing.T, fs faultOps) {
	for _, overwrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("overwrite=%v", overwrite), func(t *testing.T) {
			forEachFaultWith(t, fs, func(t *testing.T, dir string, f *faultOps) {
				path := filepath.Join(dir, "out.json")
				old := ""
				if overwrite {
					old = strings.Repeat("old ", 1000)
					if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				installFaults(t, f)
				data := strings.Repeat("new ", 1000)
				err := WriteFileAtomic(path, []byte(data), 0o644, overwrite)
				if f.hit && err == nil {
					t.Errorf("fault at %s not reported", f.faulted())
				}
				if err != nil && !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the path", err)
				}
				got, rerr := os.ReadFile(path)
				switch {
				case errors.Is(rerr, os.ErrNotExist) && !overwrite && err != nil:
					// absent before, absent after: fine
				case rerr != nil:
					t.Fatal(rerr)
				case string(got) == data:
				case overwrite && string(got) == old && err != nil:
				case len(got) == 0 && f.crash && fs.linkErr != nil && !overwrite:
					// the fallback's empty reservation, left by a crash
				default:
					t.Errorf("torn file: %d bytes, err = %v", len(got), err)
				}
				// Without a crash, only a failure to remove the temporary
				// file itself may leave it behind (and is reported).
				if !f.crash && f.faulted() != "remove" {
					assertNoTemp(t, dir)
				}
			})
		})
	}
}
