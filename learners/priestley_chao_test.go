package learners

import (
	"context"
	"math"
	rand "math/rand/v2"
	"testing"
)

// TestPriestleyChaoHandComputed: sorted records 0.1 (l = 1), 0.2 (0.25),
// 0.3 (−0.5), b = 0.1: F(0.25) = 0.1·φ(0.05)·0.25 + 0.1·φ(−0.05)·(−0.5),
// computed in Python; tolerance 1e-14 relative.
func TestPriestleyChaoHandComputed(t *testing.T) {
	data := Dataset{Dim: 1, X: []float64{0.1, 0.3, 0.2}, Labels: []float64{1, -0.5, 0.25}}
	f, err := NewPriestleyChao().Fit(context.Background(), data, Values{"bandwidth": {0.1}, "spacing": {1}})
	if err != nil {
		t.Fatal(err)
	}
	const want = -0.08801633169107488
	if got := f.Oracle.Eval([]float64{0.25}); math.Abs(got-want) > 1e-14*math.Abs(want) {
		t.Errorf("F(0.25) = %.17g, want %.17g", got, want)
	}
	kappa := 1 / (0.1 * math.Sqrt(2*math.Pi))
	// g = c/n = 1/3: S = 2κ·min(2/3, 1); range ±min(κ, 1 + 2κ/3).
	if s := 4 * kappa / 3; math.Abs(f.Sensitivity-s) > 1e-15*s {
		t.Errorf("S = %.17g, want %.17g", f.Sensitivity, s)
	}
	if r := 1 + 2*kappa/3; math.Abs(f.OutputRange[1]-r) > 1e-15*r || f.OutputRange[0] != -f.OutputRange[1] {
		t.Errorf("range = %v, want ±%.17g", f.OutputRange, r)
	}
	// With c ≥ n/2 the bound saturates at 2κ and the range at κ.
	f, _ = NewPriestleyChao().Fit(context.Background(), data, Values{"bandwidth": {0.1}, "spacing": {3}})
	if math.Abs(f.Sensitivity-2*kappa) > 1e-15*kappa || math.Abs(f.OutputRange[1]-kappa) > 1e-15*kappa {
		t.Errorf("c = 3: S = %g, range %v; want 2κ = %g, ±κ", f.Sensitivity, f.OutputRange, 2*kappa)
	}
}

// TestPriestleyChaoTiesAndOrder: F_D must not depend on the order of the
// records, also with tied features of different labels.
func TestPriestleyChaoTiesAndOrder(t *testing.T) {
	x := []float64{0.2, 0.5, 0.5, 0.5, 0.7, 0.7, 0.9}
	l := []float64{1, -1, 0.3, 1, -0.2, 0.8, -1}
	vals := Values{"bandwidth": {0.1}, "spacing": {7}}
	ref, err := NewPriestleyChao().Fit(context.Background(), Dataset{Dim: 1, X: x, Labels: l}, vals)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	for range 20 {
		perm := r.Perm(len(x))
		px, pl := make([]float64, len(x)), make([]float64, len(x))
		for i, p := range perm {
			px[i], pl[i] = x[p], l[p]
		}
		f, _ := NewPriestleyChao().Fit(context.Background(), Dataset{Dim: 1, X: px, Labels: pl}, vals)
		for _, y := range []float64{0, 0.3, 0.5, 0.65, 1} {
			if a, b := ref.Oracle.Eval([]float64{y}), f.Oracle.Eval([]float64{y}); a != b {
				t.Fatalf("permutation %v: F(%g) = %.17g, unpermuted %.17g", perm, y, b, a)
			}
		}
	}
}

// TestPriestleyChaoNoSpacingRefusal is the regression test for issue 13
// item 5: data whose sorted gaps exceed c/n used to be refused with a
// *SpacingError advising to remove "isolated records" (a refusal that
// depends on private values). Now every dataset fits, the wide gaps count as
// c/n, S and the range depend on n, b and c only, and data whose gaps are
// all ≤ c/n give exactly the paper's uncapped estimator.
func TestPriestleyChaoNoSpacingRefusal(t *testing.T) {
	const b = 0.1
	kappa := 1 / (b * math.Sqrt(2*math.Pi))
	phi := func(u float64) float64 { return kappa * math.Exp(-u*u/(2*b*b)) }
	// The dataset refused before (c/n = 0.2/4 = 0.05): sorted 0.1 (−1),
	// 0.5 (1), 0.52 (0), 0.9 (1) with gaps 0.4, 0.02, 0.38.
	data := Dataset{Dim: 1, X: []float64{0.9, 0.5, 0.1, 0.52}, Labels: []float64{1, 1, -1, 0}}
	f, err := NewPriestleyChao().Fit(context.Background(), data, Values{"bandwidth": {b}, "spacing": {0.2}})
	if err != nil {
		t.Fatalf("Fit refused sparse data: %v", err)
	}
	for _, y := range []float64{0, 0.3, 0.5, 0.7, 0.9, 1} {
		want := 0.05*phi(y-0.5)*1 + 0.02*phi(y-0.52)*0 + 0.05*phi(y-0.9)*1
		if got := f.Oracle.Eval([]float64{y}); math.Abs(got-want) > 1e-14*kappa {
			t.Errorf("F(%g) = %.17g, want %.17g (gaps capped at c/n = 0.05)", y, got, want)
		}
	}
	// S and the range are those of any other dataset of the same n.
	dense := Dataset{Dim: 1, X: []float64{0.4, 0.42, 0.44, 0.46}, Labels: []float64{1, -1, 0.5, 0}}
	fd, err := NewPriestleyChao().Fit(context.Background(), dense, Values{"bandwidth": {b}, "spacing": {0.2}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Sensitivity != fd.Sensitivity || f.OutputRange != fd.OutputRange || f.SensitivityNote != fd.SensitivityNote {
		t.Errorf("sparse data: S = %g, range %v, note %q; dense data: S = %g, range %v, note %q; want equal",
			f.Sensitivity, f.OutputRange, f.SensitivityNote, fd.Sensitivity, fd.OutputRange, fd.SensitivityNote)
	}
	if s := 2 * kappa * 2 * 0.05; math.Abs(f.Sensitivity-s) > 1e-15*s {
		t.Errorf("S = %.17g, want 2κ·2c/n = %.17g", f.Sensitivity, s)
	}
	// Dense data (gaps ≤ c/n): the cap changes nothing.
	un := newPCOracle(dense.X, dense.Labels, pcOrder(dense.X, dense.Labels), b, math.Inf(1))
	for _, y := range []float64{0, 0.41, 0.45, 1} {
		if a, c := fd.Oracle.Eval([]float64{y}), un.Eval([]float64{y}); a != c {
			t.Errorf("dense data: capped F(%g) = %.17g, uncapped %.17g", y, a, c)
		}
	}
	// Many wide gaps, one record per 1/19: fits, no error of any kind.
	x := make([]float64, 20)
	for i := range x {
		x[i] = float64(i) / 19
	}
	if _, err := NewPriestleyChao().Fit(context.Background(), Dataset{Dim: 1, X: x, Labels: make([]float64, 20)}, Values{"spacing": {0.5}}); err != nil {
		t.Errorf("evenly spread data with gaps 1/19 > c/n = 0.025: %v", err)
	}
}

// TestPriestleyChaoPaperAssumptionCounterexample documents why the paper's
// uncapped estimator needs "sorted gaps ≤ c/n" and not the paper's "every
// point has another within c/n": two neighbouring datasets that satisfy the
// paper's assumption (every point has a duplicate) differ by 2κ at y = 1
// under the uncapped estimator, while the paper's bound is 4cκ/n — here 3
// times smaller. The capped estimator Fit releases fits both and stays
// within S = 4cκ/n.
func TestPriestleyChaoPaperAssumptionCounterexample(t *testing.T) {
	const n, c, b = 6, 1.0, 0.1
	kappa := 1 / (b * math.Sqrt(2*math.Pi))
	// E = {0 (+1), 0 (+1), 1 (+1), 1 (+1), 1 (+1)}; D adds (1, −1), D′ adds (0, +1).
	dx := []float64{0, 0, 1, 1, 1, 1}
	dl := []float64{1, 1, 1, 1, 1, -1}
	ex := []float64{0, 0, 1, 1, 1, 0}
	el := []float64{1, 1, 1, 1, 1, 1}
	fd := newPCOracle(dx, dl, pcOrder(dx, dl), b, math.Inf(1))
	fe := newPCOracle(ex, el, pcOrder(ex, el), b, math.Inf(1))
	diff := math.Abs(fd.Eval([]float64{1}) - fe.Eval([]float64{1}))
	paper := 4 * c * kappa / n
	if math.Abs(diff-2*kappa) > 1e-14*kappa || diff < 2.9*paper {
		t.Errorf("uncapped: |F_D(1) − F_D′(1)| = %g, want 2κ = %g, 3 × the paper's %g", diff, 2*kappa, paper)
	}
	var fits [2]*Fitted
	for i, d := range []Dataset{{Dim: 1, X: dx, Labels: dl}, {Dim: 1, X: ex, Labels: el}} {
		f, err := NewPriestleyChao().Fit(context.Background(), d, Values{"bandwidth": {b}, "spacing": {c}})
		if err != nil {
			t.Fatalf("Fit(%v): %v", d.X, err)
		}
		fits[i] = f
	}
	if s := fits[0].Sensitivity; math.Abs(s-paper) > 1e-15*paper {
		t.Errorf("S = %g, want 4cκ/n = %g", s, paper)
	}
	for _, y := range []float64{0, 0.5, 1} {
		if d := math.Abs(fits[0].Oracle.Eval([]float64{y}) - fits[1].Oracle.Eval([]float64{y})); d > fits[0].Sensitivity*(1+1e-12) {
			t.Errorf("capped: |F_D(%g) − F_D′(%g)| = %g > S = %g", y, y, d, fits[0].Sensitivity)
		}
	}
}
