package release

import (
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// ChoiceSelection is how a private choice selects among its candidates,
// decided from their score sensitivities β_i alone (public: they depend on
// n, the learner's parameters, the public bounds and ε of the release,
// never on a record). docs/validation.md, "Per-candidate sensitivities".
type ChoiceSelection struct {
	// Betas are the candidates' score sensitivities β_i, in order.
	Betas []float64
	// Beta is max_i β_i; BetaBase the largest β_i of the Bernstein
	// candidates (0 when there is none).
	Beta, BetaBase float64
	// Generalized is set when the other mechanisms' β_i are at least twice
	// BetaBase (mechanism.PreferGeneralized): the selection is then
	// mechanism.GeneralizedNoisyMax, each candidate compared at its own
	// β_i; otherwise it is mechanism.NoisyMax at β = Beta.
	Generalized bool
}

// newChoiceSelection returns the selection for candidates cands of
// sensitivities betas (the one home of that rule).
func newChoiceSelection(cands []Candidate, betas []float64) ChoiceSelection {
	s := ChoiceSelection{Betas: slices.Clone(betas)}
	base := make([]bool, len(cands))
	for i, c := range cands {
		base[i] = !c.peer()
		s.Beta = max(s.Beta, betas[i])
		if base[i] {
			s.BetaBase = max(s.BetaBase, betas[i])
		}
	}
	s.Generalized = mechanism.PreferGeneralized(betas, base)
	return s
}

// Scale returns the Laplace scale of the selection noise at ε_sel: 2β/ε_sel,
// or 2(1 + 10⁻⁶)/ε_sel on the normalised scores of the generalized
// selection.
func (s ChoiceSelection) Scale(epsilonSelect float64) float64 {
	if s.Generalized {
		return 2 * (1 + 1e-6) / epsilonSelect
	}
	return 2 * s.Beta / epsilonSelect
}

// UtilityBound returns t such that, except with probability gamma, the
// chosen candidate's score is at least the best score minus t
// (mechanism.NoisyMaxUtilityBound) — with the generalized selection, at
// least every Bernstein candidate's score minus t
// (mechanism.GeneralizedUtilityBound at BetaBase; another candidate j's
// minus (8β_j/ε_sel)·ln(N/γ)). It panics on ε_sel ≤ 0 (validate first).
func (s ChoiceSelection) UtilityBound(epsilonSelect, gamma float64) float64 {
	if s.Generalized {
		return mechanism.GeneralizedUtilityBound(len(s.Betas), s.BetaBase, epsilonSelect, gamma)
	}
	return mechanism.NoisyMaxUtilityBound(len(s.Betas), s.Beta, epsilonSelect, gamma)
}

// selectSecure selects among the private scores with secure noise.
func (s ChoiceSelection) selectSecure(scores []float64, epsilonSelect, gamma float64) (mechanism.Selection, error) {
	if s.Generalized {
		return mechanism.GeneralizedNoisyMax(scores, s.Betas, epsilonSelect, gamma)
	}
	return mechanism.NoisyMax(scores, s.Beta, epsilonSelect)
}

// GeneralizedWords describes the generalized selection at ε_sel and
// failure probability gamma for the curator and standard output (public
// quantities only); "" when the selection is plain NoisyMax, which the
// callers describe by β and its Laplace scale.
func (s ChoiceSelection) GeneralizedWords(epsilonSelect, gamma float64) string {
	if !s.Generalized {
		return ""
	}
	return fmt.Sprintf("The other mechanisms' score sensitivities (up to β = %.3g) are more than twice the Bernstein settings' "+
		"(β = %.3g), so each setting is compared at its own (the generalized exponential mechanism: selection noise "+
		"Laplace(%.3g) on scores normalised by β, and a penalty per unit of β): with probability %g the chosen setting's "+
		"score is within %.3g of every Bernstein setting's, and within 8β/ε·ln(N/γ) of any other's.",
		s.Beta, s.BetaBase, s.Scale(epsilonSelect), 1-gamma, s.UtilityBound(epsilonSelect, gamma))
}

// ledgerWords is what the ledger entry's note adds about the selection:
// "" for NoisyMax, the Bernstein candidates' β and the method otherwise.
func (s ChoiceSelection) ledgerWords() string {
	if !s.Generalized {
		return ""
	}
	return fmt.Sprintf(", Bernstein β = %.4g, each candidate at its own β: generalized exponential mechanism", s.BetaBase)
}
