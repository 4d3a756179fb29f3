package mechanism

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestModeProductInPlace: the blocked in-place mode product equals the
// out-of-place one on every axis, for shapes whose fibre counts cross the
// block size (modeProductBlock) on both sides of the axis. Tolerance
// 1e-12 relative: the same sums, possibly in another BLAS blocking order.
func TestModeProductInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][]int{{5}, {3, 4}, {300, 3}, {3, 300}, {2, 600, 3}, {7, 5, 2, 3}, {520, 2}} {
		n := 1
		for _, s := range shape {
			n *= s
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for axis, K := range shape {
			a := make([]float64, K*K)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			want := make([]float64, n)
			modeProduct(x, shape, axis, a, K, want)
			got := append([]float64(nil), x...)
			modeProductInPlace(got, shape, axis, a)
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("shape %v axis %d: [%d] = %v, want %v", shape, axis, i, got[i], want[i])
				}
			}
		}
	}
}
