package release

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// scale enables TestReleaseScale (issue 8, point 5): go test ./project/
// -run TestReleaseScale -scale (about a minute; not in the default run).
var scale = testFlag("scale", "run the 10^7-row end-to-end release test")

// scaleRows is the size of the generated dataset.
const scaleRows = 10_000_000

// scalePeakCap is the peak resident memory allowed for the whole release.
const scalePeakCap = 2 << 30

// TestReleaseScale writes a 10^7-row, 2-column CSV (generated here, never
// committed), releases it with KDE (k = 20, h = 3, ε = 1) through the real
// pipeline (ReadCSV → Prepare → Release, secure noise, ledger, signed
// synopsis) and fails if the process's peak resident memory (VmHWM, Linux)
// exceeds 2 GiB. It logs the time of each step and the peak; the numbers are
// recorded in docs/performance.md.
func TestReleaseScale(t *testing.T) {
	if !scale() {
		t.Skip("pass -scale to run the 10^7-row release")
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "big.csv")
	start := time.Now()
	writeScaleCSV(t, csvPath, scaleRows)
	tGen := time.Since(start)

	start = time.Now()
	ds, err := dataset.ReadCSV(csvPath, dataset.CSVOptions{Columns: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	tRead := time.Since(start)
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
	tPrep := time.Since(start)
	e := newReleaseEnv(t)
	start = time.Now()
	if _, err := p.Release(context.Background(), e.opt); err != nil {
		t.Fatal(err)
	}
	tRel := time.Since(start)

	peak, err := peakRSS()
	if err != nil {
		t.Fatalf("peak memory unavailable: %v", err)
	}
	t.Logf("10^7 rows: generate %v, ReadCSV %v, Prepare (map, fit, lattice) %v, Release (ledger, noise, sign, write) %v; peak RSS %.0f MB",
		tGen.Round(time.Millisecond), tRead.Round(time.Millisecond), tPrep.Round(time.Millisecond), tRel.Round(time.Millisecond), float64(peak)/1e6)
	if peak > scalePeakCap {
		t.Errorf("peak resident memory %d bytes exceeds the cap of %d", peak, scalePeakCap)
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
