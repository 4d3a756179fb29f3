package peers

import (
	"math"
	rand "math/rand/v2"
	"testing"
)

// TestTrigStabilityFactor is the neighbour search behind
// TrigStabilityFactor: for bandwidths from narrow to wide and t from 3 to
// 61, it replaces one record x_a by x_b (corners, the query point itself,
// random points) and measures the move of the noise-free trig answer at y,
// (1/n)·|Σ_m w_m(y)(cos mθ_a − cos mθ_b)|, against
// (2^{K+1} − 1)·K_b(1 − e^{−1/(2b²)})/n. It must never exceed the bound
// (the noise cancels, so this is the whole move), and it logs how close
// the search comes.
func TestTrigStabilityFactor(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 43))
	if got := TrigStabilityFactor(TrigJackson); got != 7 {
		t.Fatalf("TrigStabilityFactor(%d) = %g, want 7", TrigJackson, got)
	}
	for _, bw := range []float64{0.005, 0.02, 0.1, 0.5} {
		for _, tt := range []int{3, 11, 31, 61} {
			peak := 1 / (math.Sqrt(2*math.Pi) * bw)
			osc := peak * -math.Expm1(-1/(2*bw*bw))
			bound := TrigStabilityFactor(TrigJackson) * osc
			mu, err := JacksonMultipliers(tt, TrigJackson)
			if err != nil {
				t.Fatal(err)
			}
			w := make([]float64, tt)
			answer := func(x float64) float64 {
				theta := math.Acos(2*x - 1)
				var s float64
				for m, v := range w {
					s += v * math.Cos(float64(m)*theta)
				}
				return s
			}
			worst := 0.0
			for trial := range 60 {
				y := r.Float64()
				if trial < 3 {
					y = []float64{0, 0.5, 1}[trial]
				}
				if _, err := TrigKDEWeightsWith(y, bw, mu, w); err != nil {
					t.Fatal(err)
				}
				xs := []float64{0, 1, y, math.Min(1, y+bw), math.Max(0, y-bw), r.Float64(), r.Float64()}
				for i, a := range xs {
					for _, b := range xs[i+1:] {
						move := math.Abs(answer(a) - answer(b)) // ×n: per record
						worst = max(worst, move/bound)
						if move > bound*(1+1e-6) {
							t.Fatalf("b = %g, t = %d, y = %g: moving a record from %g to %g moves the answer by %g/n > %g/n", bw, tt, y, a, b, move, bound)
						}
					}
				}
			}
			t.Logf("b = %g, t = %d: largest move %.4f of the bound (%.3f of the KDE's own S)", bw, tt, worst, worst*TrigStabilityFactor(TrigJackson))
		}
	}
}
