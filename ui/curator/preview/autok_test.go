package preview

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// TestPreviewAutoKCurve: with the automatic k the tradeoff plot gains the
// curve of the k the rule picks at each ε. At the current ε it is the
// current setting's own curve (same k, seed and draws: equal to 1e-9
// relative); it falls with ε (each step at most 5% up, for the simulation's
// wiggle) and ends below the fixed-k curve at the largest ε, where the
// fixed k's approximation error floors the error. Deterministic (fixed
// seeds): it cannot fail by chance.
func TestPreviewAutoKCurve(t *testing.T) {
	in := kde1DInput(2)
	in.Peers = false
	in.Request.KAuto = true
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var auto, fixed []float64
	for _, c := range res.Tradeoff.Curves {
		switch {
		case strings.Contains(c.Label, "automatic k at each ε"):
			auto = c.Y
		case c.Label == "Bernstein, h = 2":
			fixed = c.Y
		}
	}
	if auto == nil || fixed == nil {
		t.Fatalf("curves %v: want the automatic-k curve and the h = 2 curve", res.Tradeoff.Curves)
	}
	for i, eps := range res.Tradeoff.Epsilons {
		if math.Abs(eps-2) < 1e-12 && math.Abs(auto[i]-fixed[i]) > 1e-9*fixed[i] {
			t.Errorf("at the current ε: automatic-k curve %g, setting's curve %g; want equal", auto[i], fixed[i])
		}
		if i > 0 && auto[i] > 1.05*auto[i-1] {
			t.Errorf("ε = %g: error %g after %g; want falling with ε", eps, auto[i], auto[i-1])
		}
	}
	if last := len(auto) - 1; !(auto[last] < fixed[last]) {
		t.Errorf("largest ε: automatic k %g, fixed k %g; want the automatic k below", auto[last], fixed[last])
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "public range") {
			t.Errorf("unexpected range warning at ε = 2: %s", w)
		}
	}
}

// TestPreviewAutoKRangeWarning: when no k does better than publishing
// zero (a narrow kernel at a tiny ε: every simulated error is beyond the
// whole public range), the curator is told so, with what would help.
func TestPreviewAutoKRangeWarning(t *testing.T) {
	in := kde1DInput(1e-4)
	in.Peers = false
	in.Request.KAuto = true
	in.Request.Params = learners.Values{"bandwidth": {0.01}}
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.NoBetterThanZero {
		t.Errorf("NoBetterThanZero false at ε = 10⁻⁴ with bandwidth 0.01")
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "every k is no better than publishing zero") && strings.Contains(w, "a larger bandwidth or a larger ε") {
			return
		}
	}
	t.Errorf("warnings %q: want the publishing-zero warning naming a larger bandwidth and a larger ε", res.Warnings)
}
