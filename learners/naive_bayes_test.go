package learners

import (
	"context"
	"math"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestNaiveBayesHandComputed: class +1 = {(0.2,0.3), (0.4,0.5)}, class −1 =
// {(0.8,0.7)}, b = 0.1, y = (0.3, 0.6); F computed in Python as
// (2/3)·∏_j mean_+ φ − (1/3)·∏_j φ; tolerance 1e-14 relative.
func TestNaiveBayesHandComputed(t *testing.T) {
	data := Dataset{Dim: 2, X: []float64{0.2, 0.3, 0.8, 0.7, 0.4, 0.5}, Labels: []float64{1, -1, 1}}
	f, err := NewNaiveBayes().Fit(context.Background(), data, Values{"bandwidth": {0.1}})
	if err != nil {
		t.Fatal(err)
	}
	const want = 1.9873949784305573
	if got := f.Oracle.Eval([]float64{0.3, 0.6}); math.Abs(got-want) > 1e-14*want {
		t.Errorf("F = %.17g, want %.17g", got, want)
	}
	k := 1 / (0.01 * 2 * math.Pi) // κ² for b = 0.1
	if s := 2 * k / 3; math.Abs(f.Sensitivity-s) > 1e-14*s {
		t.Errorf("S = %.17g, want 2K/n = %.17g", f.Sensitivity, s)
	}
	if math.Abs(f.OutputRange[1]-k) > 1e-14*k || f.OutputRange[0] != -f.OutputRange[1] {
		t.Errorf("range %v, want ±%g", f.OutputRange, k)
	}
}

// TestNaiveBayesEmptyClass: with every record in class +1 the class −1 term
// is 0 (not NaN), and vice versa.
func TestNaiveBayesEmptyClass(t *testing.T) {
	for _, lab := range []float64{1, -1} {
		data := Dataset{Dim: 1, X: []float64{0.5, 0.5}, Labels: []float64{lab, lab}}
		f, err := NewNaiveBayes().Fit(context.Background(), data, Values{"bandwidth": {0.1}})
		if err != nil {
			t.Fatal(err)
		}
		want := lab / (0.1 * math.Sqrt(2*math.Pi)) // P(+)=1 or P(−)=1, average = κ at y = 0.5
		if got := f.Oracle.Eval([]float64{0.5}); math.Abs(got-want) > 1e-14*math.Abs(want) {
			t.Errorf("labels %g: F(0.5) = %.17g, want %.17g", lab, got, want)
		}
		out := make([]float64, 3)
		if err := f.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), [][]float64{{0, 0.5, 1}}, out); err != nil || math.Abs(out[1]-want) > 1e-14*math.Abs(want) {
			t.Errorf("labels %g: EvalGrid = %v, %v", lab, out, err)
		}
	}
}

// TestNaiveBayesFactor checks naiveBayesFactor against values worked out by
// hand and against its limits 2 (ℓ ≤ 2) and 2(ℓ−1) (ℓ ≥ 3, large n).
func TestNaiveBayesFactor(t *testing.T) {
	cases := []struct {
		n, dim int
		want   float64
		tol    float64
	}{
		{1, 1, 2, 0}, {50, 1, 2, 0}, {1, 2, 2, 0}, {1000, 2, 2, 0},
		{3, 3, 3 * 19.0 / 27, 1e-15},       // same-class term n(1 − (1 − 1/n)³) wins
		{2, 3, 2, 0},                       // 2(1 − 1/8) = 1.75, g(0)+g(1) = 0.75
		{1_000_001, 3, 4, 1e-4},            // 2·g(500000) → 4 from below
		{1_000_001, 4, 6, 1e-4},            // 2·g(500000) → 6 from below
		{5, 4, 5 * (1 - 256.0/625), 1e-15}, // n(1 − (4/5)⁴) = 2.952 vs 2g(2) = 2.815
	}
	for _, c := range cases {
		if got := naiveBayesFactor(c.n, c.dim); math.Abs(got-c.want) > c.tol || c.tol > 1e-10 && got >= c.want {
			t.Errorf("naiveBayesFactor(%d, %d) = %.17g, want %.17g ± %g", c.n, c.dim, got, c.want, c.tol)
		}
	}
}

// TestNaiveBayesBoundExhaustive verifies the naive Bayes bound exactly for
// small n. At a fixed query y, F_D(y) is multilinear in the kernel values
// k_ij = N(y_j − d_ij; 0, b_j²) ∈ [0, κ_j] (each appears linearly in one
// factor of one class term), so sup |F_D(y) − F_D′(y)| over the box is
// attained with every k_ij ∈ {0, κ_j}. The test enumerates all such
// datasets E of n−1 records plus every pair of changed records p, p′ (with
// labels) and checks that the maximum of |F_{E∪p} − F_{E∪p′}|·n/K equals
// naiveBayesFactor(n, ℓ) (≤ proves the bound over the box, = shows the
// formula is tight over the box).
func TestNaiveBayesBoundExhaustive(t *testing.T) {
	for _, c := range []struct{ dim, maxN int }{{1, 6}, {2, 5}, {3, 4}, {4, 3}} {
		states := 1 << (c.dim + 1) // bits 0..ℓ−1: k_ij = κ_j or 0; bit ℓ: label +1
		for n := 1; n <= c.maxN; n++ {
			best := 0.0
			e := make([]int, n-1)
			for {
				for p := range states {
					fd := nbBoxF(e, p, c.dim, n)
					for q := range states {
						best = math.Max(best, math.Abs(fd-nbBoxF(e, q, c.dim, n)))
					}
				}
				// Next multiset E (non-decreasing state sequence).
				i := len(e) - 1
				for i >= 0 && e[i] == states-1 {
					i--
				}
				if i < 0 {
					break
				}
				e[i]++
				for j := i + 1; j < len(e); j++ {
					e[j] = e[i]
				}
			}
			want := naiveBayesFactor(n, c.dim)
			if got := best * float64(n); math.Abs(got-want) > 1e-12*want {
				t.Errorf("ℓ=%d n=%d: exhaustive max |ΔF|·n/K = %.15g, naiveBayesFactor = %.15g", c.dim, n, got, want)
			}
		}
	}
}

// nbBoxF returns F_D(y)/K for D = E ∪ {p}, records given as box vertices
// (bit j: kernel value on axis j is K's factor or 0; bit ℓ: label +1).
func nbBoxF(e []int, p, dim, n int) float64 {
	var cnt [2]int
	var sums [2][4]float64
	add := func(s int) {
		c := s >> dim & 1
		cnt[c]++
		for j := range dim {
			sums[c][j] += float64(s >> j & 1)
		}
	}
	for _, s := range e {
		add(s)
	}
	add(p)
	var f float64
	for c := range 2 {
		if cnt[c] == 0 {
			continue
		}
		a := float64(cnt[c]) / float64(n)
		for j := range dim {
			a *= sums[c][j] / float64(cnt[c])
		}
		if c == 1 {
			f += a
		} else {
			f -= a
		}
	}
	return f
}

// paperNaiveBayes reports the paper's Appendix F bound 2(1/n + (2^ℓ−1)κ/n).
type paperNaiveBayes struct{ Learner }

func (p paperNaiveBayes) Fit(ctx context.Context, d Dataset, v Values) (*Fitted, error) {
	f, err := p.Learner.Fit(ctx, d, v)
	if err != nil {
		return nil, err
	}
	g := *f
	n := float64(f.N)
	kappa := gaussPeak(v["bandwidth"][0])
	g.Sensitivity = 2 * (1/n + float64(int(1)<<d.Dim-1)*kappa/n)
	return &g, nil
}

// TestNaiveBayesPaperBoundFails documents that the paper's bound is too
// small when densities exceed 1: for ℓ = 2 and b = 0.05, moving one record
// between classes with all records stacked on y changes F by 2κ²/n ≈ 127/n,
// 2.5 times the paper's 2(1 + 3κ)/n ≈ 50/n. The audit must find it.
func TestNaiveBayesPaperBoundFails(t *testing.T) {
	res := runAudit(paperNaiveBayes{NewNaiveBayes()}, auditConfig{Dim: 2, Values: Values{"bandwidth": {0.05}}, Pairs: 300, Climbs: 5, Seed: 11})
	if res.MaxRatio < 2.5 {
		t.Errorf("largest ratio against the paper's bound = %.4f, want ≥ 2.5 (2κ²/(2 + 6κ) = 2.55)", res.MaxRatio)
	}
	t.Logf("paper's naive Bayes bound, ℓ=2 b=0.05: largest ratio %.4f at %s", res.MaxRatio, res.Worst)
}
