package learners

import (
	"context"
	"math"
	rand "math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/internal/anchor"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// kdeBenchData returns n seeded points in [0,1]^dim from a two-component
// Gaussian mixture clipped to the unit cube (the paper's Figure 1 set-up).
func kdeBenchData(n, dim int) Dataset {
	r := rand.New(rand.NewPCG(1, 2))
	d := Dataset{Dim: dim, X: make([]float64, n*dim)}
	for i := range n {
		mu, sd := 0.5, 0.14
		if r.Float64() < 0.6 {
			mu, sd = 0.75, 0.07
		}
		for j := range dim {
			d.X[i*dim+j] = clamp01(mu + sd*r.NormFloat64())
		}
	}
	return d
}

// latticeAxes returns dim copies of {0, 1/k, …, 1}.
func latticeAxes(dim, k int) [][]float64 {
	axes := make([][]float64, dim)
	for j := range axes {
		axes[j] = make([]float64, k+1)
		for i := range axes[j] {
			axes[j][i] = float64(i) / float64(k)
		}
	}
	return axes
}

// BenchmarkKDELattice measures EvalGrid on the (k+1)^ℓ lattice of the
// mechanism: n = 10⁶, ℓ = 2, k = 20. ns/point is the cost per data point.
// Where python3 with numpy is installed it then runs the numpy anchor
// (testdata/anchor_kde_lattice.py: the separable kernel matrices and a BLAS
// product per chunk) on the same data, checks its lattice against ours to
// 1e-12 of the peak, and reports numpy's wall time per op and numpy-ratio =
// numpy / ours (> 1: we are faster), both measured in this run.
func BenchmarkKDELattice(b *testing.B) {
	const n, dim, k, bw = 1_000_000, 2, 20, 0.05
	data := kdeBenchData(n, dim)
	f, err := NewKDE().Fit(context.Background(), data, Values{"bandwidth": []float64{bw, bw}})
	if err != nil {
		b.Fatal(err)
	}
	g := f.Oracle.(mechanism.GridOracle)
	axes := latticeAxes(dim, k)
	out := make([]float64, (k+1)*(k+1))
	cpu0, _ := processCPUTime()
	b.ResetTimer()
	for b.Loop() {
		if err := g.EvalGrid(context.Background(), axes, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportPerPoint(b, n, cpu0)
	py := anchor.Python()
	if py == "" {
		b.Log("no python3 with numpy (install python3-numpy): numpy anchor not run")
		return
	}
	dir := b.TempDir()
	dataPath, outPath := filepath.Join(dir, "data"), filepath.Join(dir, "out")
	if err := anchor.WriteFloats(dataPath, data.X); err != nil {
		b.Fatal(err)
	}
	fig, err := anchor.Run(py, filepath.Join("testdata", "anchor_kde_lattice.py"), dataPath, strconv.Itoa(dim), strconv.FormatFloat(bw, 'g', -1, 64), strconv.Itoa(k), "3", outPath)
	if err != nil {
		b.Fatal(err)
	}
	np, err := anchor.ReadFloats(outPath, len(out))
	if err != nil {
		b.Fatal(err)
	}
	for i, v := range out {
		if math.Abs(v-np[i]) > 1e-12*f.OutputRange[1] {
			b.Fatalf("lattice point %d: EvalGrid %.17g, numpy %.17g", i, v, np[i])
		}
	}
	ms, ok := fig["ms_per_op"]
	if !ok {
		b.Fatal("numpy anchor printed no ms_per_op")
	}
	b.ReportMetric(ms, "numpy-ms/op")
	b.ReportMetric(ms*1e6*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "numpy-ratio")
}

// processCPUTime is the process's CPU time (all threads), if available.
func processCPUTime() (time.Duration, bool) { return anchor.CPUTime() }

// reportPerPoint reports wall ns per data point and, where available, CPU
// time per op (all threads; on an idle 2-core machine wall ≈ CPU/2 for the
// parallel lattice evaluation).
func reportPerPoint(b *testing.B, n int, cpu0 time.Duration) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/point")
	if cpu1, ok := processCPUTime(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkKDEDirect measures the direct n·(k+1)^ℓ kernel loop (Eval at every
// lattice point) on a subsample of n = 10⁴ points, ℓ = 2, k = 20; ns/point is
// comparable with BenchmarkKDELattice's.
func BenchmarkKDEDirect(b *testing.B) {
	const n, dim, k = 10_000, 2, 20
	f, err := NewKDE().Fit(context.Background(), kdeBenchData(n, dim), nil)
	if err != nil {
		b.Fatal(err)
	}
	axes := latticeAxes(dim, k)
	y := make([]float64, dim)
	var sink float64
	cpu0, _ := processCPUTime()
	b.ResetTimer()
	for b.Loop() {
		for _, a := range axes[0] {
			for _, c := range axes[1] {
				y[0], y[1] = a, c
				sink += f.Oracle.Eval(y)
			}
		}
	}
	reportPerPoint(b, n, cpu0)
	_ = sink
}
