package project

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// ErrExists is returned (wrapped in an *ExistsError) when a write would
// replace an existing file and the caller did not ask to overwrite.
// Test with errors.Is(err, ErrExists).
var ErrExists = errors.New("file exists")

// ExistsError names the file that a no-clobber write refused to replace.
// It matches ErrExists under errors.Is.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s: file exists; pass --force to overwrite it or choose another name", e.Path)
}

// Is makes errors.Is(err, ErrExists) true for an *ExistsError.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }

// fileOps is the seam through which WriteFileAtomic and the ledger touch the
// file system. Production code uses osOps; fault-injection tests replace the
// package variable ops with an implementation that fails (or "crashes") at a
// chosen step, to prove that an interrupted write never leaves a torn file.
//
// Every step that changes the file system goes through exactly one method, so
// a test can enumerate the steps by counting calls.
type fileOps interface {
	// CreateTemp creates a new temporary file in dir (os.CreateTemp).
	CreateTemp(dir, pattern string) (opsFile, error)
	// OpenFile opens name (os.OpenFile).
	OpenFile(name string, flag int, perm os.FileMode) (opsFile, error)
	// Link creates newname as a hard link to oldname; it fails if newname
	// exists (link(2)).
	Link(oldname, newname string) error
	// Rename atomically replaces newname by oldname (rename(2)).
	Rename(oldname, newname string) error
	// Remove removes name.
	Remove(name string) error
	// SyncDir fsyncs the directory dir so that a rename or link in it is
	// durable.
	SyncDir(dir string) error
}

// opsFile is the part of *os.File that the write paths use.
type opsFile interface {
	io.Writer
	Name() string
	Sync() error
	Chmod(mode os.FileMode) error
	Truncate(size int64) error
	Close() error
}

// ops is the file-system seam used by this package's writers; tests swap it.
var ops fileOps = osOps{}

type osOps struct{}

func (osOps) CreateTemp(dir, pattern string) (opsFile, error) { return os.CreateTemp(dir, pattern) }
func (osOps) OpenFile(name string, flag int, perm os.FileMode) (opsFile, error) {
	return os.OpenFile(name, flag, perm)
}
func (osOps) Link(oldname, newname string) error   { return os.Link(oldname, newname) }
func (osOps) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (osOps) Remove(name string) error             { return os.Remove(name) }
func (osOps) SyncDir(dir string) error             { return syncDir(dir) }

// syncDir fsyncs a directory. Some platforms (Windows) and file systems
// cannot open or sync a directory; those failures are ignored because the
// rename itself is then the strongest guarantee the platform offers.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be fsynced; NTFS renames are journaled
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !isNotSupported(err) {
		return fmt.Errorf("%s: sync directory: %w", dir, err)
	}
	return nil
}

// WriteFileAtomic writes data to path so that, whatever happens (error,
// crash, power loss after the call returns), path holds either its old
// content (or does not exist) or exactly data — never a torn mixture.
//
// Steps: create a temporary file in path's directory, write data, set perm,
// fsync the file, then publish it under path and fsync the directory.
// Publishing depends on overwrite:
//
//   - overwrite == false: the temporary file is hard-linked to path, which
//     fails if path exists (link(2) is no-clobber, so there is no race with a
//     concurrent writer); the temporary name is then removed. If path exists,
//     the error is an *ExistsError (errors.Is(err, ErrExists)) naming it. On
//     file systems without hard links (FAT, exFAT, many SMB shares) path is
//     reserved by an exclusive create and the temporary file is renamed over
//     that reservation (publishNoClobber): still no clobbering, and path
//     never holds a torn file.
//   - overwrite == true: the temporary file is renamed over path (rename(2)
//     is atomic on POSIX file systems).
//
// On any error the temporary file is removed (best effort) and path is left
// as it was. Errors name the path and the failed step.
func WriteFileAtomic(path string, data []byte, perm os.FileMode, overwrite bool) error {
	return writeFileAtomic(pendingFile{path: path, data: data, mode: perm}, overwrite)
}

// WriteFileAtomicFunc is WriteFileAtomic with the content written by write
// to the temporary file, so that a large result streams to disk instead of
// being held in memory first. An error from write is returned as it is
// (a failed write to the temporary file names that file) and leaves path as
// it was.
func WriteFileAtomicFunc(path string, perm os.FileMode, overwrite bool, write func(io.Writer) error) error {
	return writeFileAtomic(pendingFile{path: path, write: write, mode: perm}, overwrite)
}

// writeFileAtomic is WriteFileAtomic of the pending file f.
func writeFileAtomic(f pendingFile, overwrite bool) (err error) {
	path := f.path
	if path == "" {
		return errors.New("write file: empty path")
	}
	if err := CheckReplaceable(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if !overwrite {
		// Cheap early refusal; the link below is the authoritative check.
		if _, statErr := os.Lstat(path); statErr == nil {
			return &ExistsError{Path: path}
		}
	}
	removeStaleTemps(dir, filepath.Base(path))
	tmp, err := writeTemp(f)
	if err != nil {
		return err
	}
	published := false
	defer func() {
		if !published {
			_ = ops.Remove(tmp)
		}
	}()
	if overwrite {
		if err := ops.Rename(tmp, path); err != nil {
			return fmt.Errorf("%s: rename into place: %w", path, err)
		}
		published = true
	} else {
		tmpRemains, err := publishNoClobber(tmp, path)
		if err != nil {
			return err
		}
		published = true
		// path now holds the complete data; the temporary name, if still
		// there, is just a second link to it. Failing to remove it is
		// harmless but reported.
		if tmpRemains {
			if err := ops.Remove(tmp); err != nil {
				return fmt.Errorf("%s: written, but removing temporary file %s failed: %w", path, tmp, err)
			}
		}
	}
	if err := ops.SyncDir(dir); err != nil {
		return fmt.Errorf("%s: written, but %w", path, err)
	}
	return nil
}

// CheckReplaceable is the one home of the rule that an output file may only
// ever replace a regular file: it returns an error matching ErrNotRegular,
// naming path and what it is, if path exists and is a directory, named pipe
// (FIFO), device or socket, or a symbolic link whose final target is one of
// those. --force never overrides it: renaming a new file over /dev/null or a
// FIFO would destroy the device node or pipe, not write into it.
//
// A symbolic link to a regular file (or a dangling one) is accepted: the
// writers rename the new file over the link itself, so the link is replaced
// by a regular file and its old target is left untouched. (Links to
// protected files — dataset, ledger, keys — are refused earlier by
// CheckOutputPath.) A path that does not exist is accepted. The check is
// made just before writing; a file swapped in afterwards is not noticed.
func CheckReplaceable(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode().IsRegular():
		return nil
	case st.Mode()&os.ModeSymlink != 0:
		target, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) || err == nil && target.Mode().IsRegular() {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%s: %w: it exists and is a symbolic link to %s; nothing was written, choose another output file",
			path, ErrNotRegular, describeMode(target.Mode()))
	}
	return fmt.Errorf("%s: %w: it exists and is %s; nothing was written, choose another output file",
		path, ErrNotRegular, describeMode(st.Mode()))
}

// isNotSupported reports errors that mean "this platform or file system
// cannot do that" (fsync or chmod on some file systems), as opposed to I/O
// failures.
func isNotSupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL)
}

// pendingFile is a file to write: its final path, content and mode.
type pendingFile struct {
	path string
	data []byte
	// write, if set, writes the content instead of data (its error is
	// returned as it is).
	write func(io.Writer) error
	mode  os.FileMode
}

// writeTemp writes f completely (data, mode, fsync, close) under a new
// temporary name next to f.path (tempPattern) and returns that name; on
// error nothing is left behind. Errors name f.path and the failed step.
func writeTemp(f pendingFile) (_ string, err error) {
	t, err := ops.CreateTemp(filepath.Dir(f.path), tempPattern(f.path))
	if err != nil {
		return "", fmt.Errorf("%s: create temporary file: %w", f.path, err)
	}
	tmp := t.Name()
	defer func() {
		if err != nil {
			_ = t.Close()
			_ = ops.Remove(tmp)
		}
	}()
	if f.write != nil {
		if err := f.write(t); err != nil {
			return "", err
		}
	} else if _, err := t.Write(f.data); err != nil {
		return "", fmt.Errorf("%s: write temporary file: %w", f.path, err)
	}
	if err := t.Chmod(f.mode); err != nil && !isNotSupported(err) {
		return "", fmt.Errorf("%s: set permissions %v: %w", f.path, f.mode, err)
	}
	if err := t.Sync(); err != nil {
		return "", fmt.Errorf("%s: sync temporary file: %w", f.path, err)
	}
	if err := t.Close(); err != nil {
		return "", fmt.Errorf("%s: close temporary file: %w", f.path, err)
	}
	return tmp, nil
}
