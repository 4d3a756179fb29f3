//go:build unix

package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// lockLedger takes an exclusive flock(2) on the ledger file itself (created
// empty if missing), blocking until it is free, and returns its release.
// The lock belongs to the file, not to the name: a symbolic or hard link to
// the ledger locks the same inode, so two releases through two names are
// serialised too. It serialises read-check-append across processes, so two
// releases cannot both pass the budget check; the kernel releases it if the
// process dies. (flock, unlike fcntl locks, is not dropped when another
// descriptor of the file is closed, e.g. by appendDurably.)
//
// Reading and appending reopen the path, so the locked descriptor must be
// the file the path names once the lock is held: if the ledger was replaced
// (renamed over, or a symbolic link retargeted) between opening and
// locking, two processes could lock different files. After the lock is
// taken, the locked file is compared with the path's (device and inode);
// if they differ the lock is dropped and taken again on the new file.
//
// If the lock is not free at once, the notice set by SetLockWaitNotice is
// called once before blocking.
func lockLedger(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	noticed := false
	for attempt := 0; ; attempt++ {
		f, err := openLedgerForLock(path)
		if err != nil {
			return nil, err
		}
		if err := flockNotify(f, &noticed); err != nil {
			f.Close()
			return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
		}
		unlock := func() {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
		if lockedHook != nil {
			lockedHook(path)
		}
		same, err := lockedIsPath(f, path)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
		}
		if same {
			return unlock, nil
		}
		unlock()
		if attempt == maxLockAttempts {
			return nil, fmt.Errorf("ledger: lock %s: the file was replaced %d times while being locked; is another program rewriting it?", path, attempt+1)
		}
	}
}

// maxLockAttempts bounds how often lockLedger retries a ledger that keeps
// being replaced.
const maxLockAttempts = 100

// lockedHook, if set (tests only), runs after each flock, before the
// locked file is compared with the path: a seam to replace the file there.
var lockedHook func(path string)

// lockedIsPath reports whether the locked file f is the file path names
// now; false if path no longer exists.
func lockedIsPath(f *os.File, path string) (bool, error) {
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// flockNotify takes an exclusive flock on f: at once if it is free, else,
// after calling the wait notice (once per *noticed), blocking.
func flockNotify(f *os.File, noticed *bool) error {
	err := flockRetry(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err != syscall.EWOULDBLOCK {
		return err
	}
	if !*noticed {
		*noticed = true
		notifyLockWait()
	}
	return flockRetry(f, syscall.LOCK_EX)
}

// flockRetry calls flock, retrying on EINTR.
func flockRetry(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// openLedgerForLock opens the ledger file for locking, creating it empty
// (mode 0600, directory synced) if it does not exist. An empty file is an
// empty ledger.
func openLedgerForLock(path string) (*os.File, error) {
	f, err := fileio.OpenRegular(path) // a FIFO or device is refused, not waited on
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	if err := fsops.Current.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return f, nil
}

// linkCount returns the number of hard links of the file at path (names
// of it), or 1 if it cannot be told.
func linkCount(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 1
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Nlink)
	}
	return 1
}

// findLinksHint is how the curator lists the other names of a hard-linked
// ledger on this platform (HardLinkError).
const findLinksHint = "find / -xdev -samefile %s"
