//go:build race

package release

// raceEnabled: the race detector slows the end-to-end statistical tests
// about fivefold; they then run fewer repeats with their own stated
// false-failure rates (TestClassifierBenchmarkAgreement).
const raceEnabled = true
