//go:build windows

package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// lockLedger takes an exclusive LockFileEx lock on the ledger file itself
// (created empty if missing), blocking until it is free, and returns its
// release. Like flock on Unix, the lock belongs to the file, not the name,
// so hard and symbolic links to the ledger share it; Windows releases it
// if the process dies.
func lockLedger(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	h := windows.Handle(f.Fd())
	// Windows byte-range locks are mandatory: locking the ledger's bytes
	// would block this process's own reads and appends through other
	// handles. The lock is on one byte at offset 2⁶², far past any data.
	ol := &windows.Overlapped{OffsetHigh: 1 << 30}
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: lock %s: %w", path, err)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, ol)
		f.Close()
	}, nil
}

// linkCount returns the number of hard links of the file at path (names
// of it: GetFileInformationByHandle's NumberOfLinks, as st_nlink on Unix),
// or 1 if it cannot be told.
func linkCount(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 1
	}
	defer f.Close()
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 1
	}
	return max(1, int(info.NumberOfLinks))
}

// findLinksHint is how the curator lists the other names of a hard-linked
// ledger on this platform (HardLinkError).
const findLinksHint = "fsutil hardlink list %s"
