package mechanism

import (
	"context"
	"errors"
	"flag"
	"math"
	"slices"
	"testing"

	"github.com/google/differential-privacy/go/v3/noise"
)

// Statistical tests of the release noise.
//
// Kolmogorov–Smirnov: by the Dvoretzky–Kiefer–Wolfowitz inequality with
// Massart's constant, P(D_n > t) ≤ 2·exp(−2n·t²) for every continuous F, so
// D_crit = √(ln(2/α)/(2n)) has false-failure rate ≤ α = 1e-6. The library's
// noise is discretised on a grid of spacing ≈ scale·2⁻⁴⁰, far below D_crit.
//
// Variance: with the known mean μ, s² = (1/n)Σ(v−μ)² has
// Var(s²) = σ⁴(κ−1)/n, κ the kurtosis of v. A weighted sum of i.i.d.
// Laplace variables has κ = 3 + 3·Σw⁴/(Σw²)² ≤ 6 (the Laplace kurtosis);
// a Gaussian has κ = 3. We allow 6 standard deviations: the normal tail
// there is 2e-9, and the skewness of s² (≈ γ/√n with γ ≤ 10 for squared
// Laplace sums, n ≥ 6000) moves the 6-SD quantile by under one SD, so the
// false-failure rate stays ≤ 1e-6. The tolerance scales as 1/√n: about ±9.5%
// for 2·10⁴ Laplace releases, ±11% (Gaussian) and ±17% (laplace-approx) for
// 6000 — all far below the factor 2 of a wrong variance formula.

const (
	alphaKS       = 1e-6
	statK         = 4 // m = 5 coefficients per release
	statZ         = 6.0
	statExact     = 0.3
	statSensitive = 0.05
)

var long = flag.Bool("long", false, "run the long statistical tests (10⁵ secure draws for every noise kind)")

// statReleases is the number of releases per statistical test: 2·10⁴
// (10⁵ pooled draws) for Laplace and every simulated kind; for the secure
// laplace-approx and gaussian kinds 6000 (3·10⁴ draws, ≈ 0.3 s each, but
// ≈ 10 s under -race) unless -long is given.
func statReleases(kind NoiseKind, secure bool) int {
	if secure && kind != NoiseLaplace && !*long {
		return 6_000
	}
	return 20_000
}

func ksCritical(n int) float64 { return math.Sqrt(math.Log(2/alphaKS) / (2 * float64(n))) }

func laplaceCDF(scale float64) func(float64) float64 {
	return func(x float64) float64 {
		if x < 0 {
			return 0.5 * math.Exp(x/scale)
		}
		return 1 - 0.5*math.Exp(-x/scale)
	}
}

func normalCDF(sigma float64) func(float64) float64 {
	return func(x float64) float64 { return 0.5 * math.Erfc(-x/(sigma*math.Sqrt2)) }
}

// ksStatistic returns sup_x |F_n(x) − F(x)|.
func ksStatistic(samples []float64, cdf func(float64) float64) float64 {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := float64(len(s))
	var d float64
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

type release interface {
	Coefficients() []float64
	Eval(y []float64) (float64, error)
	NoiseStdAt(y []float64) (float64, error)
}

// checkNoiseStatistics draws statReleases releases of a constant oracle and
// checks the pooled coefficient noise (KS) and the variance of Eval(y0).
func checkNoiseStatistics(t *testing.T, p Params, scale float64, releases int, draw func() (release, error)) {
	t.Helper()
	y0 := []float64{0.3}
	var noiseDraws []float64
	var sumSq float64
	var std float64
	for r := range releases {
		rel, err := draw()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rel.Coefficients() {
			noiseDraws = append(noiseDraws, c-statExact)
		}
		v, err := rel.Eval(y0)
		if err != nil {
			t.Fatal(err)
		}
		sumSq += (v - statExact) * (v - statExact) // B^(h)(constant) = constant
		if r == 0 {
			if std, err = rel.NoiseStdAt(y0); err != nil {
				t.Fatal(err)
			}
		}
	}
	cdf := laplaceCDF(scale)
	kurtosis := 6.0
	if p.Noise == NoiseGaussian {
		cdf, kurtosis = normalCDF(scale), 3
	}
	d, crit := ksStatistic(noiseDraws, cdf), ksCritical(len(noiseDraws))
	if d > crit {
		t.Errorf("%s: KS statistic %.5f > %.5f (n = %d, scale %g)", p.Noise, d, crit, len(noiseDraws), scale)
	}
	n := float64(releases)
	s2, want := sumSq/n, std*std
	tol := statZ * want * math.Sqrt((kurtosis-1)/n)
	if math.Abs(s2-want) > tol {
		t.Errorf("%s: sample variance of Eval(0.3) %.6g, NoiseStd² %.6g (tolerance %.3g)", p.Noise, s2, want, tol)
	}
	t.Logf("%s: KS %.5f (crit %.5f); variance %.6g vs %.6g ± %.3g", p.Noise, d, crit, s2, want, tol)
}

func statParams() []Params {
	return []Params{
		{Epsilon: 1, Noise: NoiseLaplace, K: []int{statK}, H: 2},
		{Epsilon: 1, Delta: 1e-3, Noise: NoiseLaplaceApprox, K: []int{statK}, H: 2},
		{Epsilon: 1, Delta: 1e-5, Noise: NoiseGaussian, K: []int{statK}, H: 2},
	}
}

func constantExact() []float64 {
	exact := make([]float64, statK+1)
	for i := range exact {
		exact[i] = statExact
	}
	return exact
}

func TestSecureNoiseDistribution(t *testing.T) {
	for _, p := range statParams() {
		t.Run(string(p.Noise), func(t *testing.T) {
			t.Parallel()
			scale, err := NoiseScale(statSensitive, p)
			if err != nil {
				t.Fatal(err)
			}
			exact := constantExact()
			checkNoiseStatistics(t, p, scale, statReleases(p.Noise, true), func() (release, error) {
				s, err := SanitizeValues(exact, statSensitive, p)
				if err == nil && (s.Scale != scale || s.Noise != p.Noise || s.Epsilon != p.Epsilon || s.Delta != p.Delta || s.Sensitivity != statSensitive) {
					t.Fatalf("synopsis parameters %v do not match %+v, scale %g", s, p, scale)
				}
				return s, err
			})
			if exact[0] != statExact {
				t.Error("SanitizeValues modified its input")
			}
		})
	}
}

func TestSimulationNoiseDistribution(t *testing.T) {
	for i, p := range statParams() {
		t.Run(string(p.Noise), func(t *testing.T) {
			t.Parallel()
			scale, err := NoiseScale(statSensitive, p)
			if err != nil {
				t.Fatal(err)
			}
			src := NewSimulationNoise(uint64(100 + i))
			exact := constantExact()
			checkNoiseStatistics(t, p, scale, statReleases(p.Noise, false), func() (release, error) {
				return Simulate(exact, statSensitive, p, src)
			})
		})
	}
}

func TestSimulationIsReproducible(t *testing.T) {
	p := Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{6, 6}, H: 2}
	exact := make([]float64, 49)
	a, err := Simulate(exact, 0.1, p, NewSimulationNoise(42))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Simulate(exact, 0.1, p, NewSimulationNoise(42))
	c, _ := Simulate(exact, 0.1, p, NewSimulationNoise(43))
	if !slices.Equal(a.Coefficients(), b.Coefficients()) {
		t.Error("same seed, different simulated releases")
	}
	if slices.Equal(a.Coefficients(), c.Coefficients()) {
		t.Error("different seeds, identical simulated releases")
	}
	if _, err := Simulate(exact, 0.1, p, nil); err == nil {
		t.Error("Simulate with nil source: no error")
	}
	if _, err := Simulate(exact[:10], 0.1, p, NewSimulationNoise(1)); err == nil {
		t.Error("Simulate with 10 values for 49 coefficients: no error")
	}
}

func TestSanitizeValuesRejectsBadInput(t *testing.T) {
	p := Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{2}, H: 1}
	var pe *ParamError
	if _, err := SanitizeValues([]float64{1, 2}, 1, p); !errors.As(err, &pe) || pe.Field != "coefficients" {
		t.Errorf("2 values for 3 coefficients: err = %v", err)
	}
	if _, err := SanitizeValues([]float64{1, math.NaN(), 2}, 1, p); !errors.As(err, &pe) || pe.Field != "coefficients[1]" {
		t.Errorf("NaN value: err = %v", err)
	}
	if _, err := SanitizeValues([]float64{1, 2, 3}, 0, p); !errors.As(err, &pe) || pe.Field != "sensitivity" {
		t.Errorf("sensitivity 0: err = %v", err)
	}
	if _, err := Sanitize(context.Background(), funcOracle{2, func([]float64) float64 { return 0 }}, 1, p, nil); err == nil {
		t.Error("Sanitize with a 2-D oracle and 1-D parameters: no error")
	}
}

func TestSecureNoiseErrorsPropagate(t *testing.T) {
	bad := &secureNoise{n: noise.Laplace(), l0: 0, lInf: 1, eps: 1}
	if _, err := bad.add(1); err == nil {
		t.Error("secure noise with l0 = 0: no error")
	}
}

func TestSanitizeEndToEnd(t *testing.T) {
	f := funcOracle{2, func(y []float64) float64 { return y[0] + 2*y[1] }}
	p := Params{Epsilon: 1, Noise: NoiseLaplace, K: []int{3, 3}, H: 2}
	var last int
	s, err := Sanitize(context.Background(), f, 1e-9, p, func(done, total int) { last = done })
	if err != nil {
		t.Fatal(err)
	}
	if last != 16 {
		t.Errorf("progress ended at %d, want 16", last)
	}
	// λ = 1.6e-8: the release equals the (linear, hence reproduced)
	// function up to noise of that size.
	v, _ := s.Eval([]float64{0.25, 0.5})
	if math.Abs(v-1.25) > 1e-5 {
		t.Errorf("Eval = %g, want ≈ 1.25", v)
	}
	if s.Scale != 16e-9 {
		t.Errorf("Scale = %g, want 1.6e-8", s.Scale)
	}
}

func TestRestoreSynopsis(t *testing.T) {
	p := Params{Epsilon: 0.5, Delta: 1e-6, Noise: NoiseGaussian, K: []int{3, 2}, H: 3}
	orig, err := SanitizeValues(make([]float64, 12), 0.1, p)
	if err != nil {
		t.Fatal(err)
	}
	restore := func(mod func(k *[]int, h *int, c *[]float64, kind *NoiseKind, scale, eps, delta, s *float64)) (*Synopsis, error) {
		k, h, c, kind := slices.Clone(orig.K()), orig.H(), slices.Clone(orig.Coefficients()), orig.Noise
		scale, eps, delta, s := orig.Scale, orig.Epsilon, orig.Delta, orig.Sensitivity
		mod(&k, &h, &c, &kind, &scale, &eps, &delta, &s)
		return RestoreSynopsis(k, h, c, kind, scale, eps, delta, s)
	}
	got, err := restore(func(*[]int, *int, *[]float64, *NoiseKind, *float64, *float64, *float64, *float64) {})
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0.3, 0.7}
	a, _ := orig.Eval(y)
	b, _ := got.Eval(y)
	if a != b || got.Params().Noise != NoiseGaussian || got.Scale != orig.Scale {
		t.Errorf("restored synopsis differs: Eval %g vs %g", b, a)
	}
	if _, err := restore(func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, scale, _, _, _ *float64) { *scale *= 1 + 1e-14 }); err != nil {
		t.Errorf("scale within 1e-12: %v", err)
	}
	bad := []struct {
		name  string
		field string
		mod   func(k *[]int, h *int, c *[]float64, kind *NoiseKind, scale, eps, delta, s *float64)
	}{
		{"scale off by 1e-10", "scale", func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, scale, _, _, _ *float64) { *scale *= 1 + 1e-10 }},
		{"scale halved", "scale", func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, scale, _, _, _ *float64) { *scale /= 2 }},
		{"epsilon changed", "scale", func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, _, eps, _, _ *float64) { *eps = 1 }},
		{"kind laplace with delta", "delta", func(_ *[]int, _ *int, _ *[]float64, kind *NoiseKind, _, _, _, _ *float64) { *kind = NoiseLaplace }},
		{"unknown kind", "noise", func(_ *[]int, _ *int, _ *[]float64, kind *NoiseKind, _, _, _, _ *float64) { *kind = "x" }},
		{"h 0", "h", func(_ *[]int, h *int, _ *[]float64, _ *NoiseKind, _, _, _, _ *float64) { *h = 0 }},
		{"k changed", "coefficients", func(k *[]int, _ *int, _ *[]float64, _ *NoiseKind, _, _, _, _ *float64) { *k = []int{3, 3} }},
		{"NaN coefficient", "coefficients[5]", func(_ *[]int, _ *int, c *[]float64, _ *NoiseKind, _, _, _, _ *float64) { (*c)[5] = math.NaN() }},
		{"sensitivity negative", "sensitivity", func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, _, _, _, s *float64) { *s = -1 }},
		{"epsilon NaN", "epsilon", func(_ *[]int, _ *int, _ *[]float64, _ *NoiseKind, _, eps, _, _ *float64) { *eps = math.NaN() }},
	}
	for _, c := range bad {
		_, err := restore(c.mod)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("%s: err = %v, want a ParamError for %s", c.name, err, c.field)
		}
	}
}
