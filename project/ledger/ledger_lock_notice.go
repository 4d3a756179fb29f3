package ledger

import "sync/atomic"

// lockWaitNotice is called when a ledger lock is not free at once.
var lockWaitNotice atomic.Pointer[func()]

// SetLockWaitNotice sets the function called, once per lock taken, when the
// ledger lock is held by another process (another release is running) and
// this one is about to wait for it: the CLI prints "waiting for the ledger
// lock…" so that a wait is never silent. nil removes it. Safe for
// concurrent use; on platforms without a non-blocking lock probe it is
// never called.
func SetLockWaitNotice(f func()) {
	if f == nil {
		lockWaitNotice.Store(nil)
		return
	}
	lockWaitNotice.Store(&f)
}

// notifyLockWait calls the lock wait notice, if one is set.
func notifyLockWait() {
	if f := lockWaitNotice.Load(); f != nil {
		(*f)()
	}
}
