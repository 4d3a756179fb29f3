package curator

import (
	"fmt"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
)

// The wording of ε and δ (readings, direction marks, the split sentence)
// lives in package privacywords, shared with the command line; this file
// holds only the curator's status-bar budget line.

// budgetLine is the status-bar text for the dataset's privacy budget.
func budgetLine(spent, delta, budget float64) string {
	left := budget - spent
	status := fmtBudget(math.Max(left, 0)) + " left"
	if left < -1e-12 {
		status = "OVER BUDGET by " + fmtBudget(-left)
	}
	s := fmt.Sprintf("Privacy budget for this dataset: ε spent %s of %s, %s", fmtBudget(spent), fmtBudget(budget), status)
	if delta > 0 {
		s += fmt.Sprintf(" (δ spent %s)", strconv.FormatFloat(delta, 'g', 3, 64))
	}
	return s
}

func fmtBudget(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// budgetSentence is the budget sentence of the dialogs that spend ε (the
// private choice, the private bounds): spent, total and what is left
// still allows.
func budgetSentence(spent, budget float64) string {
	return fmt.Sprintf("Budget of this dataset: ε %s spent of %s. %s", fmtBudget(spent), fmtBudget(budget), privacywords.BudgetLeft(budget-spent))
}

// splitNote is the wrapped note under the ε field of a step that takes a
// share of the dataset's ε: the field's direction and why a larger share
// protects no column or person more.
func splitNote() *widget.Label {
	l := widget.NewLabel(privacywords.FieldDirection("ε") + ". " + privacywords.SplitShare)
	l.Wrapping = fyne.TextWrapWord
	l.TextStyle.Italic = true
	return l
}

// releaseBudgetText is the release dialog's budget sentence: spent, total,
// what this release spends and leaves, and both in words.
func releaseBudgetText(spent, budget, eps, delta float64, kind mechanism.NoiseKind) string {
	left := budget - spent
	return fmt.Sprintf("ε spent on this dataset so far: %s of %s. This release spends ε = %s, leaving %s.\nThis release: %s\nAfter it: %s",
		fmtBudget(spent), fmtBudget(budget), formatValue(eps), fmtBudget(left-eps),
		privacywords.Reading(eps, delta, kind), privacywords.BudgetLeft(left-eps))
}
