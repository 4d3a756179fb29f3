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

// TestTrigKDEGrid: the grid answers are the weights' dot products with the
// moments, the noise weights equal TrigKDEWeights except the zeroed public
// column 0, and a wrong number of moments is refused.
func TestTrigKDEGrid(t *testing.T) {
	x := []float64{0.2, 0.25, 0.7, 0.9}
	const tt, k, bw = 9, 2, 0.1
	moments, err := TrigMoments(x, tt)
	if err != nil {
		t.Fatal(err)
	}
	grid := []float64{0, 0.33, 1}
	weights, answers, err := TrigKDEGrid(grid, bw, tt, k, moments)
	if err != nil {
		t.Fatal(err)
	}
	for i, y := range grid {
		w, _ := TrigKDEWeights(y, bw, tt, k, nil)
		var a float64
		for m := range w {
			a += w[m] * moments[m]
			want := w[m]
			if m == 0 {
				want = 0
			}
			if weights[i*tt+m] != want {
				t.Errorf("y = %g: weight %d = %g, want %g", y, m, weights[i*tt+m], want)
			}
		}
		if math.Abs(answers[i]-a) > 1e-15*math.Abs(a) {
			t.Errorf("y = %g: answer %g, want %g", y, answers[i], a)
		}
	}
	if _, _, err := TrigKDEGrid(grid, bw, tt, k, moments[:3]); err == nil {
		t.Error("3 moments for t = 9 were accepted")
	}
}
