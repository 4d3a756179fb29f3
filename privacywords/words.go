package privacywords

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// Direction marks which way a privacy control moves the guarantee: to the
// left (smaller ε, larger share of the noise) is more private, to the right
// more accurate. Shown beside every ε slider and field.
const Direction = "more private ← → more accurate"

// SplitShare is said wherever one ε is split between steps (the private
// choice and the release, the private bounds and the release): the shares
// are not a per-column or per-person allocation.
const SplitShare = "Giving a larger share of ε to one step does not protect any column or person more: " +
	"each person's guarantee is the total ε of all steps together."

// Factor is e^ε written for a reader: two decimals below 10, a whole
// number below a million, else two significant digits ("2.72", "148",
// "2.7e+43"). It assumes ε > 0 and finite.
func Factor(eps float64) string {
	f := math.Exp(eps)
	switch {
	case f < 10:
		return strconv.FormatFloat(f, 'f', 2, 64)
	case f < 1e6:
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 2, 64)
}

// Strength names the strength of the guarantee ε gives, in five bands:
// ≤ 0.1 very strong, ≤ 1 strong, ≤ 3 moderate, ≤ 10 weak, above very weak.
func Strength(eps float64) string {
	switch {
	case eps <= 0.1:
		return "Very strong privacy"
	case eps <= 1:
		return "Strong privacy"
	case eps <= 3:
		return "Moderate privacy"
	case eps <= 10:
		return "Weak privacy"
	}
	return "Very weak privacy"
}

// valid reports whether ε is a positive, finite number.
func valid(eps float64) bool { return eps > 0 && !math.IsInf(eps, 0) }

// Reading is the one-line reading of ε (and δ where the noise kind uses it)
// shown under the curator's privacy slider: for any two datasets that
// differ in one person's record, every published result is at most e^ε
// times more (or less) likely under one than under the other; δ is the
// probability that this fails.
func Reading(eps, delta float64, kind mechanism.NoiseKind) string {
	if !valid(eps) {
		return "ε must be a positive number."
	}
	return fmt.Sprintf("%s: adding or changing any one person's record makes any published result at most %s× more or less likely.",
		Strength(eps), Factor(eps)) + deltaSentence(delta, kind)
}

// OnePerson is what a published file's ε and δ mean for one person in the
// data, for the viewer's details and the CLI's inspect. It speaks of this
// file only: other releases from the same data add their own ε.
func OnePerson(eps, delta float64, kind mechanism.NoiseKind) string {
	if !valid(eps) {
		return "The file states no valid ε (it must be a positive number)."
	}
	return fmt.Sprintf("%s. For any one person in the data: whether their record is in it or not, and whatever it says, "+
		"everything this file shows (and anything computed from it) is at most %s× more or less likely. "+
		"Other releases from the same data add their own ε.", Strength(eps), Factor(eps)) + deltaSentence(delta, kind)
}

// BudgetLeft is what the ε left in a dataset's budget still allows, in the
// words of Reading: all further releases together may make any published
// result at most e^left more or less likely because of one person's record.
// left ≤ 0 says that nothing more can be released within the budget.
func BudgetLeft(left float64) string {
	if math.IsNaN(left) || left <= 1e-12 {
		return "Nothing is left: any further release would make the releases together reveal more about one person than the budget allows."
	}
	if math.IsInf(left, 1) {
		return "No limit: the budget does not bound what further releases reveal about one person."
	}
	return fmt.Sprintf("The ε = %s left still allows releases that together make any published result at most %s× more or less likely "+
		"because of any one person's record (%s, for all of them combined).",
		strconv.FormatFloat(left, 'g', 4, 64), Factor(left), lowerFirst(Strength(left)))
}

// deltaSentence is the δ part of a reading (empty for pure ε-DP noise or
// δ = 0).
func deltaSentence(delta float64, kind mechanism.NoiseKind) string {
	if kind == mechanism.NoiseLaplace || !(delta > 0) {
		return ""
	}
	return fmt.Sprintf(" δ = %s: probability %s that the ε guarantee fails.", strconv.FormatFloat(delta, 'g', 3, 64), OneIn(delta))
}

// OneIn writes a small probability as "1 in N" ("1 in a million"); values
// outside (0, 1) are written as numbers.
func OneIn(p float64) string {
	if !(p > 0) || p >= 1 {
		return strconv.FormatFloat(p, 'g', 3, 64)
	}
	n := 1 / p
	switch {
	case math.Abs(n-1e9) < 1e-6*1e9:
		return "1 in a billion"
	case math.Abs(n-1e6) < 1e-6*1e6:
		return "1 in a million"
	case n >= 1e9:
		return fmt.Sprintf("1 in %s billion", strconv.FormatFloat(n/1e9, 'g', 3, 64))
	case n >= 1e6:
		return fmt.Sprintf("1 in %s million", strconv.FormatFloat(n/1e6, 'g', 3, 64))
	}
	return fmt.Sprintf("1 in %s", strconv.FormatFloat(n, 'f', 0, 64))
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]|0x20) + s[1:]
}

// The two ends of a privacy slider. Each arrow follows its words: Fyne
// draws a label that starts with an arrow and a space with a stray glyph.
const (
	DirectionPrivate  = "more private ←"
	DirectionAccurate = "more accurate →"
)

// FieldDirection is the direction mark of a typed privacy figure (ε, δ, a
// share of ε, a total budget) named sym: smaller is more private. It has
// no arrows (a field has no ends; and Fyne draws a stray glyph after an
// arrow followed by a space).
func FieldDirection(sym string) string {
	return fmt.Sprintf("Smaller %s: more private; larger %s: more accurate", sym, sym)
}
