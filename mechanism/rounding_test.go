package mechanism

import (
	"math"
	"testing"
)

// libraryGranularity is the secure library's rounding step for a Laplace
// call of L1 sensitivity delta at epsilon: the least power of two ≥
// (delta/epsilon)/2⁴⁰ (noise/laplace_noise.go, addLaplaceFloat64).
func libraryGranularity(delta, epsilon float64) float64 {
	x := (delta / epsilon) / math.Exp2(libraryGranularityExponent)
	return math.Exp2(math.Ceil(math.Log2(x)))
}

// TestRoundingSafeEpsilon checks the composed privacy loss of m library
// calls at the calibrated ε′, with the library's own granularity g and the
// worst case (every value's rounding moves by g, the true changes sum to Δ):
// ε′·(Δ + m·g)/(Δ + g) ≤ ε. It would fail with ε′ = ε for every m > 1.
func TestRoundingSafeEpsilon(t *testing.T) {
	for _, m := range []int{1, 2, 21, 441, 9261, 1_000_000, MaxCoefficients} {
		for _, eps := range []float64{1e-3, 0.1, 1, 30} {
			for _, s := range []float64{1e-9, 0.01, 1, 1e6} {
				delta := float64(m) * s
				epsPrime := RoundingSafeEpsilon(eps, m)
				g := libraryGranularity(delta, epsPrime)
				loss := epsPrime * (delta + float64(m)*g) / (delta + g)
				if loss > eps*(1+1e-15) {
					t.Errorf("m=%d ε=%g S=%g: composed loss %.17g > ε (ε′ = %.17g, g = %g)", m, eps, s, loss, epsPrime, g)
				}
				if m > 1 {
					if naive := eps * (delta + float64(m)*libraryGranularity(delta, eps)) / (delta + libraryGranularity(delta, eps)); naive <= eps {
						t.Errorf("m=%d ε=%g S=%g: uncorrected loss %.17g ≤ ε: the case does not exercise the rounding", m, eps, s, naive)
					}
				}
			}
		}
	}
}

// TestValidateRefusesEpsilonBelowRounding: an ε that the rounding
// allowance of m calls would consume is refused, naming the rule.
func TestValidateRefusesEpsilonBelowRounding(t *testing.T) {
	k := []int{214, 214, 214} // m = 215³ ≈ 9.9·10⁶ lattice values
	if err := (Params{Epsilon: 1e-5, Noise: NoiseLaplace, H: 1, K: k}).Validate(); err == nil {
		t.Fatal("ε = 1e-5 with 10⁷ lattice values accepted: the rounding allowance is 1.8e-5")
	}
	if err := (Params{Epsilon: 1e-3, Noise: NoiseLaplace, H: 1, K: k}).Validate(); err != nil {
		t.Fatalf("ε = 1e-3 refused: %v", err)
	}
}
