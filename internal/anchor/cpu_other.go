//go:build !unix

package anchor

import "time"

// CPUTime is not available on this platform.
func CPUTime() (time.Duration, bool) { return 0, false }
