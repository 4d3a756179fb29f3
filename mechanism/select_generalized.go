package mechanism

import (
	"errors"
	"fmt"
	"math"
)

// The generalized exponential mechanism of Raskhodnikova & Smith
// ("Lipschitz extensions for node-private graph statistics and the
// generalized exponential mechanism", FOCS 2016, §4), in report-noisy-max
// form: a private selection among candidates whose scores have DIFFERENT
// sensitivities β_i. NoisyMax needs one β for all, so one candidate with a
// large β (a mechanism whose proxy release moves much with one training
// record) adds its noise to every comparison; here each candidate is
// compared in units of its own β and pays for a large one with a public
// penalty. docs/validation.md, "Per-candidate sensitivities", derives it.

// generalizedRounding is the relative slack on the normalised scores'
// sensitivity 1 that covers their floating-point evaluation (see
// GeneralizedScores).
const generalizedRounding = 1e-6

// ValidateGeneralizedSelection checks the arguments of GeneralizedNoisyMax:
// at least one score, every score finite, one β_i > 0 finite per score,
// ε as ValidateSelection and γ ∈ (0, 1). Errors are *ParamError values.
func ValidateGeneralizedSelection(scores, betas []float64, epsilon, gamma float64) error {
	if err := ValidateSelection(scores, 1, epsilon); err != nil {
		return err
	}
	if len(betas) != len(scores) {
		return paramErr("betas", len(betas), "need one score sensitivity per candidate (%d)", len(scores))
	}
	for i, b := range betas {
		if !finitePositive(b) {
			return paramErr(fmt.Sprintf("betas[%d]", i), b, "a score sensitivity β must be > 0 and finite")
		}
	}
	if !(gamma > 0 && gamma < 1) {
		return paramErr("gamma", gamma, "the failure probability γ must lie in (0, 1)")
	}
	return nil
}

// GeneralizedPenalty returns t = (4/ε)·ln(N/γ), the public penalty per
// unit of β of GeneralizedScores for N candidates: twice the largest
// selection noise u = (2/ε)·ln(N/γ) of the N draws, except with
// probability γ (see GeneralizedUtilityBound). It panics on N < 1 or
// arguments outside ValidateGeneralizedSelection (programmer misuse).
func GeneralizedPenalty(n int, epsilon, gamma float64) float64 {
	if n < 1 || !finitePositive(epsilon) || !(gamma > 0 && gamma < 1) {
		panic(fmt.Sprintf("mechanism.GeneralizedPenalty: n = %d, epsilon = %g, gamma = %g: need n ≥ 1, ε > 0, γ ∈ (0,1)", n, epsilon, gamma))
	}
	return 4 / epsilon * math.Log(float64(n)/gamma)
}

// GeneralizedScores returns the normalised scores
//
//	s_i = min_j ((q_i − t·β_i) − (q_j − t·β_j)) / (β_i + β_j),   t = penalty,
//
// over all j (j = i included, so s_i ≤ 0, and the candidate of the largest
// penalised score q_j − t·β_j has s = 0).
//
// Guarantee: if every q_i moves by at most β_i between neighbouring
// datasets, in any direction, every s_i moves by at most 1: each
// difference q_i − q_j moves by at most β_i + β_j, the penalties are
// public, and a minimum of functions that each move by at most 1 moves by
// at most 1. Evaluated in float64, each ratio is off by at most a few ulps
// of (|a_i| + |a_j|)/(β_i + β_j), a_i = q_i − t·β_i; GeneralizedNoisyMax
// refuses scores for which that exceeds generalizedRounding/2
// (generalizedRoundingOK) and calibrates for sensitivity 1 + generalizedRounding.
//
// Arguments as ValidateGeneralizedSelection (it panics on a length
// mismatch: programmer misuse).
func GeneralizedScores(scores, betas []float64, penalty float64) []float64 {
	if len(scores) != len(betas) {
		panic(fmt.Sprintf("mechanism.GeneralizedScores: %d scores, %d sensitivities", len(scores), len(betas)))
	}
	a := make([]float64, len(scores))
	for i, q := range scores {
		a[i] = q - penalty*betas[i]
	}
	out := make([]float64, len(scores))
	for i := range a {
		s := 0.0 // j = i
		for j := range a {
			if j != i {
				s = min(s, (a[i]-a[j])/(betas[i]+betas[j]))
			}
		}
		out[i] = s
	}
	return out
}

// generalizedRoundingOK reports whether the float64 evaluation of
// GeneralizedScores stays within generalizedRounding/2 of the exact
// values, so that two neighbours' computed scores move by at most
// 1 + generalizedRounding. With u = 2⁻⁵³: a_i = q_i − t·β_i is off by at
// most 2u·(|q_i| + t·β_i); a ratio (a_i − a_j)/(β_i + β_j) by at most
// 2·2u·(Q + t·B)/(β_i + β_j) from them plus 3u·|ratio| from its own three
// operations, and |ratio| ≤ (Q + t·B)/b with Q = max|q|, B = max β,
// b = min β; a minimum is off by at most the largest error of its terms.
// In all the error is at most 5u·(Q + t·B)/b.
func generalizedRoundingOK(scores, betas []float64, penalty float64) bool {
	var q, big float64
	small := math.Inf(1)
	for i, v := range scores {
		q = max(q, math.Abs(v))
		big = max(big, betas[i])
		small = min(small, betas[i])
	}
	return 5*0x1p-53*(q+penalty*big)/small <= generalizedRounding/2
}

// GeneralizedNoisyMax returns
//
//	i* = argmax_i  s_i + Z_i,   Z_i i.i.d. Laplace(2(1 + 10⁻⁶)/ε),
//
// s = GeneralizedScores(q, β, GeneralizedPenalty(N, ε, γ)), by NoisyMax
// with score sensitivity 1 + 10⁻⁶ (secure noise from
// github.com/google/differential-privacy/go/v3/noise). Selection.Scale is
// that Laplace scale, in the normalised scores' units.
//
// Guarantee: if every q_i moves by at most β_i between neighbouring
// datasets, in any direction, the index is ε-differentially private (each
// s_i moves by at most 1, plus its rounding; NoisyMax's proof).
//
// Utility: with probability ≥ 1 − γ, for EVERY candidate j,
// q_{i*} ≥ q_j − (8β_j/ε)·ln(N/γ) (GeneralizedUtilityBound): a candidate
// is compared at a distance set by its own β, not by the largest.
//
// Arguments are validated by ValidateGeneralizedSelection; scores whose
// normalisation cannot be evaluated to within 10⁻⁶ ((|q| + t·max β)/min β
// beyond ~10⁹) are refused.
func GeneralizedNoisyMax(scores, betas []float64, epsilon, gamma float64) (Selection, error) {
	s, err := generalizedNormalised(scores, betas, epsilon, gamma)
	if err != nil {
		return Selection{}, err
	}
	return NoisyMax(s, 1+generalizedRounding, epsilon)
}

// SimulateGeneralizedNoisyMax is GeneralizedNoisyMax with seeded Laplace
// noise from src, for tests and simulations only.
func SimulateGeneralizedNoisyMax(scores, betas []float64, epsilon, gamma float64, src *SimulationNoise) (SimulatedSelection, error) {
	if src == nil {
		return SimulatedSelection{}, errors.New("mechanism.SimulateGeneralizedNoisyMax: nil simulation noise source")
	}
	s, err := generalizedNormalised(scores, betas, epsilon, gamma)
	if err != nil {
		return SimulatedSelection{}, err
	}
	return SimulateNoisyMax(s, 1+generalizedRounding, epsilon, src)
}

// generalizedNormalised validates and returns GeneralizedScores at the
// penalty of N = len(scores), ε and γ.
func generalizedNormalised(scores, betas []float64, epsilon, gamma float64) ([]float64, error) {
	if err := ValidateGeneralizedSelection(scores, betas, epsilon, gamma); err != nil {
		return nil, err
	}
	t := GeneralizedPenalty(len(scores), epsilon, gamma)
	if !generalizedRoundingOK(scores, betas, t) {
		return nil, paramErr("scores", fmt.Sprintf("%d scores", len(scores)),
			"too large next to their sensitivities for the normalised scores to be exact to 10⁻⁶")
	}
	return GeneralizedScores(scores, betas, t), nil
}

// GeneralizedUtilityBound returns (8β/ε)·ln(N/γ): with probability ≥ 1 − γ
// the candidate GeneralizedNoisyMax returns scores at least q_j minus this
// bound at β = β_j, for every candidate j at once.
//
// Derivation: with Z_i ~ Laplace(λ), λ = 2/ε (the 10⁻⁶ aside),
// P(max_i |Z_i| ≥ u) ≤ N·e^{−u/λ} = γ at u = (2/ε)·ln(N/γ). Then
// s_{i*} ≥ s_o − 2u = −2u for the candidate o of the largest penalised
// score, i.e. for every j: (q_{i*} − tβ_{i*}) − (q_j − tβ_j) ≥ −2u(β_{i*} + β_j),
// so q_{i*} ≥ q_j − (t + 2u)β_j + (t − 2u)β_{i*} = q_j − 4u·β_j with t = 2u
// (GeneralizedPenalty). NoisyMax's bound with one β = max_i β_i is
// (4β/ε)·ln(N/γ): the generalized one is better for every candidate with
// β_j < β/2. It panics on arguments NoisyMaxUtilityBound refuses.
func GeneralizedUtilityBound(n int, beta, epsilon, gamma float64) float64 {
	return 2 * NoisyMaxUtilityBound(n, beta, epsilon, gamma)
}

// PreferGeneralized is the public rule that picks the selection for
// candidates of sensitivities betas, of which the first-class ones (base[i]
// true: the Bernstein releases a private choice compares) set the common
// β_B = max_{base} β_i: the generalized selection when the largest β is at
// least 2·β_B, i.e. when the other candidates would at least double the
// common β of NoisyMax. Then the generalized bound (8β_j/ε)·ln(N/γ) is at
// most NoisyMax's (4·max β/ε)·ln(N/γ) for every base candidate j: no
// base candidate's guarantee gets worse.
// Without a base candidate it returns false. It depends on the β_i only.
func PreferGeneralized(betas []float64, base []bool) bool {
	var all, b float64
	for i, v := range betas {
		all = max(all, v)
		if base[i] {
			b = max(b, v)
		}
	}
	return b > 0 && all >= 2*b
}
