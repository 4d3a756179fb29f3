package learners

import (
	"context"
	rand "math/rand/v2"
	"testing"
	"time"

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
func BenchmarkKDELattice(b *testing.B) {
	const n, dim, k = 1_000_000, 2, 20
	f, err := NewKDE().Fit(context.Background(), kdeBenchData(n, dim), nil)
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
	reportPerPoint(b, n, cpu0)
}

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
