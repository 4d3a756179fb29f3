package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMaxAbsDiff compares the kernel with the scalar loop it documents,
// bit for bit, for lengths around the vector width (tails), signs of s and
// the position of the maximum anywhere.
func TestMaxAbsDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 1001} {
		for _, s := range []float64{0, 1, -0.37, 1e6} {
			e := make([]float64, n)
			z := make([]float64, n)
			for i := range e {
				e[i], z[i] = rng.NormFloat64(), rng.NormFloat64()
			}
			want := 0.0
			for i := range e {
				want = math.Max(want, math.Abs(e[i]-s*z[i]))
			}
			if got := MaxAbsDiff(e, z, s); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("n = %d, s = %g: %v, want %v", n, s, got, want)
			}
		}
	}
}

func BenchmarkMaxAbsDiff1001(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	e, z := make([]float64, 1001), make([]float64, 1001)
	for i := range e {
		e[i], z[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for b.Loop() {
		MaxAbsDiff(e, z, 0.5)
	}
}
