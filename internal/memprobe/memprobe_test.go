package memprobe

import (
	"runtime"
	"testing"
)

// TestMeasure: a function that keeps 32 MiB live while it runs shows at
// least that much in both figures, and one that allocates nothing shows
// (almost) nothing.
func TestMeasure(t *testing.T) {
	const size = 32 << 20
	for _, measure := range []func(func()) Result{Measure, MeasureLive} {
		r := measure(func() {
			b := make([]byte, size)
			for i := range b {
				b[i] = byte(i)
			}
			runtime.KeepAlive(b)
		})
		if r.Allocated < size || r.PeakHeap < size {
			t.Errorf("32 MiB kept live: %+v; want both ≥ %d", r, size)
		}
		r = measure(func() {})
		if r.Allocated > 1<<20 || r.PeakHeap > 1<<20 {
			t.Errorf("nothing allocated: %+v; want both ≤ 1 MiB", r)
		}
	}
}
