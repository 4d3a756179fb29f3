package learners

import (
	"fmt"
	"math"
	rand "math/rand/v2"
	"testing"
)

// scoreCase is one validation score under test, with a generator of
// predictions (wider than the clip range, so clipping is exercised) and
// labels of its kind.
type scoreCase struct {
	kind OutputKind
	rng  [2]float64
}

var scoreCases = []scoreCase{
	{OutputDensity, [2]float64{0, 8}},
	{OutputDensity, [2]float64{0, 0.5}},
	{OutputRegression, [2]float64{-3, 3}},
	{OutputClassScore, [2]float64{-1.5, 1.5}},
	{OutputClassScore, [2]float64{-0.2, 0.2}},
	{OutputProbability, [2]float64{0, 1}},
}

func (c scoreCase) label(r *rand.Rand) float64 {
	switch c.kind {
	case OutputRegression:
		return 2*r.Float64() - 1
	case OutputClassScore, OutputProbability:
		return float64(2*r.IntN(2) - 1)
	}
	return 0
}

// extremes are the worst-case values a replaced record or a moved
// prediction can take: both clip ends, beyond them, and the middle.
func (c scoreCase) extremes(s ValidationScore) []float64 {
	w := s.Hi - s.Lo
	return []float64{s.Lo - w, s.Lo, (s.Lo + s.Hi) / 2, s.Hi, s.Hi + w, 0, 1, -1}
}

func (c scoreCase) labelExtremes() []float64 {
	switch c.kind {
	case OutputRegression:
		return []float64{-1, 0, 1}
	case OutputClassScore, OutputProbability:
		return []float64{-1, 1}
	}
	return []float64{0}
}

func randomData(c scoreCase, s ValidationScore, r *rand.Rand, m, g int) (pred, labels, grid []float64) {
	w := s.Hi - s.Lo
	pred = make([]float64, m)
	for i := range pred {
		pred[i] = s.Lo - w/2 + 2*w*r.Float64()
	}
	if s.NeedsLabels() {
		labels = make([]float64, m)
		for i := range labels {
			labels[i] = c.label(r)
		}
	}
	if s.NeedsGrid() {
		grid = make([]float64, g)
		for i := range grid {
			grid[i] = s.Lo - w/2 + 2*w*r.Float64()
		}
	}
	return
}

func mustScore(t *testing.T, s ValidationScore, pred, labels, grid []float64) float64 {
	t.Helper()
	q, err := s.Score(pred, labels, grid)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestValidationScoreBetaV searches neighbouring validation sets — one
// record replaced, at random and adversarially (every pair of extreme
// prediction/label values for the old and the new record) — and fails if
// |q(V) − q(V′)| ever exceeds BetaV(m). It also reports how close the worst
// case comes (the bounds are attained by the adversarial search).
func TestValidationScoreBetaV(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 4))
	for _, c := range scoreCases {
		s, err := NewValidationScore(c.kind, c.rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int{1, 2, 7, 50} {
			beta := s.BetaV(m)
			worst := 0.0
			for trial := 0; trial < 40; trial++ {
				pred, labels, grid := randomData(c, s, r, m, 16)
				q := mustScore(t, s, pred, labels, grid)
				j := r.IntN(m)
				check := func(p, l float64) {
					p2 := append([]float64(nil), pred...)
					p2[j] = p
					var l2 []float64
					if labels != nil {
						l2 = append([]float64(nil), labels...)
						l2[j] = l
					}
					q2 := mustScore(t, s, p2, l2, grid)
					d := math.Abs(q - q2)
					worst = max(worst, d)
					if d > beta*(1+1e-12)+1e-15 {
						t.Errorf("%s %v m = %d: replacing record %d by (%g, %g) moved q by %g > β_V = %g", c.kind, c.rng, m, j, p, l, d, beta)
					}
				}
				// Adversarial: move the record to every extreme.
				for _, p := range c.extremes(s) {
					for _, l := range c.labelExtremes() {
						// First put the old record at an extreme too.
						for _, p0 := range []float64{s.Lo, s.Hi} {
							for _, l0 := range c.labelExtremes() {
								pred[j] = p0
								if labels != nil {
									labels[j] = l0
								}
								q = mustScore(t, s, pred, labels, grid)
								check(p, l)
							}
						}
					}
				}
				// Random replacement.
				q = mustScore(t, s, pred, labels, grid)
				check(s.Lo-1+(s.Hi-s.Lo+2)*r.Float64(), c.label(r))
			}
			if worst < 0.999*beta {
				t.Errorf("%s %v m = %d: worst change %g never approached β_V = %g: the bound or the search is off", c.kind, c.rng, m, worst, beta)
			}
		}
	}
}

// TestValidationScoreBetaT moves every prediction and grid value by at most
// d — at random, all up, all down, alternating, and to the clip ends — and
// fails if |q(f) − q(f′)| exceeds BetaT(d).
func TestValidationScoreBetaT(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 15))
	for _, c := range scoreCases {
		s, err := NewValidationScore(c.kind, c.rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []float64{0, 1e-3, 0.05, 0.7, 5, 100} {
			beta := s.BetaT(d)
			for trial := 0; trial < 60; trial++ {
				pred, labels, grid := randomData(c, s, r, 1+r.IntN(30), 1+r.IntN(30))
				if trial%3 == 0 {
					// Put everything at the clip's top, with labels at the
					// far end: the largest |c + c′ − 2l|.
					for i := range pred {
						pred[i] = s.Hi
						if labels != nil {
							labels[i] = c.labelExtremes()[0]
						}
					}
					for i := range grid {
						grid[i] = s.Hi
					}
				}
				q := mustScore(t, s, pred, labels, grid)
				moves := []func(int) float64{
					func(int) float64 { return d * (2*r.Float64() - 1) },
					func(int) float64 { return d },
					func(int) float64 { return -d },
					func(i int) float64 { return d * float64(1-2*(i%2)) },
				}
				for mi, mv := range moves {
					p2 := make([]float64, len(pred))
					for i := range p2 {
						p2[i] = pred[i] + mv(i)
					}
					var g2 []float64
					if grid != nil {
						g2 = make([]float64, len(grid))
						for i := range g2 {
							g2[i] = grid[i] + mv(i+1)
						}
					}
					q2 := mustScore(t, s, p2, labels, g2)
					if diff := math.Abs(q - q2); diff > beta*(1+1e-12)+1e-15 {
						t.Errorf("%s %v d = %g move %d: q moved by %g > β_T = %g", c.kind, c.rng, d, mi, diff, beta)
					}
				}
			}
		}
	}
}

// TestValidationScoreBetaTMean moves every prediction by at most d and the
// grid values by at most d with grid mean of |move| at most a — a fraction
// a/d of the grid moved by ±d, every grid value moved by a, random moves
// rescaled to mean a — starting at random values or at the clip's top, and
// fails if |q(f) − q(f′)| exceeds BetaTMean(d, a), or if BetaTMean exceeds
// BetaT(d). The move of everything from the top downwards nearly attains
// the density bound for small d (checked: ≥ 0.99·bound).
func TestValidationScoreBetaTMean(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 17))
	for _, c := range scoreCases {
		s, err := NewValidationScore(c.kind, c.rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []float64{0, 1e-3, 0.05, 0.7, 5, 100} {
			for _, a := range []float64{0, 1e-4, 1e-2, 0.3, 2, 1000} {
				beta := s.BetaTMean(d, a)
				if beta > s.BetaT(d)*(1+1e-15) {
					t.Errorf("%s %v: BetaTMean(%g, %g) = %g > BetaT = %g", c.kind, c.rng, d, a, beta, s.BetaT(d))
				}
				worst := 0.0
				for trial := 0; trial < 40; trial++ {
					m, g := 1+r.IntN(30), 1+r.IntN(60)
					if trial%4 == 0 {
						g = 200
					}
					pred, labels, grid := randomData(c, s, r, m, g)
					top := trial%2 == 0
					if top {
						for i := range pred {
							pred[i] = s.Hi
							if labels != nil {
								labels[i] = c.labelExtremes()[0]
							}
						}
						// The grid just below the top, moving up while the
						// predictions move down: both terms lower q.
						for i := range grid {
							grid[i] = max(s.Lo, s.Hi-d)
						}
					}
					q := mustScore(t, s, pred, labels, grid)
					sign := -1.0 // of the prediction moves; the grid moves by −sign
					if !top && r.IntN(2) == 0 {
						sign = 1
					}
					// Grid moves with |move| ≤ d and mean |move| ≤ a.
					gridMoves := []func(n int) []float64{
						func(n int) []float64 { // a fraction a/d by ±d
							out := make([]float64, n)
							budget := a * float64(n)
							for i := range out {
								v := min(d, budget)
								budget -= v
								out[i] = -sign * v
							}
							return out
						},
						func(n int) []float64 { // everything by min(d, a)
							out := make([]float64, n)
							for i := range out {
								out[i] = -sign * min(d, a)
							}
							return out
						},
						func(n int) []float64 { // random, rescaled
							out := make([]float64, n)
							var sum float64
							for i := range out {
								out[i] = d * (2*r.Float64() - 1)
								sum += math.Abs(out[i])
							}
							if mean := sum / float64(n); mean > a {
								for i := range out {
									out[i] *= a / mean
								}
							}
							return out
						},
					}
					for gi, gm := range gridMoves {
						var g2 []float64
						if grid != nil {
							mv := gm(len(grid))
							g2 = make([]float64, len(grid))
							for i := range g2 {
								g2[i] = grid[i] + mv[i]
							}
						}
						p2 := make([]float64, len(pred))
						for i := range p2 {
							p2[i] = pred[i] + sign*d
						}
						q2 := mustScore(t, s, p2, labels, g2)
						diff := math.Abs(q - q2)
						if beta > 0 {
							worst = max(worst, diff/beta)
						}
						// Slack: q's terms are ≤ M² + 2M in size and sums of
						// ≤ 200 of them carry relative rounding ≤ 200·2⁻⁵³.
						mx := max(math.Abs(s.Lo), math.Abs(s.Hi))
						if diff > beta*(1+1e-12)+1e-13*(1+mx)*(1+mx) {
							t.Errorf("%s %v d = %g a = %g grid move %d: q moved by %g > %g", c.kind, c.rng, d, a, gi, diff, beta)
						}
					}
				}
				if c.kind == OutputDensity && d == 1e-3 && a <= 1e-2 && worst < 0.99 {
					t.Errorf("%s %v d = %g a = %g: largest move %.4g·bound: the bound or the search is off", c.kind, c.rng, d, a, worst)
				}
			}
		}
	}
}

func TestValidationScoreErrors(t *testing.T) {
	if _, err := NewValidationScore("nope", [2]float64{0, 1}); err == nil {
		t.Error("unknown kind accepted")
	}
	for _, rg := range [][2]float64{{1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		if _, err := NewValidationScore(OutputRegression, rg); err == nil {
			t.Errorf("range %v accepted", rg)
		}
	}
	if _, err := NewValidationScore(OutputDensity, [2]float64{-2, 0}); err == nil {
		t.Error("density range with hi ≤ 0 accepted")
	}
	reg, _ := NewValidationScore(OutputRegression, [2]float64{-1, 1})
	cls, _ := NewValidationScore(OutputClassScore, [2]float64{-1, 1})
	den, _ := NewValidationScore(OutputDensity, [2]float64{0, 1})
	for _, tc := range []struct {
		s                  ValidationScore
		pred, labels, grid []float64
	}{
		{reg, nil, nil, nil},
		{reg, []float64{0}, nil, nil},
		{reg, []float64{math.NaN()}, []float64{0}, nil},
		{reg, []float64{0}, []float64{2}, nil},
		{cls, []float64{0}, []float64{0.5}, nil},
		{den, []float64{0}, nil, nil},
		{den, []float64{0}, nil, []float64{math.NaN()}},
	} {
		if _, err := tc.s.Score(tc.pred, tc.labels, tc.grid); err == nil {
			t.Errorf("%s Score(%v, %v, %v) accepted", tc.s.Kind, tc.pred, tc.labels, tc.grid)
		}
	}
}

// TestDensityScoreRanksTruth: the density score prefers the true density
// to a flat one on data drawn from it (it estimates −ISE up to a constant).
func TestDensityScoreRanksTruth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	s, _ := NewValidationScore(OutputDensity, [2]float64{0, 4})
	truth := func(y float64) float64 { return 2 * y } // density of √U
	flat := func(float64) float64 { return 1 }
	axes := QuadratureAxes(1, 200)
	z := make([]float64, 2000)
	for i := range z {
		z[i] = math.Sqrt(r.Float64())
	}
	score := func(f func(float64) float64) float64 {
		pred := make([]float64, len(z))
		for i, x := range z {
			pred[i] = f(x)
		}
		grid := make([]float64, len(axes[0]))
		for i, x := range axes[0] {
			grid[i] = f(x)
		}
		return mustScore(t, s, pred, nil, grid)
	}
	if qt, qf := score(truth), score(flat); !(qt > qf) {
		t.Errorf("q(truth) = %g ≤ q(flat) = %g", qt, qf)
	}
}

func ExampleValidationScore() {
	s, _ := NewValidationScore(OutputProbability, [2]float64{0, 1})
	q, _ := s.Score([]float64{0.9, 0.2, 1.3}, []float64{1, -1, 1}, nil)
	fmt.Printf("q = %.4f, β_V(m=3) = %.4f, β_T(d=0.01) = %.4f\n", q, s.BetaV(3), s.BetaT(0.01))
	// Output: q = -0.0167, β_V(m=3) = 0.3333, β_T(d=0.01) = 0.0200
}

// TestValidationScoreBound: |q| ≤ Bound() for random predictions wider
// than the clip range and for the extremes (every prediction, and the
// grid, at the clip range's ends), and the extremes come within a factor
// 2 of it (the bound is the score's range, not a loose constant).
func TestValidationScoreBound(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 15))
	for _, c := range scoreCases {
		s, err := NewValidationScore(c.kind, c.rng)
		if err != nil {
			t.Fatal(err)
		}
		bound, worst := s.Bound(), 0.0
		check := func(pred, labels, grid []float64) {
			q := mustScore(t, s, pred, labels, grid)
			worst = max(worst, math.Abs(q))
			if math.Abs(q) > bound*(1+1e-12) {
				t.Fatalf("%s %v: |q| = %g > Bound %g", c.kind, c.rng, math.Abs(q), bound)
			}
		}
		for range 200 {
			check(randomData(c, s, r, 1+r.IntN(20), 16))
		}
		for _, at := range []float64{s.Lo - 1, s.Hi + 1} {
			for _, lab := range []float64{-1, 1} {
				pred := []float64{at, at, at}
				var labels, grid []float64
				if s.NeedsLabels() {
					labels = []float64{lab, lab, lab}
				}
				if s.NeedsGrid() {
					grid = []float64{at, at}
				}
				check(pred, labels, grid)
			}
		}
		if worst < bound/2 {
			t.Errorf("%s %v: largest |q| %g, less than half the Bound %g", c.kind, c.rng, worst, bound)
		}
	}
}
