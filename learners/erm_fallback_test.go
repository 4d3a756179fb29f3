package learners

import (
	"context"
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"
)

// withErmFallback sets the test seam ermForceFallback to force for the rest
// of the (sequential) test. Tests that use it must not call t.Parallel: the
// seam is a package variable.
func withErmFallback(t *testing.T, force func(Dataset) bool) {
	t.Helper()
	ermForceFallback = force
	t.Cleanup(func() { ermForceFallback = nil })
}

// ermMaxDiff returns max |a(y) − b(y)| over 200 seeded uniform queries.
func ermMaxDiff(a, b interface{ Eval([]float64) float64 }, dim int, seed uint64) float64 {
	g := rand.New(rand.NewPCG(seed, 42))
	y := make([]float64, dim)
	worst := 0.0
	for range 200 {
		for j := range y {
			y[j] = g.Float64()
		}
		worst = max(worst, math.Abs(a.Eval(y)-b.Eval(y)))
	}
	return worst
}

// ermFallbackCases are the ERM configurations of the fallback tests: C > 1
// for the SVM (for C ≤ 1 its solution is exact and needs no fallback).
var ermFallbackCases = []struct {
	l   Learner
	dim int
	n   int
	v   Values
}{
	{NewSVM(), 2, 60, Values{"C": {10}, "sigma": {0.3}}},
	{NewSVM(), 1, 30, Values{"C": {300}, "sigma": {0.1}}},
	{NewLogistic(), 2, 200, Values{"C": {10}}},
	{NewLogistic(), 3, 50, Values{"C": {1000}, "output": {1}}},
	{NewRidge(), 2, 200, Values{"C": {10}}},
	{NewRidge(), 1, 20, Values{"C": {1e4}}},
}

// ermFallbackRadius returns the public distance bound of each branch from
// the exact solution in function values (κ = ‖ỹ‖ = 1; ¼ for the logistic
// probability): certified r, fallback r_fb.
func ermFallbackRadius(t *testing.T, l Learner, n, dim int, v Values) (r, rFb float64) {
	t.Helper()
	res, err := l.Spec().Resolve(v, dim)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Scalar("C")
	switch l.Spec().Kind {
	case KindSVM:
		_, _, term, plan := svmBounds(n, dim, c, 0)
		return term / 2, plan.radius
	case KindLogistic:
		_, tau, wStar := logisticBounds(n, c)
		link := 1.0
		if res.Scalar("output") == logisticOutputProbability {
			link = 0.25
		}
		return link * tau, link * logisticPlan(dim, c, wStar, tau).radius
	default:
		_, tau, wStar := ridgeBounds(n, c)
		return tau, ridgePlan(dim, c, wStar, tau).radius
	}
}

// TestErmFallbackForced forces every ERM learner to discard its certified
// solution (the test seam ermForceFallback) and checks that Fit then
// returns the public fallback, not an error: S, its note and the output
// range are exactly those of the certified fit (they are public and may not
// reveal the branch), the fallback's radius is within the certified
// tolerance, and the released function is within r + r_fb of the certified
// one everywhere (both are within their radius of the exact minimiser).
func TestErmFallbackForced(t *testing.T) {
	for i, c := range ermFallbackCases {
		name := fmt.Sprintf("%s ℓ=%d n=%d %v", c.l.Spec().Kind, c.dim, c.n, c.v)
		d := ermRandomData(rand.New(rand.NewPCG(uint64(i), 41)), c.n, c.dim, c.l.Spec().Label == LabelBinary)
		ermForceFallback = nil
		cert, err := c.l.Fit(context.Background(), d, c.v)
		if err != nil {
			t.Fatalf("%s: certified fit: %v", name, err)
		}
		withErmFallback(t, func(Dataset) bool { return true })
		fb, err := c.l.Fit(context.Background(), d, c.v)
		ermForceFallback = nil
		if err != nil {
			t.Errorf("%s: forced fallback returned an error: %v", name, err)
			continue
		}
		if fb.Sensitivity != cert.Sensitivity || fb.SensitivityNote != cert.SensitivityNote || fb.OutputRange != cert.OutputRange {
			t.Errorf("%s: fallback S = %g, range %v, note %q; certified S = %g, range %v, note %q: the public outputs must not reveal the branch",
				name, fb.Sensitivity, fb.OutputRange, fb.SensitivityNote, cert.Sensitivity, cert.OutputRange, cert.SensitivityNote)
		}
		r, rFb := ermFallbackRadius(t, c.l, c.n, c.dim, c.v)
		if !(rFb <= r) {
			t.Errorf("%s: fallback radius %g > certified radius %g: S would grow", name, rFb, r)
		}
		worst := ermMaxDiff(fb.Oracle, cert.Oracle, c.dim, uint64(i))
		if worst > (r+rFb)*(1+1e-9) {
			t.Errorf("%s: |F_fallback − F_certified| = %g > r + r_fb = %g + %g", name, worst, r, rFb)
		}
		t.Logf("%s: |F_fallback − F_certified| ≤ %.3g (bound %.3g)", name, worst, r+rFb)
	}
}

// TestSVMTinyBudgetFallsBack forces real non-certification: with a budget of
// 0 coordinate updates per record the dual solver cannot certify its gap
// (svmSolve reports errUncertified) and Fit releases the fallback, with the
// same public S, note and range, and no error — for two different datasets.
func TestSVMTinyBudgetFallsBack(t *testing.T) {
	old := svmMaxUpdates
	svmMaxUpdates = 0
	t.Cleanup(func() { svmMaxUpdates = old })
	v := Values{"C": {20}, "sigma": {0.3}}
	var fits []*Fitted
	for seed := range uint64(2) {
		d := ermRandomData(rand.New(rand.NewPCG(seed, 43)), 40, 2, true)
		if _, err := svmSolve(context.Background(), d, 20, 0.3, 0, 1e-9); !errors.Is(err, errUncertified) {
			t.Fatalf("svmSolve with a budget of 0 updates: %v, want errUncertified", err)
		}
		f, err := NewSVM().Fit(context.Background(), d, v)
		if err != nil {
			t.Fatalf("Fit with an exhausted budget returned an error instead of the fallback: %v", err)
		}
		fits = append(fits, f)
	}
	if fits[0].Sensitivity != fits[1].Sensitivity || fits[0].SensitivityNote != fits[1].SensitivityNote || fits[0].OutputRange != fits[1].OutputRange {
		t.Errorf("fallback S, note or range depend on the data: %g %q %v vs %g %q %v", fits[0].Sensitivity, fits[0].SensitivityNote,
			fits[0].OutputRange, fits[1].Sensitivity, fits[1].SensitivityNote, fits[1].OutputRange)
	}
}

// TestErmFallbackPlanRoundoff checks the assumption of ermLinearGDPlan's
// proof that the rounding term e/(1 − q) stays ≤ 0.002·‖w*‖max (so that
// the iterates stay in ‖w‖ ≤ 2.002·‖w*‖max) at the extremes of the parameter ranges, and
// that the fallback radii stay within the certified tolerances for sizes up
// to 10⁵ (so S is unchanged by the fallback).
func TestErmFallbackPlanRoundoff(t *testing.T) {
	for _, dim := range []int{1, 6} {
		for _, c := range []float64{1e-9, 1, 1e3, 1e6} {
			for _, n := range []int{1, 100, 100000} {
				_, tau, wStar := logisticBounds(n, c)
				lp := logisticPlan(dim, c, wStar, tau)
				_, rtau, rStar := ridgeBounds(n, c)
				rp := ridgePlan(dim, c, rStar, rtau)
				for _, p := range []struct {
					name       string
					plan       ermGDPlan
					tau, wStar float64
				}{{"logistic", lp, tau, wStar}, {"ridge", rp, rtau, rStar}} {
					rounding := p.plan.radius - math.Exp(float64(p.plan.iters)*math.Log1p(-p.plan.step))*p.wStar
					if !(rounding <= 0.002*p.wStar) || !(p.plan.radius <= p.tau) {
						t.Errorf("%s ℓ=%d C=%g n=%d: rounding term %g (want ≤ 0.002·‖w*‖max = %g), radius %g (want ≤ τ = %g)",
							p.name, dim, c, n, rounding, 0.002*p.wStar, p.plan.radius, p.tau)
					}
				}
				if c > 1 && n <= 20000 {
					_, _, term, plan := svmBounds(n, dim, c, 0)
					if half := ermSVMGapShare * c / float64(n); !(plan.radius <= half) || term != 2*half {
						t.Errorf("svm ℓ=%d C=%g n=%d: fallback radius %g > κ√(2g_max) = %g", dim, c, n, plan.radius, half)
					}
				}
			}
		}
	}
}

// TestErmFallbackAudit runs the neighbour-search audit with the branch
// chosen by a hash of the dataset, so that about half of the neighbouring
// pairs have one dataset released by the certified solver and the other by
// the fallback: S must hold across branches.
func TestErmFallbackAudit(t *testing.T) {
	withErmFallback(t, func(d Dataset) bool {
		var h uint64 = 14695981039346656037
		for _, v := range d.X {
			h = (h ^ math.Float64bits(v)) * 1099511628211
		}
		for _, v := range d.Labels {
			h = (h ^ math.Float64bits(v)) * 1099511628211
		}
		return h>>63 == 1
	})
	for i, c := range []struct {
		l   Learner
		dim int
		v   Values
		ns  []int
	}{
		{NewSVM(), 1, Values{"C": {5}, "sigma": {0.3}}, []int{2, 3, 5, 8, 13}},
		{NewSVM(), 2, Values{"C": {50}, "sigma": {0.5}}, []int{3, 8, 21}},
		{NewLogistic(), 2, Values{"C": {10}}, nil},
		{NewLogistic(), 1, Values{"C": {1000}, "output": {1}}, nil},
		{NewRidge(), 2, Values{"C": {10}}, nil},
		{NewRidge(), 1, Values{"C": {300}}, nil},
	} {
		cfg := auditConfig{
			Name:   fmt.Sprintf("mixed branches ℓ=%d %v", c.dim, c.v),
			Dim:    c.dim,
			Values: c.v,
			Ns:     c.ns,
			Seed:   uint64(500 + i),
			Pairs:  auditPairsPerCase(6) / 4,
			Climbs: 6,
			Steps:  60,
		}
		auditSensitivity(t, c.l, cfg)
	}
}

// TestSVMFallbackAPriori runs the SVM fallback without its early
// certificate, from the centre and from a corner of the box, so that only
// the a priori bound of svmFallbackPlan stands behind the result: the
// released function must be within r + r_fb of the certified solution.
func TestSVMFallbackAPriori(t *testing.T) {
	for i, c := range []struct {
		n, dim   int
		c, sigma float64
	}{{20, 1, 50, 0.2}, {16, 2, 5, 0.5}, {30, 2, 1000, 0.1}} {
		d := ermRandomData(rand.New(rand.NewPCG(uint64(i), 44)), c.n, c.dim, true)
		_, gapTol, term, plan := svmBounds(c.n, c.dim, c.c, 0)
		cert, err := svmSolve(context.Background(), d, c.c, c.sigma, 0, gapTol)
		if err != nil {
			t.Fatal(err)
		}
		corner := make([]float64, c.n)
		for j := range corner {
			corner[j] = svmUpper(c.c, c.n) * float64(j%2)
		}
		for _, start := range [][]float64{nil, corner} {
			fb, err := svmFallback(context.Background(), d, c.c, c.sigma, 0, gapTol, plan, start, 0)
			if err != nil {
				t.Fatal(err)
			}
			if fb.iterations != plan.iters {
				t.Errorf("ran %d iterations, want the public %d", fb.iterations, plan.iters)
			}
			fo, co := newSVMOracle(c.dim, c.sigma, 0, fb), newSVMOracle(c.dim, c.sigma, 0, cert)
			worst := ermMaxDiff(fo, co, c.dim, uint64(i))
			if bound := term/2 + plan.radius; worst > bound {
				t.Errorf("n=%d C=%g σ=%g start %v: |F_fallback − F_certified| = %g > r + r_fb = %g", c.n, c.c, c.sigma, start != nil, worst, bound)
			}
		}
	}
}
