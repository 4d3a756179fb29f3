package mechanism

import (
	"errors"
	"fmt"
	"math"

	"github.com/google/differential-privacy/go/v3/noise"
)

// Selection is the outcome of NoisyMax: the index of the chosen candidate.
// It is the only thing a private selection publishes (the noisy and the
// exact scores stay inside NoisyMax). Only NoisyMax, with secure noise,
// makes a Selection; SimulateNoisyMax returns a SimulatedSelection, a
// distinct type, so a seeded draw cannot stand in for a real selection.
type Selection struct {
	// Index is i* = argmax_i q_i + Z_i (lowest index on ties).
	Index int
	// Scale is the Laplace scale 2β/ε used for every Z_i (public).
	Scale float64
}

// SimulatedSelection is what NoisyMax could return, made with seeded
// SimulationNoise: for tests and simulations only, never a private choice.
type SimulatedSelection struct {
	Index int
	Scale float64
}

// ValidateSelection checks the arguments of NoisyMax: at least one score,
// every score finite, β > 0 finite (the bound on how much any single score
// can move between neighbouring datasets) and ε ≥ 2⁻⁵⁰ finite (the noise
// library's limit). Errors are *ParamError values.
func ValidateSelection(scores []float64, beta, epsilon float64) error {
	if len(scores) == 0 {
		return paramErr("scores", "[]", "need at least one candidate score")
	}
	for i, q := range scores {
		if math.IsNaN(q) || math.IsInf(q, 0) {
			return paramErr(fmt.Sprintf("scores[%d]", i), q, "must be finite")
		}
	}
	if !finitePositive(beta) {
		return paramErr("beta", beta, "the score sensitivity β must be > 0 and finite")
	}
	if !(epsilon >= minLibraryEpsilon) || math.IsInf(epsilon, 0) {
		return paramErr("epsilon", epsilon, "the selection ε must be finite and ≥ 2⁻⁵⁰")
	}
	scale := 2 * beta / epsilon
	if !finitePositive(scale) {
		return paramErr("beta", beta, "with ε = %g gives a noise scale 2β/ε = %g; it must be finite and > 0", epsilon, scale)
	}
	return nil
}

// NoisyMax is report-noisy-max with Laplace noise (Chaudhuri & Vinterbo,
// NIPS 2013, Algorithm 1 step 2, with Laplace in place of their exponential
// noise): it returns
//
//	i* = argmax_i  q_i + Z_i,   Z_i i.i.d. Laplace(2β/ε)
//
// (lowest index on ties) and nothing else. The noise comes from
// github.com/google/differential-privacy/go/v3/noise (secure randomness).
//
// Guarantee: if every score q_i changes by at most β between neighbouring
// datasets — in ANY direction, independently of the others — the returned
// index is ε-differentially private. Proof (C&V Lemmas 1–2, Dwork & Roth
// 2014 Claim 3.9 without its monotonicity assumption): fix Z_{−i}; i wins
// iff Z_i ≥ γ = max_{j≠i}(q_j + Z_j) − q_i, and γ moves by at most 2β
// between neighbours, so the ratio of the two winning probabilities is at
// most sup_γ P(Z ≥ γ)/P(Z ≥ γ + 2β) = e^{2β/(2β/ε)} = e^ε; integrate over
// Z_{−i}. The library's discretised Laplace (values rounded to a power of
// two g ≤ 2·(2β/ε)·2⁻⁴⁰, calibrated for l1 = 2β plus the rounding) adds at
// most 2⁻³⁹ to ε; see docs/validation.md.
//
// Utility: with probability ≥ 1 − γ, q_{i*} ≥ max_i q_i − (4β/ε)·ln(N/γ)
// (NoisyMaxUtilityBound).
//
// Arguments are validated by ValidateSelection.
func NoisyMax(scores []float64, beta, epsilon float64) (Selection, error) {
	if err := ValidateSelection(scores, beta, epsilon); err != nil {
		return Selection{}, err
	}
	lap := noise.Laplace()
	idx, err := noisyMax(scores, func(q float64) (float64, error) {
		return lap.AddNoiseFloat64(q, 1, 2*beta, epsilon, 0)
	})
	if err != nil {
		return Selection{}, err
	}
	return Selection{Index: idx, Scale: 2 * beta / epsilon}, nil
}

// SimulateNoisyMax is NoisyMax with seeded Laplace(2β/ε) noise from src,
// for tests and simulations only (the result is a SimulatedSelection).
func SimulateNoisyMax(scores []float64, beta, epsilon float64, src *SimulationNoise) (SimulatedSelection, error) {
	if src == nil {
		return SimulatedSelection{}, errors.New("mechanism.SimulateNoisyMax: nil simulation noise source")
	}
	if err := ValidateSelection(scores, beta, epsilon); err != nil {
		return SimulatedSelection{}, err
	}
	scale := 2 * beta / epsilon
	idx, err := noisyMax(scores, func(q float64) (float64, error) {
		return q + src.Laplace(scale), nil
	})
	if err != nil {
		return SimulatedSelection{}, err
	}
	return SimulatedSelection{Index: idx, Scale: scale}, nil
}

// noisyMax returns the index of the largest noisy score, the lowest on ties.
func noisyMax(scores []float64, addNoise func(float64) (float64, error)) (int, error) {
	best, bestVal := -1, math.Inf(-1)
	for i, q := range scores {
		v, err := addNoise(q)
		if err != nil {
			return 0, fmt.Errorf("secure noise for candidate %d: %w", i, err)
		}
		if math.IsNaN(v) {
			return 0, fmt.Errorf("noise for candidate %d: NaN noisy score", i)
		}
		if best < 0 || v > bestVal {
			best, bestVal = i, v
		}
	}
	return best, nil
}

// NoisyMaxUtilityBound returns the gap t with
//
//	P(q_{i*} < max_i q_i − t) ≤ gamma,  t = (4β/ε)·ln(N/γ)
//
// for NoisyMax over n candidates. Derivation: q_{i*} + Z_{i*} ≥ q_b + Z_b
// for the best candidate b, so the gap is at most Z_{i*} − Z_b ≤ 2·max_j|Z_j|,
// and P(max_j |Z_j| ≥ s) ≤ N·e^{−s/λ} with λ = 2β/ε; s = λ·ln(N/γ). (C&V's
// Theorem 3 has 2β·ln(N/γ)/ε for their one-sided exponential noise; the
// two-sided Laplace costs the factor 2.) It panics on n < 1, gamma ∉ (0,1)
// or a non-positive β or ε (programmer misuse: callers pass validated
// values).
func NoisyMaxUtilityBound(n int, beta, epsilon, gamma float64) float64 {
	if n < 1 || !(gamma > 0 && gamma < 1) || !finitePositive(beta) || !finitePositive(epsilon) {
		panic(fmt.Sprintf("mechanism.NoisyMaxUtilityBound: n = %d, beta = %g, epsilon = %g, gamma = %g: need n ≥ 1, β, ε > 0, γ ∈ (0,1)", n, beta, epsilon, gamma))
	}
	return 4 * beta / epsilon * math.Log(float64(n)/gamma)
}

// LebesgueBound returns Λ = max_μ Σ_ν |T[μ][ν]|, the row-sum norm of the
// transform T of b (b^(h)(y)ᵀ = b(y)ᵀT). It bounds the one-axis operator
// norm of coefficients ↦ iterated Bernstein polynomial in the sup norm:
//
//	Σ_ν |b^(h)_ν(y)| = Σ_ν |Σ_μ b_μ(y) T[μ][ν]| ≤ Σ_μ b_μ(y) Σ_ν |T[μ][ν]| ≤ Λ
//
// since b_μ(y) ≥ 0 and Σ_μ b_μ(y) = 1. So if every coefficient changes by at
// most s, the polynomial changes by at most Λ·s everywhere. Λ = 1 for h = 1
// and Λ ≤ 2^h − 1 (Eq. 12). For ℓ axes use LebesgueBoundK (the product).
func LebesgueBound(ib *IteratedBasis) float64 {
	n := ib.k + 1
	lam := 0.0
	for mu := 0; mu < n; mu++ {
		s := 0.0
		for _, x := range ib.t[mu*n : (mu+1)*n] {
			s += math.Abs(x)
		}
		lam = max(lam, s)
	}
	if ib.h == 1 {
		return 1 // T = I exactly
	}
	return lam
}

// LebesgueBoundK returns ∏_j LebesgueBound(NewIteratedBasis(k_j, h)), the
// bound on sup_y Σ_ν |∏_j b^(h)_{ν_j,k_j}(y_j)| for the multivariate
// polynomial of Definition 9 (the sum over ν factorises per axis). k and h
// are validated (ValidateK, ValidateH); errors are *ParamError values.
func LebesgueBoundK(k []int, h int) (float64, error) {
	if err := ValidateK(k); err != nil {
		return 0, err
	}
	if err := ValidateH(h); err != nil {
		return 0, err
	}
	lam := 1.0
	for _, kj := range k {
		lam *= LebesgueBound(NewIteratedBasis(kj, h))
	}
	return lam, nil
}
