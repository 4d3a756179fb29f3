package peers

import (
	"math"
	rand "math/rand/v2"
	"testing"
)

// noisySummary returns the Jackson multipliers of t moments and a summary
// with S_0 = 1 and S_1..S_{t−1} uniform in ±size (seeded from r).
func noisySummary(t *testing.T, r *rand.Rand, tt int, size float64) (mu, s []float64) {
	t.Helper()
	mu, err := JacksonMultipliers(tt, TrigJackson)
	if err != nil {
		t.Fatal(err)
	}
	s = make([]float64, tt)
	s[0] = 1
	for m := 1; m < tt; m++ {
		s[m] = (2*r.Float64() - 1) * size
	}
	return mu, s
}

// TestTrigKDEAnswersSameAsWeights: the node sum of TrigKDEAnswers gives
// the answers of the weights TrigKDEWeightsWith (the wang-trig file's
// evaluation) to 10⁻¹² of Σ_m |w_m·s_m|, for narrow to wide bandwidths, t
// from 1 to 200, noisy moments and points at and between the ends.
func TestTrigKDEAnswersSameAsWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 61))
	for _, bw := range []float64{MinTrigBandwidth, 0.03, 0.2, 1} {
		for _, tt := range []int{1, 4, 31, 200} {
			mu, s := noisySummary(t, r, tt, 1)
			ys := []float64{0, 1, 0.5, bw, 1 - bw}
			for range 20 {
				ys = append(ys, r.Float64())
			}
			got := make([]float64, len(ys))
			if err := TrigKDEAnswers(ys, bw, mu, s, got); err != nil {
				t.Fatal(err)
			}
			for i, y := range ys {
				w, err := TrigKDEWeightsWith(y, bw, mu, nil)
				if err != nil {
					t.Fatal(err)
				}
				var want, scale float64
				for m, v := range w {
					want += v * s[m]
					scale += math.Abs(v * s[m])
				}
				if math.Abs(got[i]-want) > 1e-12*max(scale, 1) {
					t.Fatalf("b = %g, t = %d, y = %g: %.17g, weights give %.17g", bw, tt, y, got[i], want)
				}
			}
		}
	}
	if err := TrigKDEAnswers([]float64{0.5}, 0.1, []float64{1}, []float64{1, 2}, []float64{0}); err == nil {
		t.Error("moments of another length than the multipliers accepted")
	}
	if err := TrigKDEAnswers([]float64{1.5}, 0.1, []float64{1}, []float64{1}, []float64{0}); err == nil {
		t.Error("a point outside [0,1] accepted")
	}
}

// TestTrigMinMoments: below TrigMinMoments(K) every multiplier μ_m, m ≥ 1,
// is 0 (the release is a constant); from it on, μ_1 > 0.
func TestTrigMinMoments(t *testing.T) {
	for k := 0; k <= MaxJacksonK; k++ {
		for tt := 1; tt <= 40; tt++ {
			mu, err := JacksonMultipliers(tt, k)
			if err != nil {
				t.Fatal(err)
			}
			constant := true
			for _, v := range mu[1:] {
				constant = constant && v == 0
			}
			if want := tt < TrigMinMoments(k); constant != want {
				t.Fatalf("K = %d, t = %d: constant %v, TrigMinMoments %d", k, tt, constant, TrigMinMoments(k))
			}
		}
	}
}

// TestTrigKDEAnswersCutoffExact: the nodes beyond 39·b of a point add
// exactly 0 in float64 (e^{−39²/2} underflows), so TrigKDEAnswers is bit
// for bit the sum over every node, for bandwidths from the smallest to 1,
// t up to 300, large noisy moments and points at the ends, near them and
// on the nodes. A cutoff at 9·b, which drops terms that do not underflow,
// differs (the test's power).
func TestTrigKDEAnswersCutoffExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	short := 0
	for range 60 {
		bw := MinTrigBandwidth * math.Pow(1/MinTrigBandwidth, r.Float64())
		tt := 1 + r.IntN(300)
		mu, s := noisySummary(t, r, tt, 10)
		ys := make([]float64, 200)
		for i := range ys {
			switch i % 4 {
			case 0:
				ys[i] = r.Float64()
			case 1:
				ys[i] = r.Float64() * 1e-3
			case 2:
				ys[i] = 1 - r.Float64()*1e-3
			default:
				ys[i] = float64(r.IntN(trigQuadrature+1)) / trigQuadrature
			}
		}
		got, all, cut9 := make([]float64, len(ys)), make([]float64, len(ys)), make([]float64, len(ys))
		if err := TrigKDEAnswers(ys, bw, mu, s, got); err != nil {
			t.Fatal(err)
		}
		if err := trigKDEAnswers(ys, bw, mu, s, all, math.Inf(1)); err != nil {
			t.Fatal(err)
		}
		if err := trigKDEAnswers(ys, bw, mu, s, cut9, 9); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != all[i] {
				t.Fatalf("b = %g, t = %d, y = %g: %v with the cutoff, %v over every node", bw, tt, ys[i], got[i], all[i])
			}
			if cut9[i] != all[i] {
				short++
			}
		}
	}
	if short == 0 {
		t.Error("a cutoff at 9·b gave the same bits everywhere: the test cannot see a wrong cutoff")
	}
}
