package study

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// sinProblem is F(y) = amp·sin(3y) on [0,1] with sensitivity s.
func sinProblem(amp, s float64) TargetProblem {
	f := func(y float64) float64 { return amp * sinF(y) }
	grid := Linspace01(201)
	truth := make([]float64, len(grid))
	for i, y := range grid {
		truth[i] = f(y)
	}
	return TargetProblem{
		Lattice: func(_ context.Context, k []int) ([]float64, error) {
			out := make([]float64, k[0]+1)
			for i := range out {
				out[i] = f(float64(i) / float64(k[0]))
			}
			return out, nil
		},
		Grid: [][]float64{grid}, Truth: truth, Sensitivity: s, Repeats: 100, Seed: 7,
	}
}

func TestFindEpsilon(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  float64
		delta   float64
		k       int
		reached bool
	}{
		{"pure ε, loose target", 0.2, 0, 0, true},
		{"pure ε, tight target", 0.02, 0, 0, true},
		{"with δ: Gaussian and Section 4.2 compete", 0.02, 1e-6, 0, true},
		{"manual k", 0.05, 0, 10, true},
		{"below the approximation error of k = 2", 1e-3, 0, 2, false},
		{"unreachable within ε ≤ 100", 1e-7, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := sinProblem(1, 1e-2)
			pr.Delta, pr.K = tc.delta, tc.k
			res, err := FindEpsilon(context.Background(), pr, tc.target, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reached != tc.reached {
				t.Fatalf("reached = %v, want %v (proposal %+v)", res.Reached, tc.reached, res.Proposal)
			}
			p := res.Proposal
			if tc.k > 0 && !slices.Equal(p.K, []int{tc.k}) {
				t.Errorf("k = %v, want the manual %d", p.K, tc.k)
			}
			if tc.delta == 0 && p.Noise != mechanism.NoiseLaplace {
				t.Errorf("noise %s without δ", p.Noise)
			}
			if !res.Reached {
				// The least error over the range, above the target.
				for _, c := range res.Curve {
					if c.Error < p.Error {
						t.Errorf("proposal error %g but ε = %g has %g", p.Error, c.Epsilon, c.Error)
					}
				}
				if !(p.Error > tc.target) {
					t.Errorf("not reached but error %g ≤ target %g", p.Error, tc.target)
				}
				return
			}
			// Reached: the re-check (independent draws) and the search
			// both meet the target, and every grid ε from the proposal on
			// does too (monotone-safe).
			if p.Error > tc.target || res.Search.Error > tc.target {
				t.Errorf("proposal error %g (search %g) above target %g", p.Error, res.Search.Error, tc.target)
			}
			if p.Epsilon != res.Search.Epsilon || p.H != res.Search.H || p.Noise != res.Search.Noise {
				t.Errorf("re-check %+v is not the searched setting %+v", p, res.Search)
			}
			for _, c := range res.Curve {
				if c.Epsilon >= p.Epsilon && c.Error > tc.target {
					t.Errorf("grid ε = %g ≥ proposal %g misses the target: %g", c.Epsilon, p.Epsilon, c.Error)
				}
			}
			// The grid ε below the proposal's bracket misses it, or its
			// re-check could (the upper end of its quantile's confidence
			// interval is above the target: the least error over more
			// settings with the same draws is optimistic).
			below := -1
			for i, c := range res.Curve {
				if c.Epsilon < p.Epsilon/math.Pow(10, 1.0/targetStepsPerDecade) {
					below = i
				}
			}
			if below >= 0 && res.Curve[below].High <= tc.target && p.Epsilon > DefaultTargetEpsMin {
				t.Errorf("grid ε = %g already meets the target (%g, up to %g), proposal %g is not the smallest", res.Curve[below].Epsilon, res.Curve[below].Error, res.Curve[below].High, p.Epsilon)
			}
			// The k: the automatic k at the proposal's ε, or one of its
			// neighbours; the curator's k when given.
			auto, err := newTargetSearch(pr, tc.target)
			if err != nil {
				t.Fatal(err)
			}
			ak := auto.params(p.Epsilon, p.Noise, p.H, 0).K[0]
			switch {
			case tc.k > 0 && (p.KAuto || p.K[0] != tc.k):
				t.Errorf("k = %v (automatic %v), want the curator's %d", p.K, p.KAuto, tc.k)
			case tc.k == 0 && p.KAuto && p.K[0] != ak:
				t.Errorf("k = %v marked automatic, the automatic k at ε = %g is %d", p.K, p.Epsilon, ak)
			}
			t.Logf("proposal ε = %g, h = %d, k = %v (automatic %v; the automatic k there is %d)", p.Epsilon, p.H, p.K, p.KAuto, ak)
			if p.Epsilon != roundUpSig(p.Epsilon, 3) {
				t.Errorf("ε = %g not rounded to 3 significant digits", p.Epsilon)
			}
			if !(p.Low <= p.Error && p.Error <= p.High) {
				t.Errorf("quantile %g outside its interval [%g, %g]", p.Error, p.Low, p.High)
			}
		})
	}
}

// A smaller target never needs a smaller ε (same draws), also between
// close targets: 16 targets from 0.3 to 0.03, each proposal's ε at least
// the previous (looser) one's, up to the three-digit rounding and the
// bisection's resolution (1.5%). A curator's walk found a looser target
// costing 1.7 times the ε of a stricter one when the re-check missed by
// Monte-Carlo noise and the proposal fell back to the grid ε above.
func TestFindEpsilonMonotoneInTarget(t *testing.T) {
	pr := sinProblem(1, 1e-2)
	prev := 0.0
	var targets []float64
	for i := range 16 {
		targets = append(targets, 0.3*math.Pow(0.1, float64(i)/15))
	}
	for _, target := range targets {
		res, err := FindEpsilon(context.Background(), pr, target, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Reached || res.Proposal.Epsilon < prev/1.015 {
			t.Fatalf("target %g: reached %v, ε = %g after %g for a looser target", target, res.Reached, res.Proposal.Epsilon, prev)
		}
		prev = res.Proposal.Epsilon
	}
}

func TestFindEpsilonDeterministic(t *testing.T) {
	pr := sinProblem(1, 1e-2)
	pr.Delta = 1e-5
	a, err := FindEpsilon(context.Background(), pr, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := FindEpsilon(context.Background(), pr, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Proposal.Epsilon != b.Proposal.Epsilon || a.Proposal.Error != b.Proposal.Error || a.Proposal.Noise != b.Proposal.Noise {
		t.Errorf("two runs differ: %+v and %+v", a.Proposal, b.Proposal)
	}
}

// A classifier: the error is the disagreement with the non-private
// classifier at the points.
func TestFindEpsilonClassifier(t *testing.T) {
	pr := sinProblem(1, 1e-2)
	f := func(y float64) float64 { return math.Sin(3*y) - 0.5 }
	pr.Threshold = 0.5 // class +1 where sin(3y) ≥ ½: the boundary at y ≈ 0.175 and 0.873
	x := Linspace01(300)
	truth := make([]float64, len(x))
	for i, y := range x {
		truth[i] = f(y) + 0.5
	}
	pr.Points = &PointData{X: x, Truth: truth}
	res, err := FindEpsilon(context.Background(), pr, 0.05, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reached || !res.Classifier || res.Proposal.Error > 0.05 || res.Proposal.Error < 0 {
		t.Fatalf("classifier: %+v", res)
	}
	if _, err := FindEpsilon(context.Background(), pr, 1, nil); err == nil || !strings.Contains(err.Error(), "below 1") {
		t.Errorf("disagreement target 1: err %v", err)
	}
}

func TestFindEpsilonRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*TargetProblem)
		target float64
		want   string
	}{
		{"zero target", func(*TargetProblem) {}, 0, "target error 0"},
		{"NaN target", func(*TargetProblem) {}, math.NaN(), "must be > 0 and finite"},
		{"δ = 1", func(p *TargetProblem) { p.Delta = 1 }, 0.1, "δ = 1"},
		{"empty range", func(p *TargetProblem) { p.EpsMin, p.EpsMax = 2, 1 }, 0.1, "lower end must be below"},
		{"ε below the library's limit", func(p *TargetProblem) { p.EpsMin = 1e-20 }, 0.1, "2^-50"},
		{"too few repeats", func(p *TargetProblem) { p.Repeats = 5 }, 0.1, "5 repeats"},
		{"order 11", func(p *TargetProblem) { p.Orders = []int{11} }, 0.1, "h = 11"},
		{"negative k", func(p *TargetProblem) { p.K = -1 }, 0.1, "k = -1"},
		{"no sensitivity", func(p *TargetProblem) { p.Sensitivity = 0 }, 0.1, "sensitivity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := sinProblem(1, 1e-2)
			tc.change(&pr)
			_, err := FindEpsilon(context.Background(), pr, tc.target, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestFindEpsilonCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FindEpsilon(ctx, sinProblem(1, 1e-2), 0.1, nil); err != context.Canceled {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

func TestQuantileCI(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[n-1-i] = float64(i + 1) // reversed: quantileCI sorts
		}
		return xs
	}
	for _, tc := range []struct {
		n           int
		q           float64
		est, lo, hi float64
	}{
		// n = 400: rank 380, half-width 1.96·√19 = 8.54 → ranks 371 and 389.
		{400, 0.95, 380, 371, 389},
		// n = 100: rank 95, half-width 4.27 → ranks 90 and 100 (clamped).
		{100, 0.95, 95, 90, 100},
		{20, 0.5, 10, 5, 15},
	} {
		est, lo, hi := quantileCI(seq(tc.n), tc.q)
		if est != tc.est || lo != tc.lo || hi != tc.hi {
			t.Errorf("n = %d, q = %g: %g [%g, %g], want %g [%g, %g]", tc.n, tc.q, est, lo, hi, tc.est, tc.lo, tc.hi)
		}
	}
}

func TestTargetEpsGridAndRounding(t *testing.T) {
	g := targetEpsGrid(1e-3, 100)
	if len(g) != 16 || g[0] != 1e-3 || g[15] != 100 || !slices.IsSorted(g) {
		t.Errorf("grid %v: want 16 increasing values from 0.001 to 100", g)
	}
	g = targetEpsGrid(0.5, 2)
	if !slices.Equal(g, []float64{0.5, 1, 2}) {
		t.Errorf("grid %v: want 0.5, 1, 2 (the ends and 10^(j/3) between)", g)
	}
	for _, tc := range []struct{ x, want float64 }{
		{0.12345, 0.124}, {0.123, 0.123}, {99.91, 99.95 + 0.05}, {1, 1}, {0.0010001, 0.00101},
	} {
		if got := roundUpSig(tc.x, 3); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("roundUpSig(%g) = %g, want %g", tc.x, got, tc.want)
		}
	}
}

// The search scores the releases Model.Run simulates with the same seed
// (PerRepeat draws): the mean error agrees to rounding.
func TestTargetSimulateMatchesRun(t *testing.T) {
	pr := sinProblem(1, 1e-2)
	s, err := newTargetSearch(pr, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, noise := range []mechanism.NoiseKind{mechanism.NoiseLaplace, mechanism.NoiseGaussian} {
		s.pr.Delta = 1e-6
		p, err := s.setting(context.Background(), 0.5, noise, 2, 0, 7)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.model(context.Background(), p.K[0])
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.md.Run(context.Background(), Spec{Sensitivity: 1e-2, Noise: noise, Delta: p.Delta, Epsilons: []float64{0.5},
			Orders: []int{2}, Repeats: 100, Draws: PerRepeat{Seed: 7}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Mean[0][0]-p.Mean) > 1e-12*p.Mean {
			t.Errorf("%s: mean %g, Model.Run %g", noise, p.Mean, res.Mean[0][0])
		}
	}
}

func sinF(y float64) float64 { return math.Sin(3 * y) }

// TestFindEpsilonSearchesK: the proposal's k is the k minimising the
// simulated error (TestFindEpsilonMinimisesK brute-forces it), not only
// the automatic k and its neighbours KNeighbours the grid tries. For
// sin(3y) at sensitivity 0.01 and a target of 0.04 it reaches the target
// at an ε where no automatic-k setting does (their least error there is
// above the target): the proposal's k is not the automatic one, and the
// release flags (KAuto false) name it. Deterministic (seeded).
func TestFindEpsilonSearchesK(t *testing.T) {
	pr := sinProblem(1, 1e-2)
	pr.Seed, pr.Repeats = 1, 400
	const target = 0.04
	res, err := FindEpsilon(context.Background(), pr, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Proposal
	if !res.Reached || p.KAuto || p.Mechanism != "" {
		t.Fatalf("proposal %+v: want a Bernstein setting at a k other than the automatic one", p)
	}
	s, err := newTargetSearch(pr, target)
	if err != nil {
		t.Fatal(err)
	}
	ak := s.params(p.Epsilon, p.Noise, p.H, 0).K[0]
	if p.K[0] == ak {
		t.Errorf("k = %v is the automatic k %d at ε = %g but not marked so", p.K, ak, p.Epsilon)
	}
	best := math.Inf(1)
	for _, h := range s.orders {
		q, err := s.setting(context.Background(), p.Epsilon, mechanism.NoiseLaplace, h, 0, pr.Seed)
		if err != nil {
			t.Fatal(err)
		}
		best = math.Min(best, q.Error)
	}
	t.Logf("ε = %g: k = %v reaches %g (re-checked); the automatic k %d at best %g", p.Epsilon, p.K, p.Error, ak, best)
	if !(best > target) {
		t.Errorf("the automatic k already reaches %g ≤ %g at ε = %g: the case does not show the k search", best, target, p.Epsilon)
	}
	if p.Error > target {
		t.Errorf("re-checked error %g above the target %g", p.Error, target)
	}
}
