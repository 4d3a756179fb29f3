package mechanism

import (
	"fmt"
	"math"
	rand "math/rand/v2" // seeded test inputs
	"testing"
)

// directSquaredNorm is the O(k²) reference: ‖Tᵀb(y)‖².
func directSquaredNorm(b *IteratedBasis, y float64) float64 {
	w := make([]float64, b.k+1)
	b.At(y, w)
	return dot(w, w)
}

// TestSquaredNormMatchesDirect compares the O(k) degree-2k evaluation with
// the O(k²) definition. Tolerance: relative 1e-9. The log-gamma weights
// carry a relative error below 1e-11 and the rescaled sum adds O(k·ε_mach);
// for h ≥ 2 the coefficients have mixed signs, so cancellation can cost a
// factor up to Σ|c_s|/g(y), which the tolerance covers for k ≤ MaxK.
func TestSquaredNormMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11)) // seeded test inputs
	for _, k := range []int{1, 2, 3, 10, 50, 300, 1000} {
		for _, h := range []int{1, 2, 3, 5} {
			b := NewIteratedBasis(k, h)
			ys := []float64{0, 1, 0.5, 1e-9, 1 - 1e-9, 0.25, 0.75}
			for range 20 {
				ys = append(ys, rng.Float64())
			}
			for _, y := range ys {
				got, want := b.squaredNorm(y), directSquaredNorm(b, y)
				if !(math.Abs(got-want) <= 1e-9*want) {
					t.Errorf("k = %d, h = %d, y = %v: O(k) squared norm %.17g, direct %.17g (relative error %.2g)",
						k, h, y, got, want, math.Abs(got-want)/want)
				}
			}
		}
	}
}

func TestBernsteinSumPolynomials(t *testing.T) {
	// Σ_s b_{s,m}(y) = 1 and Σ_s (s/m)·b_{s,m}(y) = y for every m, y.
	for _, m := range []int{1, 2, 7, 100, 2000} {
		ones := make([]float64, m+1)
		ramp := make([]float64, m+1)
		for s := range ones {
			ones[s] = 1
			ramp[s] = float64(s) / float64(m)
		}
		for _, y := range []float64{0, 1e-300, 0.1, 0.5, 0.9, 1 - 1e-16, 1} {
			if got := bernsteinSum(ones, y); math.Abs(got-1) > 1e-12 {
				t.Errorf("m = %d, y = %v: Σ b = %.17g, want 1", m, y, got)
			}
			if got := bernsteinSum(ramp, y); math.Abs(got-y) > 1e-12 {
				t.Errorf("m = %d, y = %v: Σ (s/m) b = %.17g, want %v", m, y, got, y)
			}
		}
	}
}

func BenchmarkNoiseStd(b *testing.B) {
	for _, k := range []int{50, 1000} {
		for _, h := range []int{1, 3} {
			basis := NewIteratedBasis(k, h)
			basis.squaredNorm(0.5) // precompute outside the loop
			b.Run(fmt.Sprintf("k=%d/h=%d/linear", k, h), func(b *testing.B) {
				y := 0.0
				for b.Loop() {
					y += 0.618
					if y > 1 {
						y--
					}
					_ = basis.squaredNorm(y)
				}
			})
			b.Run(fmt.Sprintf("k=%d/h=%d/direct", k, h), func(b *testing.B) {
				y := 0.0
				for b.Loop() {
					y += 0.618
					if y > 1 {
						y--
					}
					_ = directSquaredNorm(basis, y)
				}
			})
		}
	}
}
