package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// No-clobber publishing on every file system.
//
// WriteAtomic publishes a complete, synced temporary file under its final
// name without replacing an existing file. The preferred way is link(2),
// which fails if the name exists. FAT, exFAT and many SMB shares have no hard
// links (link returns EPERM, ENOTSUP, EOPNOTSUPP or ENOSYS); there the
// fallback reserves the final name with an exclusive create (O_CREATE|O_EXCL,
// which fails if the name exists, so nothing is clobbered) and then renames
// the complete temporary file over that empty reservation (rename(2) is
// atomic), so that the final name holds either nothing, the empty
// reservation (after a crash) or the complete data — never a torn file. If
// the rename fails, the reservation we created is removed.
//
// ProbeWritePath performs exactly these steps on throw-away names before a
// release spends its ε, so that a directory where the write cannot work is
// refused while nothing is spent yet.

// linkUnsupported reports a link(2) failure that means "this file system has
// no hard links" (as opposed to "the name exists" or an I/O error).
func linkUnsupported(err error) bool {
	return errors.Is(err, errors.ErrUnsupported) || // ENOSYS, ENOTSUP, EOPNOTSUPP
		errors.Is(err, syscall.EPERM) || // Linux vfat/exfat, many SMB mounts
		errors.Is(err, syscall.EMLINK) // no further links possible
}

// publishNoClobber makes the complete, synced, closed temporary file tmp
// appear as path, failing with an *ExistsError if path exists. It reports
// whether tmp still exists afterwards (the link strategy leaves it as a
// second name; the caller removes it). On error path is left as it was and
// tmp still exists.
func publishNoClobber(tmp, path string) (tmpRemains bool, err error) {
	err = fsops.Current.Link(tmp, path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrExist) {
		return true, &ExistsError{Path: path}
	}
	if !linkUnsupported(err) {
		return true, fmt.Errorf("%s: link into place (no-clobber): %w", path, err)
	}
	// No hard links here: reserve the name exclusively, then rename over it.
	r, err := fsops.Current.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return true, &ExistsError{Path: path}
		}
		return true, fmt.Errorf("%s: create exclusively (file system without hard links): %w", path, err)
	}
	if err := r.Close(); err != nil {
		_ = fsops.Current.Remove(path)
		return true, fmt.Errorf("%s: create exclusively (file system without hard links): %w", path, err)
	}
	if err := fsops.Current.Rename(tmp, path); err != nil {
		_ = fsops.Current.Remove(path) // the empty reservation is ours
		return true, fmt.Errorf("%s: rename into the reserved name (file system without hard links): %w", path, err)
	}
	return false, nil
}

// ProbeWritePath performs the steps WriteAtomic(path, …, overwrite)
// will take, on throw-away names in path's directory: create a temporary
// file named like WriteAtomic's, sync and close it, then publish it
// under a second throw-away name — no-clobber (link, or the exclusive-create
// fallback) or by rename when overwrite — and remove what it created. An
// error names path and the step that cannot work there. It does not look at
// path itself.
func ProbeWritePath(path string, overwrite bool) (err error) {
	dir := filepath.Dir(path)
	f, err := fsops.Current.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("%s: cannot write in directory %s: %w", path, dir, err)
	}
	tmp := f.Name()
	target := tmp + probeSuffix
	created := []string{tmp}
	defer func() {
		for _, name := range created {
			_ = fsops.Current.Remove(name)
		}
	}()
	if err := f.Sync(); err != nil && !fsops.IsNotSupported(err) {
		_ = f.Close()
		return fmt.Errorf("%s: cannot sync a file in directory %s: %w", path, dir, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: cannot write in directory %s: %w", path, dir, err)
	}
	if overwrite {
		if err := fsops.Current.Rename(tmp, target); err != nil {
			return fmt.Errorf("%s: cannot rename files in directory %s: %w", path, dir, err)
		}
		created = []string{target}
		return nil
	}
	tmpRemains, err := publishNoClobber(tmp, target)
	if err != nil {
		return fmt.Errorf("cannot publish files without overwriting in directory %s: %w", dir, err)
	}
	created = []string{target}
	if tmpRemains {
		created = append(created, tmp)
	}
	return nil
}

// tempPattern is the os.CreateTemp pattern of the temporary files written
// next to path: ".NAME.tmp-*" (the * becomes decimal digits).
func tempPattern(path string) string {
	return "." + filepath.Base(path) + tempInfix + "*"
}

const (
	tempInfix   = ".tmp-"
	probeSuffix = ".probe"
)
