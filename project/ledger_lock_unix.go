//go:build unix

package project

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockLedger takes an exclusive flock(2) on path+".lock", blocking until it
// is free, and returns its release. The lock serialises read-check-append
// across processes, so two releases cannot both pass the budget check; the
// kernel releases it if the process dies.
func lockLedger(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	lp := path + ".lock"
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ledger: lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger: lock %s: %w", lp, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
