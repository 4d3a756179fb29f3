//go:build unix

package learners

import (
	"syscall"
	"time"
)

// processCPUTime returns the user+system CPU time of this process; the KDE
// benchmarks report it next to wall time because the build machine is
// shared and wall time then varies with other load.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
