// Package memprobe measures the memory a function uses, for tests that
// bound it (issue 14 item 12: peak heap on hostile and huge inputs).
//
// Measure runs f once and reports two figures from runtime.ReadMemStats:
// the peak of HeapAlloc above its value before f (sampled every
// SampleEvery while f runs, and once at its end, so a short spike between
// two samples can be missed), and the growth of TotalAlloc, the bytes
// allocated while f ran. TotalAlloc is an exact upper bound of what f can
// have added to the peak heap, so a bound on it is the strict test where f
// does not allocate in proportion to its input by design; a streaming f
// allocates and frees per chunk, and then only the sampled peak says
// something. Other goroutines' allocations count too, which can only make
// the figures larger: a test that passes is conservative.
package memprobe
