//go:build unix

package ledger

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// lockedElsewhere reports whether path's current file is locked, probing
// with a non-blocking flock on a fresh descriptor.
func lockedElsewhere(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	if err != syscall.EWOULDBLOCK {
		t.Fatal(err)
	}
	return true
}

// TestLedgerLockFollowsReplacedFile: review item 4. If the ledger is
// replaced by a rename between opening and locking, the lock must end up
// on the file the path names (else two processes could lock different
// files). The seam lockedHook renames a new file over the path right
// after the first flock.
func TestLedgerLockFollowsReplacedFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replaces int // how many times the hook replaces the file
		wantErr  bool
	}{
		{"not replaced", 0, false},
		{"replaced once", 1, false},
		{"replaced three times", 3, false},
		{"replaced every time", maxLockAttempts + 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "ledger.jsonl")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			calls := 0
			lockedHook = func(path string) {
				calls++
				if calls > tc.replaces {
					return
				}
				tmp := filepath.Join(dir, "new")
				if err := os.WriteFile(tmp, nil, 0o600); err != nil {
					t.Error(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Error(err)
				}
			}
			defer func() { lockedHook = nil }()
			unlock, err := lockLedger(p)
			if tc.wantErr {
				if err == nil {
					unlock()
					t.Fatal("a file replaced on every attempt was locked")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer unlock()
			if calls != tc.replaces+1 {
				t.Errorf("lock attempts = %d, want %d", calls, tc.replaces+1)
			}
			if !lockedElsewhere(t, p) {
				t.Error("the file the path names is not locked")
			}
		})
	}
}

// TestLedgerLockWaitNotice: review item 5. A held lock is waited for with
// a notice, once; a free one gives none.
func TestLedgerLockWaitNotice(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.jsonl")
	var notices atomic.Int32
	SetLockWaitNotice(func() { notices.Add(1) })
	defer SetLockWaitNotice(nil)
	unlock, err := lockLedger(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := notices.Load(); n != 0 {
		t.Fatalf("a free lock gave %d notices", n)
	}
	// Hold it on another descriptor (flock locks are per open file, so
	// this process blocks on it like another process would).
	unlock()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		u, err := lockLedger(p)
		if err == nil {
			u()
		}
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for notices.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := notices.Load(); n != 1 {
		t.Fatalf("waiting for a held lock gave %d notices, want 1", n)
	}
	select {
	case err := <-done:
		t.Fatalf("lockLedger returned (%v) while the lock was held", err)
	default:
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := notices.Load(); n != 1 {
		t.Errorf("notices = %d after the wait, want 1", n)
	}
}
