//go:build !unix && !windows

package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockTimeout bounds the wait for another process's ledger lock.
const lockTimeout = 30 * time.Second

// lockLedger takes an exclusive lock by creating a lock file with O_EXCL
// beside the ledger's resolved real path (platforms with neither flock nor
// LockFileEx) and returns its release, which removes the file. Symbolic
// links to the ledger share the lock; hard links do not (the platform
// offers no way to find a file's other names), which docs/ledger.md
// states. If a process dies holding the lock, the file stays; the timeout
// error names it so the curator can remove it once no other copy of the
// program runs.
func lockLedger(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	real, err := filepath.EvalSymlinks(path)
	if errors.Is(err, os.ErrNotExist) {
		real, err = path, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	lp := real + ".lock"
	deadline := time.Now().Add(lockTimeout)
	for {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
			return func() { _ = os.Remove(lp) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("ledger: lock: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("ledger: %s is held by another process since more than %v; if no other copy of the program is running, remove it", lp, lockTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// linkCount returns 1: the number of hard links of the ledger is not
// looked up on this platform, so a ledger with another hard link is not
// refused here (docs/ledger.md, "The tip file": use one name, or symbolic
// links, which share the tip).
func linkCount(string) int { return 1 }

// findLinksHint is how the curator lists the other names of a hard-linked
// ledger (HardLinkError; never reported on this platform, where the count
// is not looked up).
const findLinksHint = "find / -xdev -samefile %s"
