package mechanism

import (
	"math"
	"math/big"
	"testing"
)

// bigBasis returns b_{ν,k}(y) for all ν in 512-bit arithmetic (y is taken
// exactly; big.Float has no underflow), rounded to float64.
func bigBasis(k int, y float64) []float64 {
	const prec = 512
	by := new(big.Float).SetPrec(prec).SetFloat64(y)
	bq := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetPrec(prec).SetInt64(1), by)
	out := make([]float64, k+1)
	for nu := 0; nu <= k; nu++ {
		binom := new(big.Int).Binomial(int64(k), int64(nu))
		v := new(big.Float).SetPrec(prec).SetInt(binom)
		for range nu {
			v.Mul(v, by)
		}
		for range k - nu {
			v.Mul(v, bq)
		}
		out[nu], _ = v.Float64()
	}
	return out
}

func TestBernsteinBasisMatchesBigFloat(t *testing.T) {
	ys := []float64{0, 1e-300, 1e-12, 1e-3, 0.1, 1.0 / 3, 0.5, 0.7, 0.999, 1 - 1e-12, 1}
	ks := []int{1, 2, 3, 7, 20, 64, 100, 255, 256}
	for _, k := range ks {
		got := make([]float64, k+1)
		for _, y := range ys {
			BernsteinBasis(k, y, got)
			want := bigBasis(k, y)
			var sum float64
			for nu := range got {
				g, w := got[nu], want[nu]
				if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
					t.Fatalf("k=%d y=%g ν=%d: got %g, want a finite value ≥ 0", k, y, nu, g)
				}
				// Relative 1e-12 above the underflow range; below it the
				// recurrence works in subnormals with absolute granularity
				// 4.9e-324, so allow an absolute 1e-320.
				if math.Abs(g-w) > 1e-12*w+1e-320 {
					t.Errorf("k=%d y=%g ν=%d: got %.17g, want %.17g (rel err %.3g)", k, y, nu, g, w, math.Abs(g-w)/w)
				}
				sum += g
			}
			if math.Abs(sum-1) > 1e-13 {
				t.Errorf("k=%d y=%g: Σ b = %.17g, want 1", k, y, sum)
			}
		}
	}
}

func TestBernsteinBasisLargeKStaysFinite(t *testing.T) {
	got := make([]float64, MaxK+1)
	for _, y := range []float64{0, 1e-300, 0.25, 0.5, 0.75, 1 - 1e-16, 1} {
		BernsteinBasis(MaxK, y, got)
		var sum float64
		for nu, g := range got {
			if math.IsNaN(g) || math.IsInf(g, 0) || g < 0 {
				t.Fatalf("k=%d y=%g ν=%d: got %g", MaxK, y, nu, g)
			}
			sum += g
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("k=%d y=%g: Σ b = %.17g, want 1", MaxK, y, sum)
		}
	}
}

func TestBernsteinBasisPanicsOnMisuse(t *testing.T) {
	cases := []struct {
		name string
		k    int
		y    float64
		n    int
	}{
		{"k=0", 0, 0.5, 1},
		{"short out", 3, 0.5, 3},
		{"y<0", 3, -0.1, 4},
		{"y>1", 3, 1.1, 4},
		{"y NaN", 3, math.NaN(), 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("BernsteinBasis(%d, %g, len %d) did not panic", c.k, c.y, c.n)
				}
			}()
			BernsteinBasis(c.k, c.y, make([]float64, c.n))
		})
	}
}
