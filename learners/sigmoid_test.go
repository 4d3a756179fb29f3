package learners

import (
	"math"
	"testing"
)

// TestSigmoid: exact limits far out (no overflow into NaN), the definition
// at moderate z to 1e-15 relative (a few ulps: the reference formula rounds
// too), and the symmetry σ(−z) = 1 − σ(z) to 4.5e-16 absolute (two ulps of
// 1).
func TestSigmoid(t *testing.T) {
	if Sigmoid(-800) != 0 || Sigmoid(800) != 1 || Sigmoid(math.Inf(1)) != 1 || Sigmoid(math.Inf(-1)) != 0 {
		t.Errorf("Sigmoid at ±800, ±Inf: %v %v %v %v", Sigmoid(-800), Sigmoid(800), Sigmoid(math.Inf(1)), Sigmoid(math.Inf(-1)))
	}
	for _, z := range []float64{-30, -3, -1, -1e-9, 0, 1e-9, 1, 3, 30} {
		want := 1 / (1 + math.Exp(-z))
		if got := Sigmoid(z); math.Abs(got-want) > 1e-15*want {
			t.Errorf("Sigmoid(%g) = %v, want %v", z, got, want)
		}
		if d := math.Abs(Sigmoid(-z) - (1 - Sigmoid(z))); d > 4.5e-16 {
			t.Errorf("Sigmoid(%g) + Sigmoid(%g) − 1 = %g", z, -z, d)
		}
	}
}
