package mechanism

import (
	"fmt"
	"math"
	"slices"
)

// The automatic cover size (ResolveK with auto) minimises a predicted mean
// sup-norm error built only from public quantities: ε, δ, the noise kind,
// h, ℓ, the proven sensitivity S and a public stand-in g for F_D that the
// learner states from its parameters (bandwidth, σ, C, n, bounds). The
// prediction is the mean sup-norm error of simulated releases of g itself:
//
//	E(k) = mean_d max_{y ∈ G} |B^(h)_k(g + λ(k)·Z_d)(y) − g(y)|
//
// over predictDraws unit noise vectors Z_d of the release's noise kind from
// a fixed seed, on a tensor grid G, with λ(k) = NoiseScale(S, p with k),
// the stand-in g centred at a seeded point c_d within ±predictShift of the
// middle on every axis (F_D's features sit anywhere, not on the lattice).
// Nothing in it depends on the records: g is public, the draws are seeded
// and public, and the release's own noise is drawn afresh and securely later.
// The derivation is in docs/sensitivity.md, "The automatic cover size".

// StandInShape is the form of a stand-in.
type StandInShape int

const (
	// StandInBump is g(y) = a·∏_j exp(−(y_j − ½)²/(2s_j²)); s_j = 0 makes
	// g constant along axis j (F_D affine there: every iterated Bernstein
	// operator reproduces it, only noise matters).
	StandInBump StandInShape = iota
	// StandInSigmoid is g(y) = a/(1 + exp(−Σ_j (y_j − ½)/s_j)); s_j = 0
	// drops axis j.
	StandInSigmoid
)

// StandIn is a public stand-in for the learner's F_D: how finely F_D can
// vary, from the learner's public parameters only (never from the records).
// Amplitude a and per-axis lengths Scale (mapped units) parametrise Shape.
// The zero StandIn means "no smoothness known": ResolveK then falls back to
// the paper's k* (OptimalK).
type StandIn struct {
	Shape     StandInShape
	Amplitude float64
	Scale     []float64
}

// Known reports whether f states a smoothness for dim axes (a positive
// amplitude and one scale per axis).
func (f StandIn) Known(dim int) bool {
	return finitePositive(f.Amplitude) && len(f.Scale) == dim
}

// validate checks f for dim axes; errors are *ParamError values.
func (f StandIn) validate(dim int) error {
	if f.Shape != StandInBump && f.Shape != StandInSigmoid {
		return paramErr("stand-in shape", int(f.Shape), "must be StandInBump or StandInSigmoid")
	}
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

// at returns g(y) for the stand-in centred at c (one coordinate per axis;
// the formulas of StandInShape have c_j = ½).
func (f StandIn) at(y, c []float64) float64 {
	if f.Shape == StandInSigmoid {
		z := 0.0
		for j, s := range f.Scale {
			if s > 0 {
				z += (y[j] - c[j]) / s
			}
		}
		return f.Amplitude / (1 + math.Exp(-z))
	}
	e := 0.0
	for j, s := range f.Scale {
		if s > 0 {
			d := (y[j] - c[j]) / s
			e += d * d
		}
	}
	return f.Amplitude * math.Exp(-e/2)
}

// predictDraws is the number of simulated releases of the stand-in per k;
// predictSeed their fixed, public seed.
const (
	predictDraws = 48
	// autoKGoodEnough is AutoK's stopping error, as a share of the
	// stand-in's amplitude (0.1 %).
	autoKGoodEnough = 1e-3
	// autoKMaxCoefficients bounds the lattice of an automatic k
	// (maxAutoCoverSize).
	autoKMaxCoefficients = 1 << 16
	predictSeed          = 0x5eed
	// predictShift is how far from ½ the stand-in's centre is drawn.
	predictShift = 0.2
)

// predictGrid returns the points per axis of the prediction grid for dim
// axes (about 300 000 points at most).
func predictGrid(dim int) int {
	return [...]int{0, 257, 65, 25, 13, 9, 7}[dim]
}

// PredictedError returns the predicted mean sup-norm error of a release
// with parameters p (ε, δ, noise, h and k, validated by Params.Validate) of
// a function like the stand-in f: the mean over predictDraws seeded
// simulated releases of f of the sup-norm error on the prediction grid. It
// reads only public quantities (p, the sensitivity, f). Errors are
// *ParamError values.
func PredictedError(p Params, sensitivity float64, f StandIn) (float64, error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return 0, err
	}
	if err := p.Validate(); err != nil {
		return 0, err
	}
	if err := f.validate(len(p.K)); err != nil {
		return 0, err
	}
	scale, err := noiseScaleValid(sensitivity, p)
	if err != nil {
		return 0, err
	}
	return predictStandIn(p, scale, f), nil
}

// predictStandIn is PredictedError for validated arguments.
func predictStandIn(p Params, scale float64, f StandIn) float64 {
	dim := len(p.K)
	gn := predictGrid(dim)
	ys := make([]float64, gn)
	for i := range ys {
		ys[i] = float64(i) / float64(gn-1)
	}
	mats := make([][]float64, dim) // per axis: gn × (k_j+1), rows b^(h)(y_i)
	for j, kj := range p.K {
		b := NewIteratedBasis(kj, p.H)
		m := make([]float64, gn*(kj+1))
		for i, y := range ys {
			b.At(y, m[i*(kj+1):(i+1)*(kj+1)])
		}
		mats[j] = m
	}
	lat := Lattice{K: p.K}
	coef := make([]float64, lat.Size())
	truth := make([]float64, int(math.Pow(float64(gn), float64(dim))))
	pt := make([]float64, dim)
	idx := make([]int, dim)
	centre := make([]float64, dim)
	src := NewSimulationNoise(predictSeed)
	sum := 0.0
	for range predictDraws {
		// A fresh centre per draw in [½ − predictShift, ½ + predictShift]
		// per axis: F_D's features sit anywhere, not on the lattice.
		for j := range centre {
			centre[j] = 0.5 + predictShift*(2*src.r.Float64()-1)
		}
		for i := range coef {
			lat.Point(i, pt)
			coef[i] = f.at(pt, centre)
			if p.Noise == NoiseGaussian {
				coef[i] += src.Gaussian(scale)
			} else {
				coef[i] += src.Laplace(scale)
			}
		}
		for g := range truth {
			r := g
			for j := dim - 1; j >= 0; j-- {
				idx[j] = r % gn
				r /= gn
			}
			for j := range pt {
				pt[j] = ys[idx[j]]
			}
			truth[g] = f.at(pt, centre)
		}
		rel := contractAxes(coef, p.K, mats, gn)
		worst := 0.0
		for g, v := range rel {
			worst = max(worst, math.Abs(v-truth[g]))
		}
		sum += worst
	}
	return sum / predictDraws
}

// contractAxes applies the per-axis matrices mats[j] (gn × (k_j+1),
// row-major) to the coefficient tensor c (lattice order, last axis fastest)
// and returns the gn^ℓ values on the grid (same order).
func contractAxes(c []float64, k []int, mats [][]float64, gn int) []float64 {
	shape := make([]int, len(k))
	for j, kj := range k {
		shape[j] = kj + 1
	}
	cur := c
	for j := range k {
		pre, post := 1, 1
		for i := 0; i < j; i++ {
			pre *= shape[i]
		}
		for i := j + 1; i < len(shape); i++ {
			post *= shape[i]
		}
		n := shape[j]
		out := make([]float64, pre*gn*post)
		m := mats[j]
		for a := range pre {
			for g := range gn {
				row := m[g*n : (g+1)*n]
				dst := out[(a*gn+g)*post : (a*gn+g+1)*post]
				for i, w := range row {
					if w == 0 {
						continue
					}
					src := cur[(a*n+i)*post : (a*n+i+1)*post]
					for q, v := range src {
						dst[q] += w * v
					}
				}
			}
		}
		cur = out
		shape[j] = gn
	}
	return cur
}

// AutoK returns the cover size k (the same on every one of dim axes) that
// minimises the predicted error of PredictedError over the valid k of p's
// ε, δ, noise kind and order h (p.K is ignored; k runs over 1..12, then
// steps of about 12%). It is the rule of ResolveK with auto, and the
// centre of `choose`'s candidate list. Guarantee: it depends only on p,
// dim, the sensitivity and f — public quantities — never on F_D. Ties go
// to the smaller k. Every iterated Bernstein polynomial interpolates at the
// corner y = 0 (b^(h)_ν(0) = [ν = 0]), so the error there is the corner's
// noise alone and E(k) ≥ E|Z_0| = λ(k)·e, e = 1 (Laplace) or √(2/π)
// (Gaussian), which grows with k: the search stops at the first k whose
// floor reaches the best error so far, so it builds only the bases it
// needs. It also stops at the first k whose predicted error is at most
// autoKGoodEnough·a (a the stand-in's amplitude): a larger k cannot improve
// on an error that small by anything a curator would see, and at a huge ε
// (noise negligible) the error falls with k up to the largest lattice,
// whose preview and release would take minutes for nothing. Errors are
// *ParamError values (invalid ε, δ, noise, h, dim, sensitivity or
// stand-in).
func AutoK(p Params, dim int, sensitivity float64, f StandIn) (int, error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return 0, err
	}
	// ε, δ, the noise kind, h and dim, with a placeholder k (laplace-approx's
	// composition depends on k: it is checked per candidate below).
	base := p
	base.K = slices.Repeat([]int{1}, max(dim, 0))
	if base.Noise == NoiseLaplaceApprox {
		base.Noise = NoiseGaussian // the same δ rule
	}
	if err := base.Validate(); err != nil {
		return 0, err
	}
	if err := f.validate(dim); err != nil {
		return 0, err
	}
	best, bestErr := 0, math.Inf(1)
	var lastErr error
	for _, k := range autoKCandidates(maxAutoCoverSize(dim)) {
		q := p
		q.K = slices.Repeat([]int{k}, dim)
		if lastErr = q.Validate(); lastErr != nil {
			continue // e.g. laplace-approx composition beyond ε
		}
		scale, err := noiseScaleValid(sensitivity, q)
		if err != nil {
			continue
		}
		floor := scale
		if q.Noise == NoiseGaussian {
			floor *= math.Sqrt(2 / math.Pi)
		}
		if floor >= bestErr {
			break
		}
		e := predictStandIn(q, scale, f)
		if e < bestErr {
			best, bestErr = k, e
		}
		if e <= autoKGoodEnough*f.Amplitude {
			break
		}
	}
	if best == 0 {
		return 0, lastErr // no valid k at all
	}
	return best, nil
}

// maxAutoCoverSize is the largest k AutoK considers in dim dimensions:
// (k+1)^dim ≤ autoKMaxCoefficients (2¹⁶ coefficients, a synopsis of about
// 0.5 MB; k ≤ 255 in two dimensions, k ≤ 39 in three) and k ≤ MaxK. A
// public cost rule, not a statistical one: beyond it the preview and the
// release take minutes (at ε = 10⁹ the predicted error falls with k up to
// the largest lattice); a curator who wants more sets k by hand.
func maxAutoCoverSize(dim int) int {
	return coverSizeWithin(dim, min(autoKMaxCoefficients, MaxCoefficients))
}

// MaxAutoCoverSize is the largest k the automatic rule considers in dim
// dimensions (at most 2¹⁶ coefficients, k ≤ MaxK): the public cost bound
// of a k any automatic search proposes (study.FindEpsilon's k
// minimisation stays within it). dim is assumed in [1, MaxDim].
func MaxAutoCoverSize(dim int) int { return maxAutoCoverSize(dim) }

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
