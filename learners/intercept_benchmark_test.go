package learners

import (
	"context"
	"math"
	rand "math/rand/v2" // seeded: test data and simulated releases only
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// interceptBenchmarkData generates the real-world-like benchmark of issue
// 17 ("Numbers to hold"): n = 569 records, unbalanced classes (357 of label
// −1, 63 %, and 212 of label +1, 37 %), two informative features with
// overlapping classes. The classes are Gaussian clouds modelled on the
// two-feature breast-cancer table the issue describes (mean radius and
// mean texture of a cell nucleus, mapped by public bounds [5, 30] and
// [5, 45], correlation 0.3): label −1 around (0.286, 0.323) with standard
// deviations (0.071, 0.100), label +1 around (0.498, 0.415) with (0.128,
// 0.095), clipped to [0,1]². As with real data mapped by generous public
// bounds, the classes sit off the centre of the domain, so a decision
// boundary through the centre cannot separate them.
func interceptBenchmarkData(seed uint64) Dataset {
	const n, nPos = 569, 212
	r := rand.New(rand.NewPCG(seed, 569))
	d := Dataset{Dim: 2, X: make([]float64, 0, 2*n), Labels: make([]float64, 0, n)}
	for i := range n {
		l, m0, m1, s0, s1 := -1.0, 0.286, 0.323, 0.071, 0.100
		if i < nPos {
			l, m0, m1, s0, s1 = 1, 0.498, 0.415, 0.128, 0.095
		}
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		x0 := m0 + s0*z0
		x1 := m1 + s1*(0.3*z0+math.Sqrt(1-0.3*0.3)*z1)
		d.X = append(d.X, clamp01(x0), clamp01(x1))
		d.Labels = append(d.Labels, l)
	}
	return d
}

// interceptAgreement returns the share of the records where the signs of a
// and b agree (class +1 where ≥ thr).
func interceptAgreement(d Dataset, a, b func(y []float64) float64, thr float64) float64 {
	agree := 0
	for i := range d.N() {
		y := d.X[i*d.Dim : (i+1)*d.Dim]
		if (a(y) >= thr) == (b(y) >= thr) {
			agree++
		}
	}
	return float64(agree) / float64(d.N())
}

// interceptSimulatedAgreement simulates releases of fit at ε with the
// automatic k (h, β = 0.05, Laplace noise, seeded preview sampler) and
// returns the agreement of each simulated release with the non-private fit
// on the records.
func interceptSimulatedAgreement(t *testing.T, d Dataset, fit *Fitted, eps float64, h, k, draws int, seed uint64) []float64 {
	t.Helper()
	if k == 0 {
		k = mechanism.OptimalK(eps, fit.Sensitivity, 0.05, h, d.Dim)
	}
	p := mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, K: []int{k, k}, H: h}
	lat, err := mechanism.NewLattice(p.K)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := mechanism.EvaluateLattice(context.Background(), fit.Oracle, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	src := mechanism.NewSimulationNoise(seed)
	out := make([]float64, draws)
	for i := range out {
		rel, err := mechanism.Simulate(exact, fit.Sensitivity, p, src)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = interceptAgreement(d, fit.Oracle.Eval, func(y []float64) float64 {
			v, err := rel.Eval(y)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}, 0)
	}
	return out
}

// TestInterceptBenchmarkAccuracy pins the training accuracy of the
// non-private fits on interceptBenchmarkData(1) with and without the
// intercept, against the majority rate 357/569 = 0.627 (docs/reproduction.md,
// "Intercepts on an unbalanced benchmark"). The data are seeded, so each
// figure is a count of records out of 569 and is compared within half a
// record. The findings it holds:
//
//   - at the default C = 1, σ = 1 the SVM is the majority classifier with
//     and without the intercept constant: with Cκ² ≤ 1 the exact optimum is
//     α = C/n, F = (C/n)Σ l_i K_c(·, d_i), and the constant c adds
//     c·(C/n)(n₊ − n₋), which has the majority's sign — a regularised
//     intercept does not undo strong regularisation;
//   - a regularised intercept helps only where the fit is weakly
//     regularised: logistic regression at C = 300 gains 0.065 with b = 1
//     over b = 0, while at C ≤ 30 the intercept (b = 1, 3) pulls the fit to
//     the majority class.
func TestInterceptBenchmarkAccuracy(t *testing.T) {
	d := interceptBenchmarkData(1)
	const majority = 357.0 / 569
	cases := []struct {
		l    Learner
		v    Values
		want float64 // training accuracy
	}{
		{NewSVM(), Values{"C": {1}, "sigma": {1}, "intercept": {0}}, 0.627},
		{NewSVM(), Values{"C": {1}, "sigma": {1}, "intercept": {1}}, 0.627},
		{NewSVM(), Values{"C": {3}, "sigma": {0.3}, "intercept": {0}}, 0.705},
		{NewSVM(), Values{"C": {3}, "sigma": {0.3}, "intercept": {1}}, 0.627},
		{NewSVM(), Values{"C": {30}, "sigma": {0.3}, "intercept": {0}}, 0.882},
		{NewSVM(), Values{"C": {30}, "sigma": {0.3}, "intercept": {4}}, 0.884},
		{NewSVM(), Values{"C": {100}, "sigma": {1}, "intercept": {0}}, 0.861},
		{NewSVM(), Values{"C": {100}, "sigma": {1}, "intercept": {1}}, 0.861},
		{NewLogistic(), Values{"C": {1}, "intercept": {0}}, 0.763},
		{NewLogistic(), Values{"C": {1}, "intercept": {1}}, 0.627},
		{NewLogistic(), Values{"C": {3}, "intercept": {0}}, 0.766},
		{NewLogistic(), Values{"C": {30}, "intercept": {0}}, 0.787},
		{NewLogistic(), Values{"C": {30}, "intercept": {1}}, 0.707},
		{NewLogistic(), Values{"C": {300}, "intercept": {0}}, 0.812},
		{NewLogistic(), Values{"C": {300}, "intercept": {1}}, 0.877},
	}
	for _, c := range cases {
		f, err := c.l.Fit(context.Background(), d, c.v)
		if err != nil {
			t.Fatal(err)
		}
		acc := ermAccuracy(f.Oracle, d, 0)
		t.Logf("%s %v: accuracy %.3f (majority %.3f), S = %.4g", c.l.Spec().Kind, c.v, acc, majority, f.Sensitivity)
		if math.Abs(acc-c.want) > 0.5/569+0.0005 {
			t.Errorf("%s %v: accuracy %.4f, want %.3f (docs/reproduction.md)", c.l.Spec().Kind, c.v, acc, c.want)
		}
	}
}

// TestInterceptBenchmarkAgreement simulates releases at ε = 1 (Laplace
// noise, h = 1, seeded preview sampler mechanism.NewSimulationNoise) of
// fits that beat the majority class and measures their agreement with the
// non-private classifier on the 569 records: the SVM at C = 3, σ = 0.3
// (automatic k) and logistic regression at C = 3, b = 0 (k = 1: the score
// is affine, so k = 1 is exact and has the fewest coefficients). The mean
// agreement over N releases (400 for the SVM, 2000 for logistic) must be
// ≥ 0.9.
//
// False-failure rate: the seed is fixed, so the test is deterministic; over
// seeds, Chebyshev's inequality bounds the chance that the mean of N falls
// below 0.9 by s²/(N·(μ − 0.9)²), with the measured per-release standard
// deviation s and mean μ: SVM s = 0.017, μ = 0.939, ≤ 5·10⁻⁴; logistic
// s = 0.064, μ = 0.931, ≤ 3·10⁻³. The test also fails if s exceeds the
// cap below, under which the rate stays ≤ 0.02 for μ ≥ 0.92.
func TestInterceptBenchmarkAgreement(t *testing.T) {
	d := interceptBenchmarkData(1)
	cases := []struct {
		l     Learner
		v     Values
		k     int // 0: automatic
		seed  uint64
		draws int
		sdCap float64
	}{
		{NewSVM(), Values{"C": {3}, "sigma": {0.3}, "intercept": {0}}, 0, 41, 400, 0.04},
		{NewLogistic(), Values{"C": {3}, "intercept": {0}}, 1, 42, 2000, 0.12},
	}
	for _, c := range cases {
		draws := float64(c.draws)
		f, err := c.l.Fit(context.Background(), d, c.v)
		if err != nil {
			t.Fatal(err)
		}
		ag := interceptSimulatedAgreement(t, d, f, 1, 1, c.k, c.draws, c.seed)
		var mean, m2, lo float64
		lo = 1
		for _, a := range ag {
			mean += a / draws
			lo = math.Min(lo, a)
		}
		below := 0
		for _, a := range ag {
			m2 += (a - mean) * (a - mean) / (draws - 1)
			if a < 0.9 {
				below++
			}
		}
		sd := math.Sqrt(m2)
		t.Logf("%s %v at ε = 1: agreement mean %.3f, sd %.3f, min %.3f, %d of %d releases below 0.9; accuracy %.3f",
			c.l.Spec().Kind, c.v, mean, sd, lo, below, c.draws, ermAccuracy(f.Oracle, d, 0))
		if mean < 0.9 {
			t.Errorf("%s %v: mean agreement %.4f < 0.9", c.l.Spec().Kind, c.v, mean)
		}
		if sd > c.sdCap {
			t.Errorf("%s %v: per-release sd %.4f > %g: the stated false-failure rate no longer holds", c.l.Spec().Kind, c.v, sd, c.sdCap)
		}
	}
}

// TestInterceptLegacyDefaults: a synopsis, ledger entry or project written
// before the "intercept" parameter existed records no value for it; the
// learners must then mean what they meant then (the SVM without intercept,
// logistic regression on the lift (2x − 1, 1)/√(ℓ+1)). So the default is the
// legacy value, and a fit without the parameter is bit for bit the fit with
// the legacy value given explicitly.
func TestInterceptLegacyDefaults(t *testing.T) {
	d := interceptBenchmarkData(2)
	for _, c := range []struct {
		l      Learner
		legacy float64
		v      Values
	}{
		{NewSVM(), svmInterceptLegacy, Values{"C": {3}, "sigma": {0.3}}},
		{NewLogistic(), logisticInterceptLegacy, Values{"C": {3}}},
	} {
		res, err := c.l.Spec().Resolve(c.v, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Scalar("intercept"); got != c.legacy {
			t.Errorf("%s: default intercept %g, want the legacy %g", c.l.Spec().Kind, got, c.legacy)
		}
		explicit := Values{"intercept": {c.legacy}}
		for k, v := range c.v {
			explicit[k] = v
		}
		f1, err1 := c.l.Fit(context.Background(), d, c.v)
		f2, err2 := c.l.Fit(context.Background(), d, explicit)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if f1.Sensitivity != f2.Sensitivity || f1.SensitivityNote != f2.SensitivityNote {
			t.Errorf("%s: S or note differ without the parameter", c.l.Spec().Kind)
		}
		for _, y := range [][]float64{{0, 0}, {0.3, 0.7}, {1, 0.5}} {
			if a, b := f1.Oracle.Eval(y), f2.Oracle.Eval(y); a != b {
				t.Errorf("%s: F(%v) = %g without the parameter, %g with the legacy value", c.l.Spec().Kind, y, a, b)
			}
		}
	}
}
