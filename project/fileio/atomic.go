package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
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

// WriteAtomic writes data to path so that, whatever happens (error,
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
func WriteAtomic(path string, data []byte, perm os.FileMode, overwrite bool) error {
	return writeFileAtomic(Pending{Path: path, Data: data, Mode: perm}, overwrite)
}

// WriteAtomicFunc is WriteAtomic with the content written by write
// to the temporary file, so that a large result streams to disk instead of
// being held in memory first. An error from write is returned as it is
// (a failed write to the temporary file names that file) and leaves path as
// it was.
func WriteAtomicFunc(path string, perm os.FileMode, overwrite bool, write func(io.Writer) error) error {
	return writeFileAtomic(Pending{Path: path, Write: write, Mode: perm}, overwrite)
}

// writeFileAtomic is WriteAtomic of the pending file f.
func writeFileAtomic(f Pending, overwrite bool) (err error) {
	path := f.Path
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
			_ = fsops.Current.Remove(tmp)
		}
	}()
	if overwrite {
		if err := fsops.Current.Rename(tmp, path); err != nil {
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
			if err := fsops.Current.Remove(tmp); err != nil {
				return fmt.Errorf("%s: written, but removing temporary file %s failed: %w", path, tmp, err)
			}
		}
	}
	if err := fsops.Current.SyncDir(dir); err != nil {
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

// Pending is a file to write: its final path, content and mode.
type Pending struct {
	Path string
	Data []byte
	// write, if set, writes the content instead of data (its error is
	// returned as it is).
	Write func(io.Writer) error
	Mode  os.FileMode
}

// writeTemp writes f completely (data, mode, fsync, close) under a new
// temporary name next to f.path (tempPattern) and returns that name; on
// error nothing is left behind. Errors name f.path and the failed step.
func writeTemp(f Pending) (_ string, err error) {
	t, err := fsops.Current.CreateTemp(filepath.Dir(f.Path), tempPattern(f.Path))
	if err != nil {
		return "", fmt.Errorf("%s: create temporary file: %w", f.Path, err)
	}
	tmp := t.Name()
	defer func() {
		if err != nil {
			_ = t.Close()
			_ = fsops.Current.Remove(tmp)
		}
	}()
	if f.Write != nil {
		if err := f.Write(t); err != nil {
			return "", err
		}
	} else if _, err := t.Write(f.Data); err != nil {
		return "", fmt.Errorf("%s: write temporary file: %w", f.Path, err)
	}
	if err := t.Chmod(f.Mode); err != nil && !fsops.IsNotSupported(err) {
		return "", fmt.Errorf("%s: set permissions %v: %w", f.Path, f.Mode, err)
	}
	if err := t.Sync(); err != nil {
		return "", fmt.Errorf("%s: sync temporary file: %w", f.Path, err)
	}
	if err := t.Close(); err != nil {
		return "", fmt.Errorf("%s: close temporary file: %w", f.Path, err)
	}
	return tmp, nil
}
