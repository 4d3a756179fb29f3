package memprobe

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// SampleEvery is the sampling period of the peak heap.
const SampleEvery = time.Millisecond

// Result is what Measure saw.
type Result struct {
	// PeakHeap is the largest HeapAlloc seen while f ran, minus HeapAlloc
	// after a collection just before f (bytes; 0 if the heap never grew).
	PeakHeap uint64
	// Allocated is the growth of TotalAlloc over f (bytes).
	Allocated uint64
}

// Measure runs f and returns its memory figures (see the package doc).
func Measure(f func()) Result {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	var (
		mu   sync.Mutex
		peak = before.HeapAlloc
		done = make(chan struct{})
		wg   sync.WaitGroup
	)
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		mu.Lock()
		peak = max(peak, m.HeapAlloc)
		mu.Unlock()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(SampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	peak = max(peak, after.HeapAlloc)
	return Result{PeakHeap: peak - before.HeapAlloc, Allocated: after.TotalAlloc - before.TotalAlloc}
}

// MeasureLive is Measure with the collector set to run when the heap has
// grown by 10 % (debug.SetGCPercent(10)) while f runs, so that the sampled
// peak stays close to what f keeps live rather than to the garbage a
// streaming f leaves between two collections at the default GOGC=100.
func MeasureLive(f func()) Result {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	return Measure(f)
}
