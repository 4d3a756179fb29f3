package audit

// Statistical ε-DP audit of the real release sampler (issue 8, point 1).
//
// Setting. ℓ = 1, k = 1, h = 1, pure Laplace noise, claimed ε = 1: the
// release is the vector (c_0, c_1) of noisy lattice values at y = 0 and
// y = 1, and with k = h = 1 these are exactly the released function's values
// P(0) = c_0 and P(1) = c_1 (checked in TestAuditReleasedValuesAreCoefficients).
// m = 2 and λ = S·m/ε. For neighbours D ∼ D′ with exact lattice values d,
// d′, the privacy loss of the release is at most Σ_i |d_i − d′_i|/λ
// =: ε_pair ≤ ε, with equality when every coefficient moves by the full S.
//
// Worst-case neighbours (from the learners' audit harnesses, reaching |ΔF| = S
// at both lattice points with opposite or equal signs):
//
//   - kde, bandwidth 0.05, n = 10: D has every record at 0; D′ moves one
//     record to 1. ΔF(0) = +S, ΔF(1) = −S, so ε_pair = ε up to the
//     floating-point term of S.
//   - svm, C = 1, σ = 10, n = 10, every record at 0, five labels +1 and
//     five −1; D′ flips one −1 to +1. For C ≤ 1 the dual optimum is α = C/n,
//     so ΔF(y) = 2C/n·K(y, 0): ΔF(0) = S, ΔF(1) = S·e^{−1/200}, ε_pair ≈
//     0.9975·ε.
//
// Events. For each direction (D over D′, and D′ over D) and each threshold
// t ∈ {0, ½, 1, 2}·λ, with s_i = sign(a_i − b_i) for the favoured dataset A
// and the other B: the rectangle {s_i(c_i − a_i) ≥ t for all i} (the
// likelihood-ratio-optimal event: its ratio is exactly e^{ε_pair} for pure
// Laplace noise), each single coefficient {s_i(c_i − a_i) ≥ t}, and the sum
// {Σ_i s_i(c_i − a_i) ≥ t}: 4 thresholds × 4 events × 2 directions = 32
// events, all fixed before sampling.
//
// Estimate. N releases of M(D) and N of M(D′), independent. For each event,
// p̂ from A's releases and q̂ from B's; ε_lb(E) = ln(p_lower/q_upper) with
// one-sided Clopper–Pearson bounds at level a = α/(2·#events) each, α =
// 10⁻⁶. The audit's ε_lb is the maximum over the events.
//
// False-failure rate. If M is ε-DP then p ≤ e^ε·q for every event, so
// ε_lb(E) > ε requires p_lower > p or q_upper < q; each happens with
// probability ≤ a, and the union over the 2·32 bounds is ≤ α = 10⁻⁶.
// The real sampler uses crypto randomness and cannot be seeded.
//
// Sample sizes. Default N = 5·10⁴ per dataset (2·10⁵ releases of the real
// sampler, ≈ 29 µs each: ≈ 6 s, ≈ 35 s under -race); -long: N = 10⁶.

import (
	"context"
	"flag"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

var long = flag.Bool("long", false, "statistical audit with 10⁶ releases per dataset instead of 5·10⁴")

const (
	// auditAlpha is the overall false-failure rate of every audit verdict.
	auditAlpha = 1e-6
	// auditEpsilon is the claimed ε of the audited releases.
	auditEpsilon = 1.0
)

// auditThresholds are the event thresholds in units of λ.
var auditThresholds = []float64{0, 0.5, 1, 2}

// auditParams are the release parameters: ℓ = 1, k = 1, h = 1, Laplace.
var auditParams = mechanism.Params{Epsilon: auditEpsilon, Noise: mechanism.NoiseLaplace, K: []int{1}, H: 1}

// releasesPerDataset returns defaultN, or longN with -long.
func releasesPerDataset(defaultN, longN int) int {
	if *long {
		return longN
	}
	return defaultN
}

// sharpTolerance is how far below ε_pair the audit's ε_lb may fall before
// TestStatisticalDPAudit calls the audit blunt: 15 standard deviations of
// ln p̂ − ln q̂ for the t = 0 rectangle (p = ¼, q = ¼e^{−ε_pair}) with N
// releases per dataset. The Clopper–Pearson margins cost ≈ 5.5 sd
// (z = Φ⁻¹(1 − 10⁻⁶/64) = 5.53), so a false failure needs a ≈ 9.5 sd
// deviation: probability < 10⁻²⁰ (normal approximation; N·q > 4000).
func sharpTolerance(epsPair float64, n int) float64 {
	p, q := 0.25, 0.25*math.Exp(-epsPair)
	return 15 * math.Sqrt((1-p)/(p*float64(n))+(1-q)/(q*float64(n)))
}

// neighbours is a worst-case pair D ∼ D′ with its exact lattice values.
type neighbours struct {
	name   string
	d, dp  []float64 // exact F_D and F_D′ at the lattice points, lattice order
	s      float64   // the learner's proven sensitivity S(F) (same for D and D′)
	lambda float64   // λ = S·m/ε of a correct release
}

// epsPair is the exact privacy loss bound Σ|d_i − d′_i|/λ of this pair for
// pure Laplace noise of scale lambda.
func (nb neighbours) epsPair(lambda float64) float64 {
	var sum float64
	for i := range nb.d {
		sum += math.Abs(nb.d[i] - nb.dp[i])
	}
	return sum / lambda
}

// fitPair fits the learner to D and D′, checks that both report the same
// sensitivity, and evaluates both on the lattice of auditParams.
func fitPair(t *testing.T, name string, l learners.Learner, v learners.Values, d, dp learners.Dataset) neighbours {
	t.Helper()
	ctx := context.Background()
	lat, err := mechanism.NewLattice(auditParams.K)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := l.Fit(ctx, d, v)
	if err != nil {
		t.Fatalf("%s: fit D: %v", name, err)
	}
	fdp, err := l.Fit(ctx, dp, v)
	if err != nil {
		t.Fatalf("%s: fit D′: %v", name, err)
	}
	if fd.Sensitivity != fdp.Sensitivity {
		t.Fatalf("%s: sensitivity differs between neighbours: %g vs %g", name, fd.Sensitivity, fdp.Sensitivity)
	}
	exD, err := mechanism.EvaluateLattice(ctx, fd.Oracle, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	exDp, err := mechanism.EvaluateLattice(ctx, fdp.Oracle, lat, nil)
	if err != nil {
		t.Fatal(err)
	}
	lambda, err := mechanism.NoiseScale(fd.Sensitivity, auditParams)
	if err != nil {
		t.Fatal(err)
	}
	nb := neighbours{name: name, d: exD, dp: exDp, s: fd.Sensitivity, lambda: lambda}
	for i := range exD {
		if diff := math.Abs(exD[i] - exDp[i]); diff > fd.Sensitivity {
			t.Fatalf("%s: |ΔF| = %g at lattice point %d exceeds S = %g: the learner's bound is wrong", name, diff, i, fd.Sensitivity)
		}
	}
	return nb
}

// kdeNeighbours: all n records at 0; D′ moves one to 1.
func kdeNeighbours(t *testing.T) neighbours {
	const n = 10
	x, xp := make([]float64, n), make([]float64, n)
	xp[n-1] = 1
	return fitPair(t, "kde b=0.05 n=10", learners.NewKDE(), learners.Values{"bandwidth": {0.05}},
		learners.Dataset{Dim: 1, X: x}, learners.Dataset{Dim: 1, X: xp})
}

// svmNeighbours: all n records at 0 with balanced labels; D′ flips one label.
func svmNeighbours(t *testing.T) neighbours {
	const n = 10
	x := make([]float64, n)
	lab, labp := make([]float64, n), make([]float64, n)
	for i := range lab {
		lab[i] = 1
		if i%2 == 1 {
			lab[i] = -1
		}
		labp[i] = lab[i]
	}
	labp[n-1] = 1 // was −1
	return fitPair(t, "svm C=1 σ=10 n=10", learners.NewSVM(), learners.Values{"C": {1}, "sigma": {10}},
		learners.Dataset{Dim: 1, X: x, Labels: lab}, learners.Dataset{Dim: 1, X: x, Labels: labp})
}

// event is a fixed set of releases (c_0, …, c_{m−1}).
type event struct {
	name string
	in   func(c []float64) bool
}

// eventsFavouring returns the events that are likelier under the dataset with
// exact values a than under the one with b (see the file comment).
func eventsFavouring(a, b []float64, lambda float64, label string) []event {
	sgn := make([]float64, len(a))
	for i := range a {
		sgn[i] = 1
		if a[i] < b[i] {
			sgn[i] = -1
		}
	}
	var ev []event
	for _, tl := range auditThresholds {
		th := tl * lambda
		ev = append(ev, event{fmt.Sprintf("%s: every s_i(c_i−a_i) ≥ %gλ", label, tl), func(c []float64) bool {
			for i := range c {
				if sgn[i]*(c[i]-a[i]) < th {
					return false
				}
			}
			return true
		}})
		for i := range a {
			ev = append(ev, event{fmt.Sprintf("%s: s_%d(c_%d−a_%d) ≥ %gλ", label, i, i, i, tl), func(c []float64) bool {
				return sgn[i]*(c[i]-a[i]) >= th
			}})
		}
		ev = append(ev, event{fmt.Sprintf("%s: Σ s_i(c_i−a_i) ≥ %gλ", label, tl), func(c []float64) bool {
			var sum float64
			for i := range c {
				sum += sgn[i] * (c[i] - a[i])
			}
			return sum >= th
		}})
	}
	return ev
}

// cpLower is the one-sided Clopper–Pearson lower bound on a binomial
// proportion with k successes in n trials at level a: P[cpLower > p] ≤ a.
func cpLower(k, n int, a float64) float64 {
	if k == 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

// cpUpper is the one-sided Clopper–Pearson upper bound: P[cpUpper < p] ≤ a.
func cpUpper(k, n int, a float64) float64 {
	if k == n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
}

// auditResult is the verdict of one audit.
type auditResult struct {
	epsLB  float64 // max over events of ln(p_lower/q_upper)
	best   string  // the event attaining epsLB
	pHat   float64 // its p̂ and q̂
	qHat   float64
	n      int // releases per dataset
	events int
}

// sampler draws one release (its coefficient vector) for exact lattice
// values.
type sampler func(exact []float64) ([]float64, error)

// runAudit draws n releases from each of D and D′ and returns the
// Clopper–Pearson lower bound on ε over the event family, at overall
// confidence 1 − auditAlpha.
func runAudit(nb neighbours, n int, draw sampler) (auditResult, error) {
	fwd := eventsFavouring(nb.d, nb.dp, nb.lambda, "D over D′")
	rev := eventsFavouring(nb.dp, nb.d, nb.lambda, "D′ over D")
	all := append(append([]event{}, fwd...), rev...)
	hitsD := make([]int, len(all))
	hitsDp := make([]int, len(all))
	count := func(exact []float64, hits []int) error {
		for r := 0; r < n; r++ {
			c, err := draw(exact)
			if err != nil {
				return err
			}
			for e := range all {
				if all[e].in(c) {
					hits[e]++
				}
			}
		}
		return nil
	}
	if err := count(nb.d, hitsD); err != nil {
		return auditResult{}, err
	}
	if err := count(nb.dp, hitsDp); err != nil {
		return auditResult{}, err
	}
	a := auditAlpha / float64(2*len(all))
	res := auditResult{epsLB: math.Inf(-1), n: n, events: len(all)}
	for e := range all {
		kp, kq := hitsD[e], hitsDp[e]
		if e >= len(fwd) { // D′ over D: p from D′, q from D
			kp, kq = kq, kp
		}
		lb := math.Log(cpLower(kp, n, a) / cpUpper(kq, n, a))
		if lb > res.epsLB {
			res = auditResult{epsLB: lb, best: all[e].name, pHat: float64(kp) / float64(n), qHat: float64(kq) / float64(n), n: n, events: len(all)}
		}
	}
	return res, nil
}

// realSampler is the release path: mechanism.SanitizeValues with the given
// sensitivity (secure noise, unseeded).
func realSampler(s float64) sampler {
	return func(exact []float64) ([]float64, error) {
		syn, err := mechanism.SanitizeValues(exact, s, auditParams)
		if err != nil {
			return nil, err
		}
		return syn.Coefficients(), nil
	}
}

// brokenScaleSampler adds seeded Laplace noise of scale λ·factor: a
// deliberately broken mechanism for the negative control.
func brokenScaleSampler(lambda, factor float64, seed uint64) sampler {
	src := mechanism.NewSimulationNoise(seed)
	out := make([]float64, 0, 8)
	return func(exact []float64) ([]float64, error) {
		out = out[:0]
		for _, x := range exact {
			out = append(out, x+src.Laplace(lambda*factor))
		}
		return out, nil
	}
}

func logResult(t *testing.T, nb neighbours, what string, lambda float64, r auditResult) {
	t.Helper()
	t.Logf("%s [%s]: N = %d per dataset, %d events, α = %g: ε_lb = %.4f (claimed ε = %g, this pair's true loss %.4f); attained by %q with p̂ = %.5f, q̂ = %.5f",
		nb.name, what, r.n, r.events, auditAlpha, r.epsLB, auditEpsilon, nb.epsPair(lambda), r.best, r.pHat, r.qHat)
}

// TestAuditReleasedValuesAreCoefficients ties the audited quantities to the
// released function: with k = h = 1 the synopsis' values at y = 0 and y = 1
// are its coefficients.
func TestAuditReleasedValuesAreCoefficients(t *testing.T) {
	syn, err := mechanism.SanitizeValues([]float64{0.3, -0.7}, 0.1, auditParams)
	if err != nil {
		t.Fatal(err)
	}
	c := syn.Coefficients()
	for i, y := range []float64{0, 1} {
		v, err := syn.Eval([]float64{y})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-c[i]) > 1e-12*(1+math.Abs(c[i])) {
			t.Errorf("P(%g) = %.17g, coefficient %d = %.17g: the audit's events are not on released values", y, v, i, c[i])
		}
	}
}

// TestStatisticalDPAudit is the audit of the real release sampler. It fails
// when the lower confidence bound on ε exceeds the claimed ε (false-failure
// rate ≤ 10⁻⁶, see the file comment). It also requires the audit to be
// sharp, ε_lb ≥ ε_pair − sharpTolerance (0.24 at N = 5·10⁴, 0.054 at
// N = 10⁶), so that a blunt event family cannot pass silently.
func TestStatisticalDPAudit(t *testing.T) {
	n := releasesPerDataset(50_000, 1_000_000)
	for _, mk := range []func(*testing.T) neighbours{kdeNeighbours, svmNeighbours} {
		nb := mk(t)
		t.Run(nb.name, func(t *testing.T) {
			t.Parallel()
			r, err := runAudit(nb, n, realSampler(nb.s))
			if err != nil {
				t.Fatal(err)
			}
			logResult(t, nb, "real sampler", nb.lambda, r)
			if r.epsLB > auditEpsilon {
				t.Errorf("ε_lb = %.4f > claimed ε = %g: the release violates ε-DP on %q (p̂ = %g, q̂ = %g)", r.epsLB, auditEpsilon, r.best, r.pHat, r.qHat)
			}
			if want := nb.epsPair(nb.lambda) - sharpTolerance(nb.epsPair(nb.lambda), n); r.epsLB < want {
				t.Errorf("ε_lb = %.4f < ε_pair − tolerance = %.4f: the audit is not sharp (events or neighbours too weak)", r.epsLB, want)
			}
		})
	}
}

// TestAuditDetectsUnderstatedSensitivity runs the same audit on the real
// sampler given S/2 — a sensitivity understated by 2× — so the true loss of
// the KDE pair is 2·ε_pair ≈ 2. It must report ε_lb > ε. N = 2·10⁴ (10⁵
// with -long). False-negative rate: on the t = 0 rectangle p = ¼ and
// q = ¼e^{−2} = 0.0338. If p̂ > 0.22 and q̂ < 0.045, the CP bounds
// (z ≈ 5.53) give p_lower/q_upper ≥ 0.2038/0.0531 = 3.84 > e, so ε_lb > 1.
// By Chernoff, P[p̂ ≤ 0.22] ≤ exp(−N·KL(0.22‖¼)) = e^{−49.4} and
// P[q̂ ≥ 0.045] ≤ exp(−N·KL(0.045‖q)) = e^{−34.7}: a miss has probability
// < 10⁻¹⁵.
func TestAuditDetectsUnderstatedSensitivity(t *testing.T) {
	nb := kdeNeighbours(t)
	r, err := runAudit(nb, releasesPerDataset(20_000, 100_000), realSampler(nb.s/2))
	if err != nil {
		t.Fatal(err)
	}
	logResult(t, nb, "real sampler, S understated 2×", nb.lambda/2, r)
	if !(r.epsLB > auditEpsilon) {
		t.Errorf("ε_lb = %.4f ≤ claimed ε = %g: the audit missed a mechanism whose true loss is %.4f", r.epsLB, auditEpsilon, nb.epsPair(nb.lambda/2))
	}
}

// TestAuditDetectsHalvedNoise runs the audit on a broken mechanism adding
// seeded Laplace noise of scale λ/2 (true loss 2·ε_pair) for both pairs; it
// must report ε_lb > ε. Seeded, so the verdict is reproducible; with
// N = 10⁵ the expected ε_lb ≈ 1.9 exceeds 1 by ≈ 50 sd of ln p̂ − ln q̂,
// so the verdict does not depend on the seed.
func TestAuditDetectsHalvedNoise(t *testing.T) {
	n := releasesPerDataset(100_000, 1_000_000)
	for i, mk := range []func(*testing.T) neighbours{kdeNeighbours, svmNeighbours} {
		nb := mk(t)
		t.Run(nb.name, func(t *testing.T) {
			r, err := runAudit(nb, n, brokenScaleSampler(nb.lambda, 0.5, uint64(20260+i)))
			if err != nil {
				t.Fatal(err)
			}
			logResult(t, nb, "seeded Laplace, scale λ/2", nb.lambda/2, r)
			if !(r.epsLB > auditEpsilon) {
				t.Errorf("ε_lb = %.4f ≤ claimed ε = %g: the audit missed a mechanism whose true loss is %.4f", r.epsLB, auditEpsilon, nb.epsPair(nb.lambda/2))
			}
		})
	}
}

// TestClopperPearson checks the bounds against closed forms: for k = 0 the
// upper bound is 1 − a^{1/n}, for k = n the lower bound is a^{1/n}, and a
// mid-range value against the exact binomial tails solved by bisection
// (P[Bin(100, p) ≥ 30] = 0.05 at p = 0.224923224, P[Bin(100, p) ≤ 30] = 0.05
// at p = 0.384220613).
func TestClopperPearson(t *testing.T) {
	cases := []struct {
		name string
		got  float64
		want float64
	}{
		{"upper k=0 n=10 a=0.05", cpUpper(0, 10, 0.05), 1 - math.Pow(0.05, 0.1)},
		{"lower k=n=10 a=0.05", cpLower(10, 10, 0.05), math.Pow(0.05, 0.1)},
		{"lower k=0", cpLower(0, 10, 0.05), 0},
		{"upper k=n", cpUpper(10, 10, 0.05), 1},
		{"lower k=30 n=100 a=0.05", cpLower(30, 100, 0.05), 0.224923224},
		{"upper k=30 n=100 a=0.05", cpUpper(30, 100, 0.05), 0.384220613},
	}
	for _, c := range cases {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s = %.9f, want %.9f (±1e-6)", c.name, c.got, c.want)
		}
	}
}
