package learners

import (
	"context"
	"errors"
	"math"
	rand "math/rand/v2"
	"strings"
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

// TestPriestleyChaoSpacingError: data with sorted gaps wider than c/n are
// refused with an error naming the records and values.
func TestPriestleyChaoSpacingError(t *testing.T) {
	data := Dataset{Dim: 1, X: []float64{0.9, 0.5, 0.1, 0.52}, Labels: []float64{1, 1, -1, 0}}
	_, err := NewPriestleyChao().Fit(context.Background(), data, Values{"spacing": {0.2}})
	var se *SpacingError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SpacingError", err)
	}
	want := []SpacingGap{{Left: 2, Right: 1, XLeft: 0.1, XRight: 0.5}, {Left: 3, Right: 0, XLeft: 0.52, XRight: 0.9}}
	if se.Count != 2 || len(se.Gaps) != 2 || se.Gaps[0] != want[0] || se.Gaps[1] != want[1] || se.C != 0.2 || se.N != 4 {
		t.Errorf("SpacingError = %+v, want gaps %+v", se, want)
	}
	for _, s := range []string{"records 2 (x = 0.1) and 1 (x = 0.5) are 0.4 apart", "records 3 (x = 0.52) and 0 (x = 0.9)", "c/n = 0.2/4 = 0.05"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	// Many offending gaps: the first MaxListedGaps are listed, the rest counted.
	x := make([]float64, 20)
	for i := range x {
		x[i] = float64(i) / 19
	}
	_, err = NewPriestleyChao().Fit(context.Background(), Dataset{Dim: 1, X: x, Labels: make([]float64, 20)}, Values{"spacing": {0.5}})
	if !errors.As(err, &se) || se.Count != 19 || len(se.Gaps) != MaxListedGaps || !strings.Contains(err.Error(), "and 14 more") {
		t.Errorf("err = %v", err)
	}
	// Exactly c/n apart is allowed.
	if _, err := NewPriestleyChao().Fit(context.Background(), Dataset{Dim: 1, X: []float64{0, 0.5, 0.5, 1}, Labels: make([]float64, 4)}, Values{"spacing": {2}}); err != nil {
		t.Errorf("gaps of exactly c/n: %v", err)
	}
}

// TestPriestleyChaoPaperAssumptionCounterexample documents why the data
// universe is "sorted gaps ≤ c/n" and not the paper's "every point has
// another within c/n": two neighbouring datasets that satisfy the paper's
// assumption (every point has a duplicate) differ by 2κ at y = 1, while the
// paper's bound is 4cκ/n — here 3 times smaller. Fit refuses both.
func TestPriestleyChaoPaperAssumptionCounterexample(t *testing.T) {
	const n, c, b = 6, 1.0, 0.1
	kappa := 1 / (b * math.Sqrt(2*math.Pi))
	// E = {0 (+1), 0 (+1), 1 (+1), 1 (+1), 1 (+1)}; D adds (1, −1), D′ adds (0, +1).
	dx := []float64{0, 0, 1, 1, 1, 1}
	dl := []float64{1, 1, 1, 1, 1, -1}
	ex := []float64{0, 0, 1, 1, 1, 0}
	el := []float64{1, 1, 1, 1, 1, 1}
	for _, d := range []Dataset{{Dim: 1, X: dx, Labels: dl}, {Dim: 1, X: ex, Labels: el}} {
		var se *SpacingError
		if _, err := NewPriestleyChao().Fit(context.Background(), d, Values{"bandwidth": {b}, "spacing": {c}}); !errors.As(err, &se) {
			t.Errorf("Fit(%v) = %v, want a *SpacingError", d.X, err)
		}
	}
	fd := newPCOracle(dx, dl, pcOrder(dx, dl), b)
	fe := newPCOracle(ex, el, pcOrder(ex, el), b)
	diff := math.Abs(fd.Eval([]float64{1}) - fe.Eval([]float64{1}))
	paper := 4 * c * kappa / n
	if math.Abs(diff-2*kappa) > 1e-14*kappa || diff < 2.9*paper {
		t.Errorf("|F_D(1) − F_D′(1)| = %g, want 2κ = %g, 3 × the paper's %g", diff, 2*kappa, paper)
	}
}
