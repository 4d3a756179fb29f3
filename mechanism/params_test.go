package mechanism

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/differential-privacy/go/v3/noise"
)

func validParams() Params {
	return Params{Epsilon: 1, Delta: 0, Noise: NoiseLaplace, K: []int{10, 10}, H: 2}
}

func TestValidateRejectsEveryBadParameter(t *testing.T) {
	with := func(f func(p *Params)) Params {
		p := validParams()
		f(&p)
		return p
	}
	cases := []struct {
		name  string
		p     Params
		field string
	}{
		{"epsilon 0", with(func(p *Params) { p.Epsilon = 0 }), "epsilon"},
		{"epsilon -1", with(func(p *Params) { p.Epsilon = -1 }), "epsilon"},
		{"epsilon NaN", with(func(p *Params) { p.Epsilon = math.NaN() }), "epsilon"},
		{"epsilon +Inf", with(func(p *Params) { p.Epsilon = math.Inf(1) }), "epsilon"},
		{"epsilon below 2^-50", with(func(p *Params) { p.Epsilon = 1e-16 }), "epsilon"},
		{"noise empty", with(func(p *Params) { p.Noise = "" }), "noise"},
		{"noise unknown", with(func(p *Params) { p.Noise = "exponential" }), "noise"},
		{"laplace with delta", with(func(p *Params) { p.Delta = 1e-6 }), "delta"},
		{"laplace with NaN delta", with(func(p *Params) { p.Delta = math.NaN() }), "delta"},
		{"gaussian delta 0", with(func(p *Params) { p.Noise = NoiseGaussian }), "delta"},
		{"gaussian delta 1", with(func(p *Params) { p.Noise, p.Delta = NoiseGaussian, 1 }), "delta"},
		{"gaussian delta -0.1", with(func(p *Params) { p.Noise, p.Delta = NoiseGaussian, -0.1 }), "delta"},
		{"approx delta 0", with(func(p *Params) { p.Noise = NoiseLaplaceApprox }), "delta"},
		{"approx delta NaN", with(func(p *Params) { p.Noise, p.Delta = NoiseLaplaceApprox, math.NaN() }), "delta"},
		{"no axes", with(func(p *Params) { p.K = nil }), "k"},
		{"7 axes", with(func(p *Params) { p.K = []int{1, 1, 1, 1, 1, 1, 1} }), "k"},
		{"k_1 = 0", with(func(p *Params) { p.K = []int{3, 0} }), "k[1]"},
		{"k_0 negative", with(func(p *Params) { p.K = []int{-2} }), "k[0]"},
		{"k above MaxK", with(func(p *Params) { p.K = []int{MaxK + 1} }), "k[0]"},
		{"too many coefficients", with(func(p *Params) { p.K = []int{999, 999, 999} }), "k"},
		{"h 0", with(func(p *Params) { p.H = 0 }), "h"},
		{"h 11", with(func(p *Params) { p.H = 11 }), "h"},
		// m = 121, δ = 0.5, ε = 10: ε′ ≈ 0.386 and the composition term
		// m·ε′(e^ε′−1) ≈ 22 exceeds ε/2 = 5.
		{"approx composition exceeds epsilon", Params{Epsilon: 10, Delta: 0.5, Noise: NoiseLaplaceApprox, K: []int{10, 10}, H: 1}, "epsilon"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Validate()
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate(%+v) = %v, want a *ParamError", c.p, err)
			}
			if pe.Field != c.field || !strings.HasPrefix(err.Error(), c.field+" = ") {
				t.Errorf("error %q names field %q, want %q", err, pe.Field, c.field)
			}
			if _, err := NoiseScale(1, c.p); err == nil {
				t.Error("NoiseScale accepted the parameters")
			}
			if _, err := SanitizeValues(make([]float64, 4), 1, c.p); err == nil {
				t.Error("SanitizeValues accepted the parameters")
			}
		})
	}
}

func TestParamErrorMessage(t *testing.T) {
	p := validParams()
	p.Epsilon = -1
	if got, want := p.Validate().Error(), "epsilon = -1: must be > 0 and finite"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

func TestValidateAcceptsGoodParameters(t *testing.T) {
	for _, p := range []Params{
		validParams(),
		{Epsilon: 0.01, Delta: 1e-6, Noise: NoiseGaussian, K: []int{20, 20, 20}, H: 3},
		{Epsilon: 1, Delta: 1e-5, Noise: NoiseLaplaceApprox, K: []int{20, 20}, H: 1},
		{Epsilon: 5, Noise: NoiseLaplace, K: []int{9, 9, 9, 9, 9, 9}, H: MaxH},
		{Epsilon: 1, Noise: NoiseLaplace, K: []int{MaxK}, H: 1},
	} {
		if err := p.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", p, err)
		}
	}
}

func TestValidateSensitivity(t *testing.T) {
	for _, s := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		var pe *ParamError
		if err := ValidateSensitivity(s); !errors.As(err, &pe) || pe.Field != "sensitivity" {
			t.Errorf("ValidateSensitivity(%g) = %v", s, err)
		}
	}
	if err := ValidateSensitivity(1e-9); err != nil {
		t.Error(err)
	}
}

func TestNoiseScale(t *testing.T) {
	const s = 0.02
	m := 11.0 * 11
	cases := []struct {
		p    Params
		want float64
	}{
		{Params{Epsilon: 0.5, Noise: NoiseLaplace, K: []int{10, 10}, H: 2}, s * m / 0.5},
		{Params{Epsilon: 0.5, Delta: 1e-5, Noise: NoiseLaplaceApprox, K: []int{10, 10}, H: 2},
			2 * s * math.Sqrt(2*m*math.Log(1e5)) / 0.5},
		{Params{Epsilon: 0.5, Delta: 1e-5, Noise: NoiseGaussian, K: []int{10, 10}, H: 2},
			noise.SigmaForGaussian(121, s, 0.5, 1e-5)},
	}
	for _, c := range cases {
		got, err := NoiseScale(s, c.p)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-13*c.want {
			t.Errorf("%s: NoiseScale = %.17g, want %.17g", c.p.Noise, got, c.want)
		}
	}
	// The Gaussian σ is at least the classical bound's order and at most it:
	// Balle–Wang is tighter than √(2 ln(1.25/δ))·Δ₂/ε for ε < 1.
	sigma, _ := NoiseScale(s, cases[2].p)
	classical := math.Sqrt(2*math.Log(1.25/1e-5)) * s * math.Sqrt(m) / 0.5
	if !(sigma < classical && sigma > classical/3) {
		t.Errorf("σ = %g, classical Gaussian σ = %g", sigma, classical)
	}
	if _, err := NoiseScale(1e300, Params{Epsilon: 1e-10, Noise: NoiseLaplace, K: []int{100, 100}, H: 1}); err == nil {
		t.Error("NoiseScale with an overflowing scale: no error")
	}
}

func TestApproxComposedEpsilon(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 1e-5, Noise: NoiseLaplaceApprox, K: []int{20, 20}, H: 1}
	m := 441.0
	ep := 1 / (2 * math.Sqrt(2*m*math.Log(1e5)))
	want := 0.5 + m*ep*math.Expm1(ep)
	if got := ApproxComposedEpsilon(p); math.Abs(got-want) > 1e-15 || got > 1 {
		t.Errorf("ApproxComposedEpsilon = %.17g, want %.17g ≤ 1", got, want)
	}
	// The check is tight: just below the threshold ε where ε/2 + m ε′(e^ε′−1) = ε
	// Validate accepts, just above it refuses.
	p = Params{Delta: 0.01, Noise: NoiseLaplaceApprox, K: []int{3}, H: 1}
	lo, hi := 1.0, 100.0
	for range 100 {
		mid := (lo + hi) / 2
		p.Epsilon = mid
		if ApproxComposedEpsilon(p) <= mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	p.Epsilon = lo * (1 - 1e-9)
	if err := p.Validate(); err != nil {
		t.Errorf("ε = %g just below the composition threshold: %v", p.Epsilon, err)
	}
	p.Epsilon = lo * (1 + 1e-6)
	if err := p.Validate(); err == nil {
		t.Errorf("ε = %g above the composition threshold: accepted (ε_total = %g)", p.Epsilon, ApproxComposedEpsilon(p))
	}
	if !math.IsNaN(ApproxComposedEpsilon(Params{Epsilon: 1, K: []int{3}})) {
		t.Error("ApproxComposedEpsilon with δ = 0 is not NaN")
	}
}

func TestPureIsBetter(t *testing.T) {
	cases := []struct {
		p    Params
		want bool
	}{
		{Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{3}, H: 1}, false},
		// m = 4 ≤ 8 ln(1/δ) ≈ 92: λ_δ ≥ λ.
		{Params{Epsilon: 1, Delta: 1e-5, Noise: NoiseLaplaceApprox, K: []int{3}, H: 1}, true},
		// m = 441 > 92: λ_δ < λ.
		{Params{Epsilon: 1, Delta: 1e-5, Noise: NoiseLaplaceApprox, K: []int{20, 20}, H: 1}, false},
		{Params{Epsilon: 1, Delta: 1e-5, Noise: NoiseGaussian, K: []int{1}, H: 1}, true},
		{Params{Epsilon: 1, Delta: 1e-5, Noise: NoiseGaussian, K: []int{20, 20}, H: 1}, false},
		{Params{Epsilon: -1, Delta: 1e-5, Noise: NoiseGaussian, K: []int{1}, H: 1}, false},
	}
	for _, c := range cases {
		if got := PureIsBetter(c.p); got != c.want {
			t.Errorf("PureIsBetter(%+v) = %v, want %v", c.p, got, c.want)
		}
	}
}
