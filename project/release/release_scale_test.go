//go:build linux

package release

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// scale enables TestReleaseScale (issue 8, point 5; issue 20): go test
// -tags migrated_fynedo -run TestReleaseScale -v ./project/release/ -args
// -scale (about 15 s on an idle machine; not in the default run).
var scale = testFlag("scale", "run the 10^7-row end-to-end release test")

// scaleRows is the size of the generated dataset.
const scaleRows = 10_000_000

// scalePeakCap is the peak resident memory allowed for the whole release:
// issue 20's 300 MB. Measured 257 MB (docs/performance.md, "The whole 10⁷-row
// release: 13 s and 300 MB"): the KDE reads the table's columns in place
// (dataset.MappedRows as a learners.RecordSource), so a release from the
// records holds one n-length copy of its features (the table as read, two
// columns: 160 MB), not two, plus the ledger identity's order of the rows
// (40 MB) at Release.
const scalePeakCap = 300_000_000

// TestReleaseScale writes a 10^7-row, 2-column CSV (generated here, never
// committed), releases it with KDE (k = 20, h = 3, ε = 1) through the real
// pipeline (ReadCSV → Prepare → Release, secure noise, ledger, signed
// synopsis) and fails if the process's peak resident memory (VmHWM, Linux)
// exceeds scalePeakCap. It logs the time and the peak of each step; the
// numbers are recorded in docs/performance.md.
func TestReleaseScale(t *testing.T) {
	if !scale() {
		t.Skip("pass -scale to run the 10^7-row release")
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "big.csv")
	var steps []string
	var peak int64
	cpu0 := cpuTime(t)
	step := func(name string, start time.Time) {
		t.Helper()
		p, err := peakRSS()
		if err != nil {
			t.Fatalf("peak memory unavailable: %v", err)
		}
		peak = max(peak, p)
		cpu := cpuTime(t)
		steps = append(steps, fmt.Sprintf("%s %v (CPU %v, peak %.0f MB)", name, time.Since(start).Round(time.Millisecond),
			(cpu-cpu0).Round(time.Millisecond), float64(p)/1e6))
		cpu0 = cpu
		resetPeakRSS(t)
	}
	start := time.Now()
	writeScaleCSV(t, csvPath, scaleRows)
	runtime.GC()
	debug.FreeOSMemory() // the generator's garbage is not the release's
	step("generate", start)

	start = time.Now()
	ds, err := dataset.ReadCSV(csvPath, dataset.CSVOptions{Columns: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	step("ReadCSV", start)
	if ds.Rows != scaleRows {
		t.Fatalf("read %d rows, want %d", ds.Rows, scaleRows)
	}

	req := Request{
		Dataset: ds, Features: []string{"a", "b"},
		Bounds:  map[string]dataset.Bounds{"a": {Lo: -4, Hi: 4}, "b": {Lo: -4, Hi: 4}},
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.05}},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{20, 20}, H: 3},
	}
	start = time.Now()
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	step("Prepare (map, fit, lattice)", start)
	e := newReleaseEnv(t)
	start = time.Now()
	if _, err := p.Release(context.Background(), e.opt); err != nil {
		t.Fatal(err)
	}
	step("Release (identity, ledger, noise, sign, write)", start)
	t.Logf("10^7 rows: %s; peak RSS %.0f MB (cap %.0f MB)", strings.Join(steps, ", "), float64(peak)/1e6, float64(scalePeakCap)/1e6)
	if peak > scalePeakCap {
		t.Errorf("peak resident memory %d bytes exceeds the cap of %d", peak, scalePeakCap)
	}
}

// cpuTime returns the CPU time (user and system) the process has used: the
// steps' wall times depend on the load of the shared machine, their CPU
// times much less.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("CPU time unavailable: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the process's peak resident set size (VmHWM) to the
// current one (Linux: "5" written to /proc/self/clear_refs).
func resetPeakRSS(t *testing.T) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("resetting the peak memory: %v", err)
	}
}

// writeScaleCSV writes rows of two standard-normal columns (seeded: test
// data only).
func writeScaleCSV(t *testing.T, path string, rows int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2)) // seeded: test data only
	w.WriteString("a,b\n")
	var buf []byte
	for range rows {
		buf = strconv.AppendFloat(buf[:0], rng.NormFloat64(), 'f', 4, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, rng.NormFloat64(), 'f', 4, 64)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// peakRSS returns the process's peak resident set size (VmHWM) in bytes.
func peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM line in /proc/self/status")
}
