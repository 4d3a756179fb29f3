//go:build unix

package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockLedger takes an exclusive flock(2) on the ledger file itself (created
// empty if missing), blocking until it is free, and returns its release.
// The lock belongs to the file, not to the name: a symbolic or hard link to
// the ledger locks the same inode, so two releases through two names are
// serialised too. It serialises read-check-append across processes, so two
// releases cannot both pass the budget check; the kernel releases it if the
// process dies. (flock, unlike fcntl locks, is not dropped when another
// descriptor of the file is closed, e.g. by appendDurably.)
func lockLedger(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	f, err := openLedgerForLock(path)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// openLedgerForLock opens the ledger file for locking, creating it empty
// (mode 0600, directory synced) if it does not exist. An empty file is an
// empty ledger.
func openLedgerForLock(path string) (*os.File, error) {
	f, err := OpenRegular(path) // a FIFO or device is refused, not waited on
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
	if err := ops.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return f, nil
}
