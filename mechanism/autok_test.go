package mechanism

import (
	"errors"
	"math"
	"testing"
)

// All predictions use the fixed public seed predictSeed, so these tests are
// deterministic: their false-failure rate is 0 (a tolerance below covers
// the Monte Carlo error of the 48-draw prediction against a 400-draw
// reference, about 5% relative at one standard error).

func bumpStandIn(amp float64, scales ...float64) StandIn {
	return StandIn{Amplitude: amp, Scale: scales}
}

func TestAutoKAffineStandInIsOne(t *testing.T) {
	for _, noise := range []NoiseKind{NoiseLaplace, NoiseGaussian} {
		for _, eps := range []float64{0.1, 1, 10} {
			for _, dim := range []int{1, 2} {
				p := Params{Epsilon: eps, Noise: noise, H: 3}
				if noise == NoiseGaussian {
					p.Delta = 1e-6
				}
				k, err := AutoK(p, dim, 1e-3, bumpStandIn(1, make([]float64, dim)...))
				if err != nil {
					t.Fatal(err)
				}
				if k != 1 {
					t.Errorf("%s ε = %g ℓ = %d: affine stand-in got k = %d; want 1 (every order reproduces affine functions, noise grows with k)", noise, eps, dim, k)
				}
			}
		}
	}
}

func TestAutoKGrowsWithEpsilonAndRoughness(t *testing.T) {
	prev := 0
	for _, eps := range []float64{0.1, 0.3, 1, 3, 10} {
		p := Params{Epsilon: eps, Noise: NoiseLaplace, H: 3}
		k, err := AutoK(p, 1, 0.018, bumpStandIn(3.6, 0.11))
		if err != nil {
			t.Fatal(err)
		}
		if k < prev {
			t.Errorf("ε = %g: k = %d < %d at the smaller ε; want non-decreasing", eps, k, prev)
		}
		prev = k
	}
	if prev < 20 {
		t.Errorf("ε = 10: k = %d; want ≥ 20 for a bump of scale 0.11", prev)
	}
	// A narrower bump (same ε, S) needs at least as fine a lattice.
	p := Params{Epsilon: 1, Noise: NoiseLaplace, H: 1}
	wide, _ := AutoK(p, 1, 0.018, bumpStandIn(3.6, 0.3))
	narrow, _ := AutoK(p, 1, 0.018, bumpStandIn(3.6, 0.05))
	if narrow <= wide {
		t.Errorf("k = %d for scale 0.05, %d for scale 0.3; want the narrower bump to get the larger k", narrow, wide)
	}
}

// TestPredictedErrorNoiseOnly checks the prediction for a constant stand-in
// (no approximation error) against the mean sup-norm error of 400 releases
// by Simulate on the same grid: within 15% relative.
func TestPredictedErrorNoiseOnly(t *testing.T) {
	for _, tc := range []struct {
		k, h int
	}{{1, 1}, {8, 1}, {8, 3}, {30, 2}} {
		p := Params{Epsilon: 1, Noise: NoiseLaplace, H: tc.h, K: []int{tc.k}}
		got, err := PredictedError(p, 0.01, bumpStandIn(1, 0))
		if err != nil {
			t.Fatal(err)
		}
		exact := make([]float64, tc.k+1)
		src := NewSimulationNoise(99)
		gn := predictGrid(1)
		sum := 0.0
		const draws = 400
		for range draws {
			rel, err := Simulate(exact, 0.01, p, src)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i := range gn {
				v, err := rel.Eval([]float64{float64(i) / float64(gn-1)})
				if err != nil {
					t.Fatal(err)
				}
				worst = max(worst, math.Abs(v))
			}
			sum += worst
		}
		want := sum / draws
		if math.Abs(got-want) > 0.15*want {
			t.Errorf("k = %d h = %d: predicted %.4g, simulated %.4g; want within 15%%", tc.k, tc.h, got, want)
		}
	}
}

func TestResolveKAutoRules(t *testing.T) {
	p := Params{Epsilon: 1, Noise: NoiseLaplace, H: 3}
	f := bumpStandIn(3.6, 0.11)
	got, err := ResolveK(p, 1, true, 0, 0.018, f)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := AutoK(p, 1, 0.018, f)
	if got.K[0] != want {
		t.Errorf("ResolveK with a stand-in: k = %v; want AutoK's %d", got.K, want)
	}
	got, err = ResolveK(p, 2, true, 0, 0.018, StandIn{})
	if err != nil {
		t.Fatal(err)
	}
	if k := OptimalK(1, 0.018, DefaultBeta, 3, 2); got.K[0] != k || got.K[1] != k {
		t.Errorf("ResolveK without a stand-in: k = %v; want the paper's k* = %d on both axes", got.K, k)
	}
}

func TestAutoKRefusesBadInput(t *testing.T) {
	p := Params{Epsilon: 1, Noise: NoiseLaplace, H: 2}
	for name, tc := range map[string]struct {
		p    Params
		dim  int
		s    float64
		f    StandIn
		want string
	}{
		"amplitude":   {p, 1, 0.1, bumpStandIn(-1, 0.1), "stand-in amplitude"},
		"scale count": {p, 2, 0.1, bumpStandIn(1, 0.1), "stand-in scale"},
		"scale NaN":   {p, 1, 0.1, bumpStandIn(1, math.NaN()), "stand-in scale"},
		"shape":       {p, 1, 0.1, StandIn{Shape: 7, Amplitude: 1, Scale: []float64{0.1}}, "stand-in shape"},
		"sensitivity": {p, 1, -1, bumpStandIn(1, 0.1), "sensitivity"},
		"epsilon":     {Params{Epsilon: -1, Noise: NoiseLaplace, H: 2}, 1, 0.1, bumpStandIn(1, 0.1), "epsilon"},
	} {
		_, err := AutoK(tc.p, tc.dim, tc.s, tc.f)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != tc.want {
			t.Errorf("%s: err = %v; want a *ParamError on %q", name, err, tc.want)
		}
	}
}

func TestAutoKCandidates(t *testing.T) {
	ks := autoKCandidates(1000)
	if ks[0] != 1 || ks[11] != 12 || ks[len(ks)-1] > 1000 {
		t.Errorf("candidates %v: want 1..12 first, none above 1000", ks)
	}
	for i := 1; i < len(ks); i++ {
		if r := float64(ks[i]) / float64(ks[i-1]); ks[i] <= ks[i-1] || (ks[i-1] >= 12 && r > 1.16) {
			t.Errorf("step %d → %d: want increasing, at most 16%%", ks[i-1], ks[i])
		}
	}
}

// BenchmarkAutoK2D is the preview's cost of the automatic k for a 2-D
// density (the prediction is the dominant part).
func BenchmarkAutoK2D(b *testing.B) {
	p := Params{Epsilon: 3, Noise: NoiseLaplace, H: 3}
	f := bumpStandIn(8, 0.11, 0.11)
	for b.Loop() {
		if _, err := AutoK(p, 2, 0.002, f); err != nil {
			b.Fatal(err)
		}
	}
}
