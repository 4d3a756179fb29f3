package peers

import "fmt"

// MaxJacksonK bounds the smoothness order K of the Jackson operator.
const MaxJacksonK = 20

// JacksonMultipliers returns μ_m, m = 0..t−1, such that the approximation
// operator I_{t,K} of Wang et al. (2013), Section 4.1, Eq. (2),
//
//	I_{t,K}(g)(x) = −∫_{−π}^{π} H(s) Σ_{l=1}^{K+1} C(K+1,l)(−1)^l g(x + l·s) ds,
//
// maps an even g = Σ ĝ_m cos(mθ) to Σ μ_m ĝ_m cos(mθ). H = J_{t′,r} is the
// generalized Jackson kernel λ·(sin(t′s/2)/sin(s/2))^{2r} normalised to
// integral 1, with r = ⌈(K+3)/2⌉ and t′ = ⌊(t−1)/r⌋ + 1, so that H and the
// result have degree ≤ t−1 (the summary holds moments m < t). Writing
// H(s) = a_0 + Σ_j a_j cos(js), ∫H(s)cos(m(x+ls))ds = π·a_{ml}·cos(mx), so
//
//	μ_0 = 1,  μ_m = −Σ_{l=1}^{K+1} C(K+1,l)(−1)^l·π·a_{ml}  (a_j = 0 beyond deg H).
//
// 1 ≤ t ≤ MaxTrigDegree, 0 ≤ K ≤ MaxJacksonK.
func JacksonMultipliers(t, k int) ([]float64, error) {
	if t < 1 || t > MaxTrigDegree {
		return nil, fmt.Errorf("peers.JacksonMultipliers: t = %d: must be between 1 and %d", t, MaxTrigDegree)
	}
	if k < 0 || k > MaxJacksonK {
		return nil, fmt.Errorf("peers.JacksonMultipliers: K = %d: must be between 0 and %d", k, MaxJacksonK)
	}
	r := (k + 4) / 2 // ⌈(K+3)/2⌉
	tp := (t-1)/r + 1
	// (sin(t′s/2)/sin(s/2))² = Σ_{|j|<t′} (t′−|j|) e^{ijs}; keep j ≥ 0 of the
	// symmetric sequence and raise it to the r-th power by convolution.
	base := make([]float64, tp)
	for j := range base {
		base[j] = float64(tp - j)
	}
	pow := []float64{1}
	for range r {
		pow = convolveSymmetric(pow, base)
	}
	// a_0 = 1/(2π) and a_j = pow_j/(π·pow_0), so π·a_j = pow_j/pow_0.
	rho := func(j int) float64 {
		if j >= len(pow) {
			return 0
		}
		return pow[j] / pow[0]
	}
	mu := make([]float64, t)
	mu[0] = 1
	binom := 1.0 // C(K+1, l)
	coef := make([]float64, k+2)
	for l := 1; l <= k+1; l++ {
		binom = binom * float64(k+2-l) / float64(l)
		coef[l] = binom
		if l%2 == 1 {
			coef[l] = -binom
		}
	}
	for m := 1; m < t; m++ {
		s := 0.0
		for l := 1; l <= k+1; l++ {
			s += coef[l] * rho(m*l)
		}
		mu[m] = -s
	}
	return mu, nil
}

// convolveSymmetric convolves two symmetric sequences given by their
// entries at j ≥ 0 (a_{−j} = a_j) and returns the j ≥ 0 half of the result.
func convolveSymmetric(a, b []float64) []float64 {
	full := func(s []float64, j int) float64 {
		if j < 0 {
			j = -j
		}
		if j >= len(s) {
			return 0
		}
		return s[j]
	}
	n := len(a) + len(b) - 1
	out := make([]float64, n)
	for j := range out {
		s := 0.0
		for i := -(len(a) - 1); i < len(a); i++ {
			s += full(a, i) * full(b, j-i)
		}
		out[j] = s
	}
	return out
}
