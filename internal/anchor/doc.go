// Package anchor runs the numpy anchors of the Go benchmarks side by side
// with them (issue 19 item 4), for benchmarks only.
//
// Python returns an interpreter that can import numpy (python3 on PATH,
// then /usr/bin/python3, the Debian python3-numpy the Makefile's deps
// install), or "" when there is none; benchmarks then report their own
// figures without the ratio. Run executes an anchor script and reads the
// lines "name value" it prints to standard output; WriteFloats and
// ReadFloats exchange float64 arrays with it (little endian, numpy's "<f8").
// CPUTime is the process's
// user + system CPU time (all threads), which the benchmarks report next to
// wall time because the build machine is shared.
package anchor
