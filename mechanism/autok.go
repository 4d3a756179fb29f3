package mechanism

import (
	"fmt"
	"math"
	"slices"
)

// The automatic cover size (ResolveK with auto) minimises a predicted mean
// sup-norm error built only from public quantities: ε, δ, the noise kind,
// h, ℓ, the proven sensitivity S and a public stand-in for F_D that the
// learner derives from its parameters (bandwidth, σ, C, n, bounds). The
// derivation is in docs/sensitivity.md, "The automatic cover size".
//
//	E(k) = A(k) + N(k)
//	A(k) = a·(∏_j (1 + r_j(k)) − 1),  r_j(k) = max_y |B^(h)_k g_j(y) − g_j(y)|
//	N(k) = c·λ(k)·∏_j max_y ‖b^(h)_k(y)‖₂ · √(2·ln(2m))
//
// with g_j(y) = exp(−(y−½)²/(2s_j²)) the stand-in's profile on axis j
// (g_j ≡ 1 when s_j = 0: F_D is affine along the axis and every iterated
// Bernstein operator reproduces it), a the stand-in's amplitude, λ(k) the
// noise scale (NoiseScale) of m = ∏(k+1) coefficients and c = √2 for
// Laplace noise (its standard deviation), 1 for Gaussian noise.

// StandIn is a public stand-in for the learner's F_D: a Gaussian bump of
// height Amplitude and per-axis length Scale (mapped units) centred in the
// unit cube. A learner states it from its public parameters only (never from
// the records); it tells the automatic cover size how finely F_D can vary.
// Scale[j] = 0 means F_D is affine along axis j. The zero StandIn means "no
// smoothness known": ResolveK then falls back to the paper's k* (OptimalK).
type StandIn struct {
	Amplitude float64
	Scale     []float64
}

// Known reports whether f states a smoothness (a positive amplitude and a
// scale per axis).
func (f StandIn) Known(dim int) bool {
	return finitePositive(f.Amplitude) && len(f.Scale) == dim
}

// validate checks f for dim axes; errors are *ParamError values.
func (f StandIn) validate(dim int) error {
	if !finitePositive(f.Amplitude) {
		return paramErr("stand-in amplitude", f.Amplitude, "must be > 0 and finite")
	}
	if len(f.Scale) != dim {
		return paramErr("stand-in scale", fmt.Sprint(f.Scale), "%d scales for %d axes: give one per axis", len(f.Scale), dim)
	}
	for _, s := range f.Scale {
		if !(s >= 0) || math.IsInf(s, 0) {
			return paramErr("stand-in scale", s, "must be ≥ 0 and finite")
		}
	}
	return nil
}

// predictGrid is the number of points per axis on which A and N are
// maximised; 257 points resolve a stand-in scale down to MinStandInScale.
const predictGrid = 257

// MinStandInScale is the smallest stand-in length the prediction resolves
// (larger scales are used as given; smaller ones are raised to it).
const MinStandInScale = 0.01

// PredictedError returns the predicted mean sup-norm error of a release with
// parameters p (ε, δ, noise, h and k, validated by Params.Validate) of a
// function like the stand-in f, as its approximation part A(k) and its noise
// part N(k) (see the formulas above). It reads only public quantities: p,
// the sensitivity and f. Errors are *ParamError values.
func PredictedError(p Params, sensitivity float64, f StandIn) (approx, noise float64, err error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return 0, 0, err
	}
	if err := p.Validate(); err != nil {
		return 0, 0, err
	}
	if err := f.validate(len(p.K)); err != nil {
		return 0, 0, err
	}
	scale, err := noiseScaleValid(sensitivity, p)
	if err != nil {
		return 0, 0, err
	}
	return predictApprox(p.K, p.H, f), noiseUnit(p.Noise, coefficientCount(p.K)) * scale * maxNoiseNorm(p.K, p.H), nil
}

// noiseUnit returns c·√(2 ln(2m)): the standard deviation per unit scale of
// the noise kind times the expected maximum of ~m standardised values.
func noiseUnit(kind NoiseKind, m int) float64 {
	c := 1.0
	if kind != NoiseGaussian {
		c = math.Sqrt2
	}
	return c * math.Sqrt(2*math.Log(2*float64(m)))
}

// maxNoiseNorm returns ∏_j max_y ‖b^(h)_{k_j}(y)‖₂ over the prediction grid.
func maxNoiseNorm(k []int, h int) float64 {
	out := 1.0
	for _, kj := range k {
		b := NewIteratedBasis(kj, h)
		mx := 0.0
		for i := range predictGrid {
			mx = max(mx, b.squaredNorm(float64(i)/(predictGrid-1)))
		}
		out *= math.Sqrt(mx)
	}
	return out
}

// predictApprox returns A(k) = a·(∏_j (1 + r_j) − 1).
func predictApprox(k []int, h int, f StandIn) float64 {
	prod := 1.0
	for j, kj := range k {
		prod *= 1 + bumpApproxError(kj, h, f.Scale[j])
	}
	return f.Amplitude * (prod - 1)
}

// bumpApproxError returns max_y |B^(h)_k g(y) − g(y)| over the prediction
// grid for g(y) = exp(−(y−½)²/(2s²)) (0 when s = 0: g is constant).
func bumpApproxError(k, h int, s float64) float64 {
	if s == 0 {
		return 0
	}
	s = max(s, MinStandInScale)
	g := func(y float64) float64 { d := y - 0.5; return math.Exp(-d * d / (2 * s * s)) }
	b := NewIteratedBasis(k, h)
	n := k + 1
	c := make([]float64, n)
	for nu := range c {
		c[nu] = g(float64(nu) / float64(k))
	}
	// Coefficients in the plain basis: B^(h)_k g(y) = b(y)ᵀ·(T·c).
	tc := make([]float64, n)
	for mu := range n {
		row := b.t[mu*n : (mu+1)*n]
		v := 0.0
		for nu, t := range row {
			v += t * c[nu]
		}
		tc[mu] = v
	}
	plain := make([]float64, n)
	worst := 0.0
	for i := range predictGrid {
		y := float64(i) / (predictGrid - 1)
		bernstein(k, y, plain, b.ratios)
		v := 0.0
		for mu, w := range plain {
			v += w * tc[mu]
		}
		worst = max(worst, math.Abs(v-g(y)))
	}
	return worst
}

// AutoK returns the cover size k (the same on every one of dim axes) that
// minimises the predicted error A(k) + N(k) of PredictedError over the
// valid k of p's ε, δ, noise kind and order h (p.K is ignored). It is the
// rule of ResolveK with auto, and the centre of `choose`'s candidate list.
// Guarantee: it depends only on p, dim, the sensitivity and f — public
// quantities — never on F_D. Ties go to the smaller k. Because N(k) ≥
// c·λ(k)·√(2 ln(2m)) grows with k (‖b^(h)_k(0)‖₂ = 1), the search stops at
// the first k whose noise floor alone exceeds the best error so far, so it
// builds only the bases it needs. Errors are *ParamError values (invalid
// ε, δ, noise, h, dim, sensitivity or stand-in).
func AutoK(p Params, dim int, sensitivity float64, f StandIn) (int, error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return 0, err
	}
	p.K = slices.Repeat([]int{1}, max(dim, 0))
	if err := p.Validate(); err != nil {
		return 0, err
	}
	if err := f.validate(dim); err != nil {
		return 0, err
	}
	best, bestErr := 1, math.Inf(1)
	for _, k := range autoKCandidates(maxCoverSize(dim)) {
		q := p
		q.K = slices.Repeat([]int{k}, dim)
		if q.Validate() != nil {
			continue // e.g. laplace-approx composition beyond ε
		}
		scale, err := noiseScaleValid(sensitivity, q)
		if err != nil {
			continue
		}
		floor := noiseUnit(q.Noise, coefficientCount(q.K)) * scale
		if floor >= bestErr {
			break
		}
		e := predictApprox(q.K, q.H, f) + floor*maxNoiseNorm(q.K, q.H)
		if e < bestErr {
			best, bestErr = k, e
		}
	}
	return best, nil
}

// autoKCandidates returns 1..12, then steps of about 12% up to limit (the
// predicted error is flat on that scale; the steps keep the search cheap).
func autoKCandidates(limit int) []int {
	var ks []int
	for k := 1; k <= limit; {
		ks = append(ks, k)
		if k < 12 {
			k++
		} else {
			k = max(k+1, int(math.Round(float64(k)*1.12)))
		}
	}
	return ks
}
