//go:build unix

package anchor

import (
	"syscall"
	"time"
)

// CPUTime returns the user + system CPU time of this process (all threads).
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
