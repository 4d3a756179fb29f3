package peers

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkTrigKDEWeights is the cost of one query's weights of the Wang
// et al. summary (docs/peers.md, "Cost per query").
func BenchmarkTrigKDEWeights(b *testing.B) {
	for _, t := range []int{21, 101} {
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			w := make([]float64, t)
			for b.Loop() {
				if _, err := TrigKDEWeights(0.4, 0.05, t, 2, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCosineCoefficientsRecurrence: the Chebyshev recurrence gives the
// trapezoid-rule coefficients computed with math.Cos per term, to 1e-12
// absolute for a g with |g| ≤ 8 (the bound of docs: m·2⁻⁵² per term, times
// ∫|g|/π ≤ 8), for every degree up to MaxTrigDegree.
func TestCosineCoefficientsRecurrence(t *testing.T) {
	g := func(theta float64) float64 {
		z := (0.3 - (math.Cos(theta)+1)/2) / 0.05
		return math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * 0.05)
	}
	got := cosineCoefficients(g, MaxTrigDegree)
	n := trigQuadrature
	for m := range MaxTrigDegree {
		var s float64
		for j := 0; j <= n; j++ {
			w := 1.0
			if j == 0 || j == n {
				w = 0.5
			}
			s += w * g(math.Pi*float64(j)/float64(n)) * math.Cos(float64(m)*math.Pi*float64(j)/float64(n))
		}
		s /= float64(n)
		if m > 0 {
			s *= 2
		}
		if d := math.Abs(got[m] - s); d > 1e-12 {
			t.Fatalf("ĝ_%d = %.17g, direct %.17g: |Δ| = %.3g > 1e-12", m, got[m], s, d)
		}
	}
}
