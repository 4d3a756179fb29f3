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

// generalizedRounding is the relative slack r on the normalised scores'
// sensitivity 1 that covers their floating-point evaluation: the noise is
// calibrated for sensitivity 1 + r.
const generalizedRounding = 1e-6

// GeneralizedSelection is the public setting of a generalized selection:
// everything but the scores. Build it once and Validate it where the
// setting enters (before anything is spent); every quantity it states
// (penalty, scale, utility bound, whether it can be evaluated exactly)
// depends on these public fields only.
type GeneralizedSelection struct {
	// Betas are the candidates' score sensitivities β_i > 0: each score q_i
	// moves by at most β_i between neighbouring datasets.
	Betas []float64
	// Bound is a public bound on every |q_i| (the score's range); scores
	// are clamped to [−Bound, Bound], which keeps every sensitivity.
	Bound float64
	// Epsilon is the selection's ε, Gamma the failure probability of the
	// utility bound (it also sets the penalty).
	Epsilon, Gamma float64
}

// Validate checks the setting: at least one candidate, every β_i > 0
// finite, Bound > 0 finite, ε as ValidateSelection, γ ∈ (0, 1), and that
// the normalised scores can be evaluated in float64 to within r/2 of their
// exact values for ANY scores within ±Bound (generalizedExact): a check on
// public quantities, so that a refusal never depends on the data. Errors
// are *ParamError values.
func (g GeneralizedSelection) Validate() error {
	if len(g.Betas) == 0 {
		return paramErr("betas", "[]", "need at least one candidate")
	}
	for i, b := range g.Betas {
		if !finitePositive(b) {
			return paramErr(fmt.Sprintf("betas[%d]", i), b, "a score sensitivity β must be > 0 and finite")
		}
	}
	if !finitePositive(g.Bound) {
		return paramErr("bound", g.Bound, "the public bound on the scores must be > 0 and finite")
	}
	if err := ValidateSelection([]float64{0}, 1, g.Epsilon); err != nil {
		return err
	}
	if !(g.Gamma > 0 && g.Gamma < 1) {
		return paramErr("gamma", g.Gamma, "the failure probability γ must lie in (0, 1)")
	}
	if !g.exact() {
		return paramErr("betas", fmt.Sprintf("%d sensitivities from %.3g", len(g.Betas), minOf(g.Betas)),
			"too small next to the score bound %g for normalised scores exact to 10⁻⁶", g.Bound)
	}
	return nil
}

// Exact reports whether Validate's float64 check holds (and the other
// fields are valid): callers use it to fall back to NoisyMax, a public
// decision, instead of refusing.
func (g GeneralizedSelection) Exact() bool { return g.Validate() == nil }

// exact reports whether the float64 evaluation of the normalised scores
// stays within r/2 of the exact values for every score vector within
// ±Bound, so that two neighbours' computed scores move by at most 1 + r.
// With u = 2⁻⁵³: a_i = q_i − t·β_i is off by at most 2u·(|q_i| + t·β_i); a
// ratio (a_i − a_j)/(β_i + β_j) by at most 2·2u·(Q + t·B)/(β_i + β_j) from
// them plus 3u·|ratio| from its own three operations, |ratio| ≤ (Q + t·B)/b
// with Q = Bound, B = max β, b = min β; a minimum and the clamp at −L are
// off by at most the largest error of their terms. In all at most
// 5u·(Q + t·B)/b.
func (g GeneralizedSelection) exact() bool {
	return 5*0x1p-53*(g.Bound+g.Penalty()*maxOf(g.Betas))/minOf(g.Betas) <= generalizedRounding/2
}

// Scale returns the Laplace scale λ = 2(1 + r)/ε of the noise on the
// normalised scores (r = 10⁻⁶).
func (g GeneralizedSelection) Scale() float64 { return 2 * (1 + generalizedRounding) / g.Epsilon }

// Penalty returns t = 2u = 2λ·ln(N/γ): twice the level u that no noise
// draw of the N candidates exceeds, except with probability γ.
func (g GeneralizedSelection) Penalty() float64 {
	return 2 * g.Scale() * math.Log(float64(len(g.Betas))/g.Gamma)
}

// floor returns L = t + 40λ, the clamp of the normalised scores from
// below: a public constant beyond which a score wins only with
// probability < γ·e^{−40}, so the clamp changes no guarantee, and keeps
// |s_i| small next to λ (the noise library's additions stay exact to its
// granularity).
func (g GeneralizedSelection) floor() float64 { return g.Penalty() + 40*g.Scale() }

// Normalised returns the normalised scores
//
//	s_i = max(−L, min_j ((c(q_i) − t·β_i) − (c(q_j) − t·β_j)) / (β_i + β_j)),   t = Penalty(),
//
// over all j (j = i included, so s_i ≤ 0, and the candidate of the largest
// penalised score has s = 0), c the clamp to [−Bound, Bound] and L = t + 40λ.
//
// Guarantee: if every q_i moves by at most β_i between neighbouring
// datasets, in any direction, every s_i moves by at most 1 (+ r for the
// float64 evaluation, which Validate bounds): c is 1-Lipschitz, so each
// difference c(q_i) − c(q_j) moves by at most β_i + β_j; t, β and L are
// public; a minimum, and a maximum with a constant, of functions that each
// move by at most 1 move by at most 1. It errs on an invalid setting
// (Validate), a score count other than len(Betas) or a non-finite score.
func (g GeneralizedSelection) Normalised(scores []float64) ([]float64, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if err := ValidateSelection(scores, 1, g.Epsilon); err != nil {
		return nil, err
	}
	if len(scores) != len(g.Betas) {
		return nil, paramErr("scores", len(scores), "need one score per sensitivity (%d)", len(g.Betas))
	}
	t, floor := g.Penalty(), g.floor()
	a := make([]float64, len(scores))
	for i, q := range scores {
		a[i] = min(max(q, -g.Bound), g.Bound) - t*g.Betas[i]
	}
	out := make([]float64, len(scores))
	for i := range a {
		s := 0.0 // j = i
		for j := range a {
			if j != i {
				s = min(s, (a[i]-a[j])/(g.Betas[i]+g.Betas[j]))
			}
		}
		out[i] = max(s, -floor)
	}
	return out, nil
}

// Select returns
//
//	i* = argmax_i  s_i + Z_i,   Z_i i.i.d. Laplace(2(1 + 10⁻⁶)/ε),
//
// s = Normalised(q), by NoisyMax with score sensitivity 1 + 10⁻⁶ (secure
// noise from github.com/google/differential-privacy/go/v3/noise).
// Selection.Scale is that Laplace scale, in the normalised scores' units.
//
// Guarantee: if every q_i moves by at most β_i between neighbouring
// datasets, in any direction, the index is ε-differentially private (each
// s_i moves by at most 1 + 10⁻⁶; NoisyMax's proof). A refusal depends on
// the public setting only (Validate).
//
// Utility: with probability ≥ 1 − γ, for EVERY candidate j,
// q_{i*} ≥ q_j − UtilityBound(β_j): a candidate is compared at a distance
// set by its own β, not by the largest.
func (g GeneralizedSelection) Select(scores []float64) (Selection, error) {
	s, err := g.Normalised(scores)
	if err != nil {
		return Selection{}, err
	}
	return NoisyMax(s, 1+generalizedRounding, g.Epsilon)
}

// Simulate is Select with seeded Laplace noise from src, for tests and
// simulations only.
func (g GeneralizedSelection) Simulate(scores []float64, src *SimulationNoise) (SimulatedSelection, error) {
	if src == nil {
		return SimulatedSelection{}, errors.New("mechanism.GeneralizedSelection.Simulate: nil simulation noise source")
	}
	s, err := g.Normalised(scores)
	if err != nil {
		return SimulatedSelection{}, err
	}
	return SimulateNoisyMax(s, 1+generalizedRounding, g.Epsilon, src)
}

// UtilityBound returns 4u·β + r·(β + max_i β_i), u = λ·ln(N/γ): with
// probability ≥ 1 − γ the candidate Select returns scores at least q_j
// minus this bound at β = β_j, for every candidate j at once.
//
// Derivation: P(max_i |Z_i| ≥ u) ≤ N·e^{−u/λ} = γ. The candidate o of the
// largest penalised score has exact s_o = 0 (computed ≥ −r/2), so the
// winner's computed score is ≥ −2u − r/2 and its exact one ≥ −2u − r (above
// −L: the clamp does not act). Hence for every j
// (q_{i*} − tβ_{i*}) − (q_j − tβ_j) ≥ −(2u + r)(β_{i*} + β_j), and with t = 2u
// q_{i*} ≥ q_j − (4u + r)β_j − r·β_{i*}. NoisyMax's bound with one β = max_i β_i
// is (4β/ε)·ln(N/γ): the generalized one, (8(1 + r)β_j/ε)·ln(N/γ) plus the
// r term, is better for every candidate with β_j < β/2. It panics on an
// invalid setting (programmer misuse: Validate first).
func (g GeneralizedSelection) UtilityBound(beta float64) float64 {
	if err := g.Validate(); err != nil {
		panic(fmt.Sprintf("mechanism.GeneralizedSelection.UtilityBound: %v", err))
	}
	return 2*g.Penalty()*beta + generalizedRounding*(beta+maxOf(g.Betas))
}

// PreferGeneralized is the public rule that picks the selection for
// candidates of sensitivities betas, of which the first-class ones (base[i]
// true: the Bernstein releases a private choice compares) set the common
// β_B = max_{base} β_i: the generalized selection when the largest β is at
// least 2·β_B, i.e. when the other candidates would at least double the
// common β of NoisyMax. Then the generalized bound (8(1 + r)β_j/ε)·ln(N/γ)
// (+ the r term) is at most NoisyMax's (4·max β/ε)·ln(N/γ), up to the
// relative r = 10⁻⁶, for every base candidate j: no base candidate's
// guarantee gets worse. Without a base candidate it returns false. It
// depends on the β_i only.
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

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}
