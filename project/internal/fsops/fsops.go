package fsops

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
)

// FS is the seam through which the atomic writers (project/fileio), the key
// writer and the ledger touch the file system. Production code uses OS;
// fault-injection tests replace the package variable Current with an implementation that fails (or "crashes") at a
// chosen step, to prove that an interrupted write never leaves a torn file.
//
// Every step that changes the file system goes through exactly one method, so
// a test can enumerate the steps by counting calls.
type FS interface {
	// CreateTemp creates a new temporary file in dir (os.CreateTemp).
	CreateTemp(dir, pattern string) (File, error)
	// OpenFile opens name (os.OpenFile).
	OpenFile(name string, flag int, perm os.FileMode) (File, error)
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

// File is the part of *os.File that the write paths use.
type File interface {
	io.Writer
	Name() string
	Sync() error
	Chmod(mode os.FileMode) error
	Truncate(size int64) error
	Close() error
}

// Current is the file-system seam used by the writers of project/...; only
// tests swap it (with Install).
var Current FS = OS{}

// OS is the real file system.
type OS struct{}

func (OS) CreateTemp(dir, pattern string) (File, error) { return os.CreateTemp(dir, pattern) }
func (OS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	return os.OpenFile(name, flag, perm)
}
func (OS) Link(oldname, newname string) error   { return os.Link(oldname, newname) }
func (OS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }
func (OS) Remove(name string) error             { return os.Remove(name) }
func (OS) SyncDir(dir string) error             { return SyncDir(dir) }

// SyncDir fsyncs a directory. Some platforms (Windows) and file systems
// cannot open or sync a directory; those failures are ignored because the
// rename itself is then the strongest guarantee the platform offers.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be fsynced; NTFS renames are journaled
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !IsNotSupported(err) {
		return fmt.Errorf("%s: sync directory: %w", dir, err)
	}
	return nil
}

// IsNotSupported reports errors that mean "this platform or file system
// cannot do that" (fsync or chmod on some file systems), as opposed to I/O
// failures.
func IsNotSupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL)
}
