package peers

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestOutputPerturbationNoiseMoments checks the law of b: its norm is
// Gamma(d, θ = Δ₂/ε) (mean dθ, variance dθ²) and its direction u = b/‖b‖
// is uniform on the sphere (E u_j = 0, E u_j² = 1/d).
//
// Tolerances: with N = 20000 i.i.d. draws every checked statistic is a
// sample mean (or, for the variance, a sample variance) whose standard
// error is known exactly: θ√(d/N) for the mean norm; θ²d·√((2 + 6/d)/N)
// for the variance of the norm (Gamma's excess kurtosis is 6/d);
// 1/√(dN) for mean u_j (Var u_j = 1/d); √((3/(d(d+2)) − 1/d²)/N) for mean
// u_j² (E u_j⁴ = 3/(d(d+2)) on the sphere). Each check allows 4.5 standard
// errors: by the central limit theorem a correct sampler fails one check
// with probability ≈ 6.8e-6, and the 2 + 2d checks for d = 1, 2, 5, 10 (44
// in all) together with probability < 3e-4 for a random seed. The seeds are
// fixed, so the test is deterministic.
func TestOutputPerturbationNoiseMoments(t *testing.T) {
	const n = 20000
	const z = 4.5
	for _, d := range []int{1, 2, 5, 10} {
		t.Run(fmt.Sprintf("d=%d", d), func(t *testing.T) {
			sens, eps := 0.3, 0.7
			theta := sens / eps
			src := mechanism.NewSimulationNoise(uint64(1000 + d))
			var sumR, sumR2 float64
			mean := make([]float64, d)
			sq := make([]float64, d)
			for range n {
				b, err := OutputPerturbationNoise(d, sens, eps, src)
				if err != nil {
					t.Fatal(err)
				}
				var r2 float64
				for _, v := range b {
					r2 += v * v
				}
				r := math.Sqrt(r2)
				sumR += r
				sumR2 += r * r
				for j, v := range b {
					u := v / r
					mean[j] += u
					sq[j] += u * u
				}
			}
			fd := float64(d)
			mR := sumR / n
			if tol := z * theta * math.Sqrt(fd/n); math.Abs(mR-fd*theta) > tol {
				t.Errorf("E‖b‖: sample mean %.5g, want dΔ₂/ε = %.5g ± %.3g", mR, fd*theta, tol)
			}
			vR := (sumR2 - n*mR*mR) / (n - 1)
			if tol := z * theta * theta * fd * math.Sqrt((2+6/fd)/n); math.Abs(vR-fd*theta*theta) > tol {
				t.Errorf("Var ‖b‖: sample %.5g, want dθ² = %.5g ± %.3g", vR, fd*theta*theta, tol)
			}
			for j := range d {
				m := mean[j] / n
				if tol := z / math.Sqrt(fd*n); math.Abs(m) > tol {
					t.Errorf("E u_%d: %.4g, want 0 ± %.3g", j, m, tol)
				}
				s := sq[j] / n
				sd := math.Sqrt(math.Max(0, 3/(fd*(fd+2))-1/(fd*fd)) / n)
				if tol := z*sd + 1e-12; math.Abs(s-1/fd) > tol {
					t.Errorf("E u_%d²: %.4g, want 1/d = %.4g ± %.3g", j, s, 1/fd, tol)
				}
			}
		})
	}
}

// TestOutputPerturbationNoiseScaling: the draw is θ times a unit draw from
// the same stream, so Δ₂/ε enters only as a factor.
func TestOutputPerturbationNoiseScaling(t *testing.T) {
	a, err := OutputPerturbationNoise(4, 1, 1, mechanism.NewSimulationNoise(5))
	if err != nil {
		t.Fatal(err)
	}
	b, err := OutputPerturbationNoise(4, 0.2, 0.05, mechanism.NewSimulationNoise(5))
	if err != nil {
		t.Fatal(err)
	}
	for j := range a {
		if math.Abs(b[j]-4*a[j]) > 1e-14*math.Abs(b[j]) {
			t.Errorf("b[%d] = %v, want 4·%v", j, b[j], a[j])
		}
	}
}

func TestOutputPerturbationNoiseErrors(t *testing.T) {
	src := mechanism.NewSimulationNoise(1)
	for _, tc := range []struct {
		d         int
		sens, eps float64
		src       NoiseSource
		want      string
	}{
		{0, 1, 1, src, "d = 0"},
		{MaxOutputPerturbationDim + 1, 1, 1, src, "d = "},
		{2, 0, 1, src, "Δ₂ = 0"},
		{2, math.NaN(), 1, src, "Δ₂ = NaN"},
		{2, math.Inf(1), 1, src, "Δ₂ = +Inf"},
		{2, 1, -1, src, "epsilon = -1"},
		{2, 1, math.Inf(1), src, "epsilon = +Inf"},
		{2, 1, 1, nil, "nil"},
	} {
		if _, err := OutputPerturbationNoise(tc.d, tc.sens, tc.eps, tc.src); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OutputPerturbationNoise(%d, %v, %v): err = %v, want %q", tc.d, tc.sens, tc.eps, err, tc.want)
		}
	}
}

func TestLinearRelease(t *testing.T) {
	lift := func(y, out []float64) { out[0], out[1] = y[0], 1 }
	r, err := NewLinearRelease([]float64{2, -1}, []float64{0.5, 0.25}, 1, lift, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Eval([]float64{0.5}); got != 0.5 { // 2.5·0.5 − 0.75
		t.Errorf("score Eval(0.5) = %v, want 0.5", got)
	}
	if got := r.Weights(); fmt.Sprint(got) != "[2.5 -0.75]" {
		t.Errorf("Weights = %v", got)
	}
	s, err := NewLinearRelease([]float64{0, 0}, []float64{0, 0}, 1, lift, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Eval([]float64{0.3}); got != 0.5 {
		t.Errorf("sigmoid Eval = %v, want 0.5", got)
	}
	for _, tc := range []struct {
		w, b []float64
		dim  int
		lift func(y, out []float64)
		want string
	}{
		{nil, nil, 1, lift, "no weights"},
		{[]float64{1}, []float64{1, 2}, 1, lift, "2 noise values for 1 weights"},
		{[]float64{1}, []float64{1}, 0, lift, "dim = 0"},
		{[]float64{1}, []float64{1}, 1, nil, "lift is nil"},
		{[]float64{1}, []float64{math.Inf(1)}, 1, lift, "must be finite"},
	} {
		if _, err := NewLinearRelease(tc.w, tc.b, tc.dim, tc.lift, false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewLinearRelease: err = %v, want %q", err, tc.want)
		}
	}
}

// Output perturbation of a two-weight linear score: draw b with density
// ∝ exp(−(ε/Δ₂)‖b‖) from a seeded simulation source (a real release would
// use a crypto-seeded one) and evaluate the perturbed score.
func ExampleOutputPerturbationNoise() {
	w := []float64{1.2, -0.4} // fitted weights (private)
	sens2, eps := 0.02, 1.0   // Δ₂ = 2C/n·1.01 for C = 1, n = 101; ε
	b, err := OutputPerturbationNoise(len(w), sens2, eps, mechanism.NewSimulationNoise(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	lift := func(y, out []float64) { out[0], out[1] = 2*y[0]-1, 1 }
	rel, err := NewLinearRelease(w, b, 1, lift, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("‖b‖ < 0.2: %v; score at 0.75 ≈ %.1f\n", math.Hypot(b[0], b[1]) < 0.2, rel.Eval([]float64{0.75}))
	// Output: ‖b‖ < 0.2: true; score at 0.75 ≈ 0.2
}
