package study

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// smooth2D is a smooth test function on [0,1]².
func smooth2D(y []float64) float64 {
	return math.Exp(-((y[0]-0.4)*(y[0]-0.4)+(y[1]-0.6)*(y[1]-0.6))/0.05) + 0.3*y[0]
}

// funcOracle adapts a function to mechanism.Oracle.
type funcOracle struct {
	dim int
	f   func([]float64) float64
}

func (o funcOracle) Dim() int                 { return o.dim }
func (o funcOracle) Eval(y []float64) float64 { return o.f(y) }

// testModel builds a tradeoff model of f for lattice k and the preview grid.
func testModel(t testing.TB, f func([]float64) float64, k []int, orders []int, grid [][]float64) (*Model, []float64) {
	t.Helper()
	lat, err := mechanism.NewLattice(k)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := mechanism.EvaluateLattice(context.Background(), funcOracle{len(k), f}, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := evalOnGridNaive(f, grid)
	md, err := NewModel(k, exact, grid, truth, orders)
	if err != nil {
		t.Fatal(err)
	}
	return md, exact
}

// evalOnGridNaive evaluates f at every point of the tensor grid, lattice order.
func evalOnGridNaive(f func([]float64) float64, grid [][]float64) []float64 {
	n := 1
	for _, a := range grid {
		n *= len(a)
	}
	out := make([]float64, n)
	y := make([]float64, len(grid))
	for g := range out {
		r := g
		for j := len(grid) - 1; j >= 0; j-- {
			y[j] = grid[j][r%len(grid[j])]
			r /= len(grid[j])
		}
		out[g] = f(y)
	}
	return out
}

// TestModelMatchesSimulate is the engine's test against the mechanism:
// with the same seed, mechanism.Simulate draws exactly λ times the engine's
// unit noise, so the sup-norm errors must agree to rounding (relative
// 1e-9) — for every order, every noise kind and the nearest-lattice
// baseline (Polynomial.EvalNearest). TestModelPlans covers the other
// draw plans and the sign-agreement measure.
func TestModelMatchesSimulate(t *testing.T) {
	grid := [][]float64{Linspace01(23), Linspace01(17)}
	k := []int{6, 5}
	orders := []int{1, 2, 3}
	md, exact := testModel(t, smooth2D, k, orders, grid)
	truth := evalOnGridNaive(smooth2D, grid)
	const S = 0.01
	for _, tc := range []struct {
		noise mechanism.NoiseKind
		delta float64
	}{{mechanism.NoiseLaplace, 0}, {mechanism.NoiseGaussian, 1e-6}, {mechanism.NoiseLaplaceApprox, 1e-6}} {
		t.Run(string(tc.noise), func(t *testing.T) {
			eps := []float64{0.5, 2, 40}
			sp := Spec{Sensitivity: S, Noise: tc.noise, Delta: tc.delta, Epsilons: eps, Orders: orders, Baseline: true, Repeats: 1, Draws: PerRepeat{Seed: 99}}
			res, err := md.Run(context.Background(), sp, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range eps {
				if math.IsNaN(res.Scales[i]) {
					// laplace-approx refuses some (ε, δ, m); that must be
					// reported, not silently plotted.
					if res.Errors[i] == nil {
						t.Fatalf("ε = %g: NaN scale without an error", e)
					}
					continue
				}
				for o, h := range orders {
					p := mechanism.Params{Epsilon: e, Delta: tc.delta, Noise: tc.noise, K: k, H: h}
					sim, err := mechanism.Simulate(exact, S, p, mechanism.NewSimulationNoise(RepeatSeed(99, 0)))
					if err != nil {
						t.Fatal(err)
					}
					vals, err := sim.EvalGrid(grid)
					if err != nil {
						t.Fatal(err)
					}
					want := 0.0
					for g := range vals {
						want = math.Max(want, math.Abs(truth[g]-vals[g]))
					}
					if got := res.Mean[o][i]; math.Abs(got-want) > 1e-9*want {
						t.Errorf("h = %d, ε = %g: sup error %v, want %v (mechanism.Simulate)", h, e, got, want)
					}
					if h == 1 {
						// Baseline: the noisy value at the nearest lattice point.
						want := 0.0
						y := make([]float64, 2)
						for a, ya := range grid[0] {
							for b, yb := range grid[1] {
								y[0], y[1] = ya, yb
								v, err := sim.EvalNearest(y)
								if err != nil {
									t.Fatal(err)
								}
								want = math.Max(want, math.Abs(truth[a*len(grid[1])+b]-v))
							}
						}
						if got := res.Baseline[i]; math.Abs(got-want) > 1e-9*want {
							t.Errorf("baseline, ε = %g: sup error %v, want %v", e, got, want)
						}
					}
				}
			}
		})
	}
}

// TestModelPlans checks the Stream plan (Figure 2: one stream, fresh
// draws per ε, consumed in ε then repeat order) with the sign-agreement
// measure and KeepFirst, and the Interleaved plan (Figure 1: fresh draws
// per ε, batches drawn draw-index major), against polynomials built by
// mechanism from the same draws. Tolerances: grid values to 1e-9 relative;
// an agreement may differ by one grid point per repeat (a release within
// rounding of 0 at a grid point), i.e. 1/len(grid).
func TestModelPlans(t *testing.T) {
	shifted := func(y []float64) float64 { return smooth2D(y) - 0.5 }
	grid := [][]float64{Linspace01(15), Linspace01(12)}
	k := []int{5, 4}
	md, exact := testModel(t, shifted, k, []int{2}, grid)
	truth := evalOnGridNaive(shifted, grid)
	const S = 0.002
	eps := []float64{0.5, 4}
	res, err := md.Run(context.Background(), Spec{Sensitivity: S, Noise: mechanism.NoiseLaplace, Epsilons: eps, Orders: []int{2},
		Repeats: 3, Draws: Stream{Src: mechanism.NewSimulationNoise(5)}, Measure: SignAgreement, KeepFirst: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := mechanism.NewSimulationNoise(5)
	for i, e := range eps {
		sum := 0.0
		for r := range 3 {
			sim, err := mechanism.Simulate(exact, S, mechanism.Params{Epsilon: e, Noise: mechanism.NoiseLaplace, K: k, H: 2}, src)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := sim.EvalGrid(grid)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for g, v := range vals {
				if (v >= 0) == (truth[g] >= 0) {
					n++
				}
				if r == 0 && math.Abs(res.First[0][i][g]-v) > 1e-9*(1+math.Abs(v)) {
					t.Fatalf("ε = %g: first release at %d is %v, want %v", e, g, res.First[0][i][g], v)
				}
			}
			sum += float64(n) / float64(len(vals))
		}
		if got, want := res.Mean[0][i], sum/3; math.Abs(got-want) > 1/float64(len(truth)) {
			t.Errorf("stream, ε = %g: agreement %v, want %v", e, got, want)
		}
	}

	// Interleaved: 1-D, 5 lattice draws per repeat, batches of 2 repeats.
	g1 := [][]float64{Linspace01(30)}
	f1 := func(y []float64) float64 { return math.Sin(3 * y[0]) }
	md1, exact1 := testModel(t, f1, []int{4}, []int{1}, g1)
	truth1 := evalOnGridNaive(f1, g1)
	res1, err := md1.Run(context.Background(), Spec{Sensitivity: S, Noise: mechanism.NoiseLaplace, Epsilons: eps, Orders: []int{1},
		Repeats: 3, Draws: Interleaved{Seed: 11, Units: 5, Batch: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	src = mechanism.NewSimulationNoise(11)
	for i, e := range eps {
		lambda, err := mechanism.NoiseScale(S, mechanism.Params{Epsilon: e, Noise: mechanism.NoiseLaplace, K: []int{4}, H: 1})
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, b := range []int{2, 1} { // the batches of 3 repeats
			z := make([][]float64, b)
			for r := range z {
				z[r] = make([]float64, 5)
			}
			for u := range 5 {
				for r := range b {
					z[r][u] = src.Laplace(1)
				}
			}
			for r := range b {
				c := make([]float64, 5)
				for u := range c {
					c[u] = exact1[u] + lambda*z[r][u]
				}
				p, err := mechanism.NewPolynomial([]int{4}, 1, c)
				if err != nil {
					t.Fatal(err)
				}
				vals, err := p.EvalGrid(g1)
				if err != nil {
					t.Fatal(err)
				}
				sup := 0.0
				for g, v := range vals {
					sup = math.Max(sup, math.Abs(truth1[g]-v))
				}
				sum += sup
			}
		}
		if got, want := res1.Mean[0][i], sum/3; math.Abs(got-want) > 1e-9*want {
			t.Errorf("interleaved, ε = %g: mean sup error %v, want %v", e, got, want)
		}
	}
}

// TestTradeoffApproxIsZeroNoiseLimit checks the exact part: as ε → ∞ the
// mean error tends to the noiseless approximation error, which for a
// linear function and h = 1 is zero (linear functions are fixed points of
// B_k, Appendix A of the paper).
func TestTradeoffApproxIsZeroNoiseLimit(t *testing.T) {
	linear := func(y []float64) float64 { return 0.2 + 0.5*y[0] - 0.3*y[1] }
	grid := [][]float64{Linspace01(11), Linspace01(9)}
	md, _ := testModel(t, linear, []int{4, 4}, []int{1, 2}, grid)
	for o, a := range []float64{md.approx[1], md.approx[2]} {
		if a > 1e-12 {
			t.Errorf("order %d: approximation error of a linear function %g, want 0", o+1, a)
		}
	}
	md2, _ := testModel(t, smooth2D, []int{8, 8}, []int{1}, grid)
	res, err := md2.Run(context.Background(), Spec{Sensitivity: 1e-3, Noise: mechanism.NoiseLaplace, Epsilons: []float64{1e9}, Orders: []int{1}, Repeats: 5, Draws: PerRepeat{Seed: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Mean[0][0], md2.approx[1]; math.Abs(got-want) > 1e-6 {
		t.Errorf("ε = 1e9: mean error %v, want the noiseless error %v", got, want)
	}
}

// TestTradeoffMonotoneInEpsilon: with common random numbers the error of
// every repeat is |E − λZ|, so for large enough noise the mean error falls
// as ε grows. At these scales noise dominates the approximation error by a
// factor > 100, so a non-decreasing mean would be a bug, not chance.
func TestTradeoffMonotoneInEpsilon(t *testing.T) {
	grid := [][]float64{Linspace01(20), Linspace01(20)}
	md, _ := testModel(t, smooth2D, []int{10, 10}, []int{1, 2, 3}, grid)
	eps := []float64{0.001, 0.01, 0.1}
	res, err := md.Run(context.Background(), Spec{Sensitivity: 0.01, Noise: mechanism.NoiseLaplace, Epsilons: eps, Orders: []int{1, 2, 3}, Baseline: true, Repeats: 20, Draws: PerRepeat{Seed: 3}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for o := range res.Mean {
		for i := 1; i < len(eps); i++ {
			if !(res.Mean[o][i] < res.Mean[o][i-1]) {
				t.Errorf("order %d: error at ε = %g (%g) not below ε = %g (%g)", res.Orders[o], eps[i], res.Mean[o][i], eps[i-1], res.Mean[o][i-1])
			}
		}
	}
}

func TestTradeoffDeterministicAndCancellable(t *testing.T) {
	grid := [][]float64{Linspace01(30), Linspace01(30)}
	md, _ := testModel(t, smooth2D, []int{10, 10}, []int{1, 2}, grid)
	sp := Spec{Sensitivity: 0.01, Noise: mechanism.NoiseLaplace, Epsilons: []float64{0.1, 1}, Orders: []int{1, 2}, Baseline: true, Repeats: 50, Draws: PerRepeat{Seed: 7}}
	var mu sync.Mutex
	var last int
	a, err := md.Run(context.Background(), sp, func(done, total int) { // called from worker goroutines
		mu.Lock()
		defer mu.Unlock()
		if total != 50 {
			t.Errorf("progress total %d, want 50", total)
		}
		last = max(last, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != 50 {
		t.Errorf("progress reached %d, want 50", last)
	}
	b, err := md.Run(context.Background(), sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	for o := range a.Mean {
		for i := range a.Mean[o] {
			if a.Mean[o][i] != b.Mean[o][i] {
				t.Fatalf("run is not deterministic: %v vs %v", a.Mean[o][i], b.Mean[o][i])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := md.Run(ctx, sp, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: error %v, want context.Canceled", err)
	}
}

func TestTradeoffErrors(t *testing.T) {
	grid := [][]float64{Linspace01(5)}
	if _, err := NewModel([]int{3}, []float64{1, 2}, grid, make([]float64, 5), []int{1}); err == nil {
		t.Error("wrong lattice size accepted")
	}
	if _, err := NewModel([]int{3}, make([]float64, 4), grid, make([]float64, 4), []int{1}); err == nil {
		t.Error("wrong grid size accepted")
	}
	bad := make([]float64, 5)
	bad[2] = math.NaN()
	if _, err := NewModel([]int{3}, make([]float64, 4), grid, bad, []int{1}); err == nil {
		t.Error("NaN truth accepted")
	}
	if _, err := NewModel([]int{3}, make([]float64, 4), grid, make([]float64, 5), []int{11}); err == nil {
		t.Error("h = 11 accepted")
	}
	md, err := NewModel([]int{3}, make([]float64, 4), grid, make([]float64, 5), []int{1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range []Spec{
		{Sensitivity: 1, Noise: mechanism.NoiseLaplace, Epsilons: []float64{1}, Orders: []int{1}, Repeats: 0},
		{Sensitivity: 1, Noise: mechanism.NoiseLaplace, Epsilons: nil, Orders: []int{1}, Repeats: 1},
		{Sensitivity: 1, Noise: mechanism.NoiseLaplace, Epsilons: []float64{1}, Orders: []int{2}, Repeats: 1},
	} {
		if _, err := md.Run(context.Background(), sp, nil); err == nil {
			t.Errorf("spec %+v accepted", sp)
		}
	}
	// An invalid ε (here: negative) is reported per point, not fatal.
	res, err := md.Run(context.Background(), Spec{Sensitivity: 1, Noise: mechanism.NoiseLaplace, Epsilons: []float64{-1, 1}, Orders: []int{1}, Repeats: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(res.Mean[0][0]) || res.Errors[0] == nil || math.IsNaN(res.Mean[0][1]) {
		t.Errorf("invalid ε: mean %v, errors %v", res.Mean[0], res.Errors)
	}
}

// BenchmarkTradeoff is the speed target: with F_D cached,
// recomputing the tradeoff plot for 7 ε values × (5 orders + baseline) ×
// 200 simulated releases at ℓ = 2, k = 20 on a 100×100 grid must take ≤ 1 s.
func BenchmarkTradeoff(b *testing.B) {
	grid := [][]float64{Linspace01(100), Linspace01(100)}
	md, _ := testModel(b, smooth2D, []int{20, 20}, []int{1, 2, 3, 4, 5}, grid)
	sp := Spec{Sensitivity: 1e-4, Noise: mechanism.NoiseLaplace, Epsilons: []float64{0.0316, 0.1, 0.316, 1, 3.16, 10, 31.6}, Orders: []int{1, 2, 3, 4, 5}, Baseline: true, Repeats: 200, Draws: PerRepeat{Seed: 1}}
	for b.Loop() {
		if _, err := md.Run(context.Background(), sp, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTradeoffModel measures the per-(F_D, k) set-up: basis matrices
// and exact parts for 5 orders (F_D on the grid given).
func BenchmarkTradeoffModel(b *testing.B) {
	grid := [][]float64{Linspace01(100), Linspace01(100)}
	lat, _ := mechanism.NewLattice([]int{20, 20})
	exact, _ := mechanism.EvaluateLattice(context.Background(), funcOracle{2, smooth2D}, lat, nil)
	truth := evalOnGridNaive(smooth2D, grid)
	for b.Loop() {
		if _, err := NewModel([]int{20, 20}, exact, grid, truth, []int{1, 2, 3, 4, 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTradeoffMarker measures what moving the ε slider costs when the
// curves are cached: one order, one ε, 200 repeats.
func BenchmarkTradeoffMarker(b *testing.B) {
	grid := [][]float64{Linspace01(100), Linspace01(100)}
	md, _ := testModel(b, smooth2D, []int{20, 20}, []int{3}, grid)
	sp := Spec{Sensitivity: 1e-4, Noise: mechanism.NoiseLaplace, Epsilons: []float64{0.7}, Orders: []int{3}, Repeats: 200, Draws: PerRepeat{Seed: 1}}
	for b.Loop() {
		if _, err := md.Run(context.Background(), sp, nil); err != nil {
			b.Fatal(err)
		}
	}
}
