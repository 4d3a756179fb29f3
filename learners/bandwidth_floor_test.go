package learners

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestKernelBandwidthFloor (issue 13 item 5, adversarial review): a tiny
// bandwidth once made 1/(2b²) overflow, and a record exactly on a lattice
// coordinate then turned the oracle into NaN — a refusal that revealed the
// record. Now bandwidths below minBandwidth are a public parameter error for
// every kernel learner, and at minBandwidth the oracle is finite on the
// lattice for neighbouring datasets with a record on a lattice point (0.5)
// and off it (0.3).
func TestKernelBandwidthFloor(t *testing.T) {
	ctx := context.Background()
	axis := []float64{0, 0.25, 0.5, 0.75, 1} // the lattice of k = 4
	for _, kind := range []Kind{KindKDE, KindNaiveBayes, KindPriestleyChao} {
		l, err := Lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range []float64{0.5, 0.3} {
			data := Dataset{Dim: 1, X: []float64{0.1, rec, 0.9, 0.7}}
			if l.Spec().Label != LabelNone {
				data.Labels = []float64{-1, 1, 1, -1}
			}
			for _, bad := range []float64{1e-200, 1e-7, 0} {
				_, err := l.Fit(ctx, data, Values{"bandwidth": {bad}})
				var pe *mechanism.ParamError
				if !errors.As(err, &pe) || pe.Field != "bandwidth" {
					t.Errorf("%s, record %g, bandwidth %g: err %v; want a bandwidth ParamError", kind, rec, bad, err)
				}
			}
			f, err := l.Fit(ctx, data, Values{"bandwidth": {minBandwidth}})
			if err != nil {
				t.Fatalf("%s, record %g, bandwidth %g: %v", kind, rec, minBandwidth, err)
			}
			if !(f.Sensitivity > 0) || math.IsInf(f.Sensitivity, 0) {
				t.Errorf("%s: sensitivity %g not finite and positive", kind, f.Sensitivity)
			}
			for _, y := range axis {
				if v := f.Oracle.Eval([]float64{y}); math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s, record %g: Eval(%g) = %g", kind, rec, y, v)
				}
			}
			if g, ok := f.Oracle.(mechanism.GridOracle); ok {
				out := make([]float64, len(axis))
				if err := g.EvalGrid(ctx, [][]float64{axis}, out); err != nil {
					t.Fatal(err)
				}
				for i, v := range out {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s, record %g: EvalGrid at %g = %g", kind, rec, axis[i], v)
					}
				}
			}
		}
	}
}
