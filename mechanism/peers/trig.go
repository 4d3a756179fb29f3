package peers

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// MaxTrigDegree bounds t, the number of trigonometric moments.
const MaxTrigDegree = 1000

// trigQuadrature is the number of intervals of the trapezoid rule on
// θ ∈ [0, π] used for the cosine coefficients of g_y(θ) = f_y(cos θ). The
// rule is exact for cosines of degree < 2·trigQuadrature; for the Gaussian
// kernels used here (bandwidth ≥ MinTrigBandwidth) the aliasing error is
// below 1e-12 relative.
const trigQuadrature = 2048

// TrigJackson is the smoothness order K of the Jackson operator fixed a
// priori for the KDE query: the Figure 1 protocol's (study) and the
// product's wang-trig releases (project/release).
const TrigJackson = 2

// MinTrigBandwidth is the smallest KDE bandwidth TrigKDEWeights accepts
// (the quadrature above resolves kernels down to this width).
const MinTrigBandwidth = 0.005

// TrigMoments returns the exact (noise-free) summary of Wang et al. (2013),
// Algorithm 1, for d = 1: S_m = (1/n) Σ_i cos(m·θ_i), θ_i = arccos(u_i),
// m = 0..t−1, where the data x_i ∈ [0,1] are mapped to u_i = 2x_i − 1 ∈
// [−1,1] (the paper's data universe). S_0 = 1 is public. The moments are
// private; TrigNoiseScale gives the noise that makes them ε-DP.
// 1 ≤ t ≤ MaxTrigDegree, at least one record, every x in [0,1].
func TrigMoments(x []float64, t int) ([]float64, error) {
	if t < 1 || t > MaxTrigDegree {
		return nil, fmt.Errorf("peers.TrigMoments: t = %d: must be between 1 and %d", t, MaxTrigDegree)
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("peers.TrigMoments: no records: need at least one")
	}
	s := make([]float64, t)
	for j, v := range x {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("peers.TrigMoments: x[%d] = %v: must lie in [0,1]", j, v)
		}
		theta := math.Acos(2*v - 1)
		for m := range t {
			s[m] += math.Cos(float64(m) * theta)
		}
	}
	for m := range s {
		s[m] /= float64(len(x))
	}
	return s, nil
}

// TrigNoiseScale returns the Laplace scale 2(t−1)/(n·ε) for the moments
// S_1..S_{t−1} (S_0 = 1 needs none). Replacing one record changes each
// S_m, m ≥ 1, by at most 2/n (|cos| ≤ 1), so the vector has L1
// sensitivity 2(t−1)/n and this scale is ε-DP. Wang et al. add Lap(t/(nε))
// to all t moments, which under replace-one neighbours is only 2ε-DP (their
// Theorem 3.1 is for the same neighbour relation), so we use the larger,
// correct scale. n ≥ 1, 1 ≤ t ≤ MaxTrigDegree, ε as mechanism.ValidateEpsilon.
func TrigNoiseScale(n, t int, epsilon float64) (float64, error) {
	switch {
	case n < 1:
		return 0, fmt.Errorf("peers.TrigNoiseScale: n = %d: must be at least 1", n)
	case t < 1 || t > MaxTrigDegree:
		return 0, fmt.Errorf("peers.TrigNoiseScale: t = %d: must be between 1 and %d", t, MaxTrigDegree)
	}
	if err := mechanism.ValidateEpsilon(epsilon); err != nil {
		return 0, fmt.Errorf("peers.TrigNoiseScale: %w", err)
	}
	return 2 * float64(t-1) / (float64(n) * epsilon), nil
}

// TrigStabilityFactor returns 2^{K+1} − 1 for the Jackson order K: the
// factor by which one record can move a trigonometric KDE release beyond
// the largest move of the KDE itself. Precisely, for data of n records in
// [0,1], bandwidth b and any noise draw z (the same for both), replacing
// one record moves the released answer at every y by at most
//
//	(2^{K+1} − 1)·K_b·(1 − e^{−1/(2b²)})/n,   K_b = 1/(√(2π)·b),
//
// i.e. (2^{K+1} − 1) times the KDE's replace-one sensitivity S (learners).
// Derivation: the answer is Σ_m w_m(y)·(S_m + λz_m) with S_m =
// (1/n)Σ_i cos(mθ_i); the noise and S_0 cancel, so the move is
// (1/n)·|A_y(θ_a) − A_y(θ_b)| with A_y(θ) = Σ_{m<t} μ_m·ĝ_m(y)·cos(mθ), the
// Jackson operator I_{t,K} of JacksonMultipliers applied to p_y, the
// cosine interpolant of g_y(θ) = φ_b(y − (cos θ+1)/2) whose coefficients
// cosineCoefficients computes (μ_m = 0 for m ≥ t, so the coefficients
// beyond t do not matter). I_{t,K}(p) = Σ_{l=1}^{K+1} c_l·T_l(p) with
// c_l = −C(K+1,l)(−1)^l and T_l(p)(θ) = ∫H(s)·p(θ + l·s) ds, H ≥ 0 of
// integral 1 (the generalized Jackson kernel), so each T_l(p) takes values
// in [min p, max p] and |A_y(θ_a) − A_y(θ_b)| ≤ Σ_l |c_l|·osc(p_y) =
// (2^{K+1} − 1)·osc(p_y). The interpolant is within the quadrature's
// aliasing error (below 10⁻¹² of K_b for b ≥ MinTrigBandwidth) of g_y,
// whose values lie in [K_b·e^{−1/(2b²)}, K_b] for y and x in [0,1]. A
// caller inflates the bound by a relative 10⁻⁶ for that error and the
// rounding of the weights. 0 ≤ K ≤ MaxJacksonK.
func TrigStabilityFactor(k int) float64 {
	if k < 0 || k > MaxJacksonK {
		panic(fmt.Sprintf("peers.TrigStabilityFactor: K = %d: must be between 0 and %d", k, MaxJacksonK))
	}
	return float64(int(1)<<(k+1) - 1)
}

// TrigKDEWeights returns the public evaluation weights of Wang et al.
// (2013), Algorithm 2, for the linear query "Gaussian KDE at y":
// f_y(u) = φ_b(y − (u+1)/2), φ_b the N(0, b²) density, so that
// q_{f_y}(D) = (1/n)Σ φ_b(y − x_i) = F_D(y) for data x ∈ [0,1]. The answer
// from a (noisy) summary S is Σ_m w_m·S_m with w = the cosine coefficients
// of I_{t,K}(g_y), g_y(θ) = f_y(cos θ), the generalized-Jackson-kernel
// approximation of Section 4.1, Eq. (2), of degree ≤ t−1 (JacksonMultipliers).
// The weights depend only on y, b, t, K — never on the data.
// y ∈ [0,1], b ∈ [MinTrigBandwidth, 1], 1 ≤ t ≤ MaxTrigDegree, 0 ≤ K ≤ 20;
// out has length t or is nil.
func TrigKDEWeights(y, bandwidth float64, t, k int, out []float64) ([]float64, error) {
	mu, err := JacksonMultipliers(t, k)
	if err != nil {
		return nil, err
	}
	return TrigKDEWeightsWith(y, bandwidth, mu, out)
}

// TrigKDEWeightsWith is TrigKDEWeights with the Jackson multipliers mu =
// JacksonMultipliers(t, K) computed once by the caller (t = len(mu)), for
// evaluating one summary at many points.
func TrigKDEWeightsWith(y, bandwidth float64, mu, out []float64) ([]float64, error) {
	t := len(mu)
	if !(y >= 0 && y <= 1) {
		return nil, fmt.Errorf("peers.TrigKDEWeights: y = %v: must lie in [0,1]", y)
	}
	if err := checkTrigQuery("peers.TrigKDEWeights", bandwidth, t); err != nil {
		return nil, err
	}
	if out == nil {
		out = make([]float64, t)
	} else if len(out) != t {
		return nil, fmt.Errorf("peers.TrigKDEWeights: len(out) = %d: must be t = %d", len(out), t)
	}
	g := cosineCoefficients(func(theta float64) float64 {
		z := (y - (math.Cos(theta)+1)/2) / bandwidth
		return math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * bandwidth)
	}, t)
	for m := range out {
		out[m] = g[m] * mu[m]
	}
	return out, nil
}

// cosineCoefficients returns ĝ_m, m = 0..t−1, of an even 2π-periodic g =
// Σ ĝ_m cos(mθ): ĝ_0 = (1/2π)∫g, ĝ_m = (1/π)∫g·cos(mθ), by the trapezoid
// rule on [0, π] with trigQuadrature intervals. cos(mθ_j) comes from the
// Chebyshev recurrence cos((m+1)θ) = 2cos θ·cos(mθ) − cos((m−1)θ), whose
// rounding error grows at most linearly in m (≤ m·2⁻⁵² relative to 1,
// i.e. < 3·10⁻¹³ for t ≤ MaxTrigDegree), instead of t·(n+1) calls of
// math.Cos: one query costs n+1 evaluations of g and t·(n+1) multiply-adds.
func cosineCoefficients(g func(float64) float64, t int) []float64 {
	n := trigQuadrature
	out := make([]float64, t)
	for j := 0; j <= n; j++ {
		theta := math.Pi * float64(j) / float64(n)
		v := g(theta)
		if j == 0 || j == n {
			v *= 0.5
		}
		c := math.Cos(theta)
		prev, cur := c, 1.0 // cos(−θ), cos(0)
		for m := range out {
			out[m] += v * cur
			prev, cur = cur, 2*c*cur-prev
		}
	}
	for m := range out {
		out[m] /= float64(n)
		if m > 0 {
			out[m] *= 2
		}
	}
	return out
}

// checkTrigQuery is the one home of the KDE query's rules on its
// bandwidth and number of moments t (fn names the caller in the error).
func checkTrigQuery(fn string, bandwidth float64, t int) error {
	switch {
	case !(bandwidth >= MinTrigBandwidth && bandwidth <= 1):
		return fmt.Errorf("%s: bandwidth = %v: must be in [%g, 1]", fn, bandwidth, MinTrigBandwidth)
	case t < 1 || t > MaxTrigDegree:
		return fmt.Errorf("%s: t = %d: must be between 1 and %d", fn, t, MaxTrigDegree)
	}
	return nil
}

// TrigMomentsForK returns t = min(k + 1, MaxTrigDegree), the number of
// moments a trigonometric release of cover size k publishes (the one home
// of that rule: the release, and the private choice's candidate that
// simulates it).
func TrigMomentsForK(k int) int { return min(k+1, MaxTrigDegree) }

// TrigMinMoments returns ⌈(K+3)/2⌉ + 1, the least number t of moments at
// which the trigonometric release with Jackson order K depends on the data
// at all: below it the kernel H of JacksonMultipliers is a constant, every
// μ_m with m ≥ 1 is 0, and the release answers every query by the public
// S_0 alone (a constant density). 0 ≤ K ≤ MaxJacksonK.
func TrigMinMoments(k int) int {
	if k < 0 || k > MaxJacksonK {
		panic(fmt.Sprintf("peers.TrigMinMoments: K = %d: must be between 0 and %d", k, MaxJacksonK))
	}
	return (k+4)/2 + 1
}

// TrigKDEAnswers writes into out[i] the answer Σ_m w_m(ys[i])·s_m of a
// trigonometric summary s (len t, noisy or not; s_0 included) to the KDE
// query at ys[i] — the numbers TrigKDEWeightsWith's weights give, up to
// rounding (< 10⁻¹² relative; TestTrigKDEAnswersSameAsWeights) — without
// forming the t weights of each point. Summing the weights' quadrature
// the other way round,
//
//	Σ_m μ_m·ĝ_m(y)·s_m = Σ_j φ_b(y − x_j)·A_j,   A_j = (ω_j/n)·Σ_m c_m·μ_m·s_m·cos(m·θ_j),
//
// over the quadrature nodes θ_j = πj/n, x_j = (cos θ_j + 1)/2 (ω_j = ½ at
// the ends, 1 inside; c_0 = 1, c_m = 2), costs n·t once and then, per
// point, the nodes within 39·b of y (farther ones contribute exactly 0 in
// float64: e^{−39²/2} underflows). mu = JacksonMultipliers(t, K);
// arguments as TrigKDEWeightsWith; len(out) = len(ys).
func TrigKDEAnswers(ys []float64, bandwidth float64, mu, s, out []float64) error {
	return trigKDEAnswers(ys, bandwidth, mu, s, out, 39)
}

// trigKDEAnswers is TrigKDEAnswers summing over the nodes within
// reach·b of each point (reach = +Inf: every node).
func trigKDEAnswers(ys []float64, bandwidth float64, mu, s, out []float64, reach float64) error {
	t := len(mu)
	switch {
	case len(s) != t:
		return fmt.Errorf("peers.TrigKDEAnswers: %d moments for %d multipliers", len(s), t)
	case len(out) != len(ys):
		return fmt.Errorf("peers.TrigKDEAnswers: %d outputs for %d points", len(out), len(ys))
	}
	if err := checkTrigQuery("peers.TrigKDEAnswers", bandwidth, t); err != nil {
		return err
	}
	n := trigQuadrature
	a := make([]float64, n+1)
	x := make([]float64, n+1)
	for j := range a {
		theta := math.Pi * float64(j) / float64(n)
		c := math.Cos(theta)
		x[j] = (c + 1) / 2
		prev, cur := c, 1.0 // cos(−θ), cos(0): the recurrence of cosineCoefficients
		var v float64
		for m := range t {
			w := mu[m] * s[m]
			if m > 0 {
				w *= 2
			}
			v += w * cur
			prev, cur = cur, 2*c*cur-prev
		}
		v /= float64(n)
		if j == 0 || j == n {
			v *= 0.5
		}
		a[j] = v
	}
	norm := 1 / (math.Sqrt(2*math.Pi) * bandwidth)
	reach *= bandwidth
	for i, y := range ys {
		if !(y >= 0 && y <= 1) {
			return fmt.Errorf("peers.TrigKDEAnswers: y = %v: must lie in [0,1]", y)
		}
		// x_j decreases in j: the nodes within reach of y.
		lo := int(math.Floor(math.Acos(min(1, 2*(y+reach)-1)) * float64(n) / math.Pi))
		hi := int(math.Ceil(math.Acos(max(-1, 2*(y-reach)-1)) * float64(n) / math.Pi))
		var v float64
		for j := max(lo, 0); j <= min(hi, n); j++ {
			z := (y - x[j]) / bandwidth
			v += math.Exp(-z*z/2) * a[j]
		}
		out[i] = v * norm
	}
	return nil
}

// TrigKDEGrid answers the queries "KDE at y" for every y of a public grid
// from the exact moments S (TrigMoments, len t): it returns the noise
// weights, row-major len(grid)·t, with column 0 zeroed (S_0 = 1 is public
// and gets no noise), and the noise-free answers Σ_m w_m(y)·S_m. A release
// with noisy moments S_m + λz_m (m ≥ 1) answers
// answers[i] + λ·Σ_m weights[i·t+m]·z_m at grid point i. Arguments as
// TrigKDEWeights.
func TrigKDEGrid(grid []float64, bandwidth float64, t, k int, moments []float64) (weights, answers []float64, err error) {
	if len(moments) != t {
		return nil, nil, fmt.Errorf("peers.TrigKDEGrid: %d moments: must be t = %d", len(moments), t)
	}
	weights = make([]float64, len(grid)*t)
	answers = make([]float64, len(grid))
	for i, y := range grid {
		w := weights[i*t : (i+1)*t]
		if _, err := TrigKDEWeights(y, bandwidth, t, k, w); err != nil {
			return nil, nil, err
		}
		for m, v := range w {
			answers[i] += v * moments[m]
		}
		w[0] = 0
	}
	return weights, answers, nil
}
