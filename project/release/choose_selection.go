package release

import (
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// ChoiceSelection is how a private choice selects among its candidates,
// decided from public quantities alone: the candidates' score
// sensitivities β_i and the score's range (they depend on n, the learner's
// parameters, the public bounds and ε of the release, never on a record),
// and ε_sel. docs/validation.md, "Per-candidate sensitivities".
type ChoiceSelection struct {
	// Betas are the candidates' score sensitivities β_i, in order.
	Betas []float64
	// Beta is max_i β_i; BetaBase the largest β_i of the Bernstein
	// candidates (0 when there is none).
	Beta, BetaBase float64
	// ScoreBound bounds every |q_i| (the score's public range).
	ScoreBound float64
	// Generalized is set when the other mechanisms' β_i are at least twice
	// BetaBase (mechanism.PreferGeneralized): the selection is then the
	// generalized exponential mechanism, each candidate compared at its
	// own β_i — at every ε_sel for which its normalised scores can be
	// evaluated exactly (mechanism.GeneralizedSelection.Exact; else, a
	// public fallback, NoisyMax at β = Beta).
	Generalized bool
}

// newChoiceSelection returns the selection for candidates cands of
// sensitivities betas and a score bounded by bound (the one home of that
// rule).
func newChoiceSelection(cands []Candidate, betas []float64, bound float64) ChoiceSelection {
	s := ChoiceSelection{Betas: slices.Clone(betas), ScoreBound: bound}
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

// generalized returns the generalized selection's setting at ε_sel and
// γ, and whether it is the one used: Generalized and exact at ε_sel.
func (s ChoiceSelection) generalized(epsilonSelect, gamma float64) (mechanism.GeneralizedSelection, bool) {
	g := mechanism.GeneralizedSelection{Betas: s.Betas, Bound: s.ScoreBound, Epsilon: epsilonSelect, Gamma: gamma}
	return g, s.Generalized && g.Exact()
}

// Scale returns the Laplace scale of the selection noise at ε_sel and γ:
// 2β/ε_sel, or 2(1 + 10⁻⁶)/ε_sel on the normalised scores of the
// generalized selection.
func (s ChoiceSelection) Scale(epsilonSelect, gamma float64) float64 {
	if g, ok := s.generalized(epsilonSelect, gamma); ok {
		return g.Scale()
	}
	return 2 * s.Beta / epsilonSelect
}

// UtilityBound returns t such that, except with probability gamma, the
// chosen candidate's score is at least the best score minus t
// (mechanism.NoisyMaxUtilityBound) — with the generalized selection, at
// least every Bernstein candidate's score minus t (its UtilityBound at
// BetaBase; another candidate j's minus its UtilityBound at β_j). It
// panics on ε_sel ≤ 0 (validate first).
func (s ChoiceSelection) UtilityBound(epsilonSelect, gamma float64) float64 {
	if g, ok := s.generalized(epsilonSelect, gamma); ok {
		return g.UtilityBound(s.BetaBase)
	}
	return mechanism.NoisyMaxUtilityBound(len(s.Betas), s.Beta, epsilonSelect, gamma)
}

// selectSecure selects among the private scores with secure noise. Which
// selection runs depends on public quantities only.
func (s ChoiceSelection) selectSecure(scores []float64, epsilonSelect, gamma float64) (mechanism.Selection, error) {
	if g, ok := s.generalized(epsilonSelect, gamma); ok {
		return g.Select(scores)
	}
	return mechanism.NoisyMax(scores, s.Beta, epsilonSelect)
}

// GeneralizedWords describes the generalized selection at ε_sel and
// failure probability gamma for the curator and standard output (public
// quantities only); "" when the selection is plain NoisyMax, which the
// callers describe by β and its Laplace scale.
func (s ChoiceSelection) GeneralizedWords(epsilonSelect, gamma float64) string {
	if _, ok := s.generalized(epsilonSelect, gamma); !ok {
		return ""
	}
	g, _ := s.generalized(epsilonSelect, gamma)
	return fmt.Sprintf("The other mechanisms' score sensitivities (up to β = %.3g) are at least twice the Bernstein settings' "+
		"(β = %.3g), so each setting is compared at its own (the generalized exponential mechanism: selection noise "+
		"Laplace(%.3g) on scores normalised by β, and a penalty per unit of β): with probability %g the chosen setting's "+
		"score is within %.3g of every Bernstein setting's, and within %.3g of any setting's.",
		s.Beta, s.BetaBase, s.Scale(epsilonSelect, gamma), 1-gamma, s.UtilityBound(epsilonSelect, gamma), g.UtilityBound(s.Beta))
}

// RandomWords warns, for the curator and standard error, when the
// selection's utility bound at ε_sel is at least the scores' public bound
// (ScoreBound: the scores' whole range is about that wide): the
// guarantee then says nothing and the choice is close to a random pick
// (a walkthrough found "within 2.32" meaningless for a balanced accuracy
// in [0, 1]). "" otherwise. Public quantities only.
func (s ChoiceSelection) RandomWords(epsilonSelect, gamma float64) string {
	if s.ScoreBound <= 0 || s.UtilityBound(epsilonSelect, gamma) < s.ScoreBound {
		return ""
	}
	return fmt.Sprintf("At ε = %.3g this guarantee is as wide as the scores' whole range (about %.3g): the choice is close "+
		"to a random pick among the settings. A larger ε for the choice makes it meaningful.", epsilonSelect, s.ScoreBound)
}

// ledgerWords is what the ledger entry's note adds about the selection at
// ε_sel and γ: "" for NoisyMax, the Bernstein candidates' β and the method
// otherwise.
func (s ChoiceSelection) ledgerWords(epsilonSelect, gamma float64) string {
	if _, ok := s.generalized(epsilonSelect, gamma); !ok {
		return ""
	}
	return fmt.Sprintf(", Bernstein β = %.4g, each candidate at its own β: generalized exponential mechanism", s.BetaBase)
}
