package project

import "fmt"

// DefaultDeltaBudget is the total δ a dataset may spend until the curator
// sets another δ budget (docs/ledger.md, "The budget").
const DefaultDeltaBudget = 1e-6

// DeltaBudget returns the total δ budget of a dataset: the DeltaBudget of
// its last KindBudget entry that sets one, or DefaultDeltaBudget.
func (l *Ledger) DeltaBudget(datasetHash string) float64 {
	return deltaBudget(l.state().entries, datasetHash)
}

func deltaBudget(entries []Entry, hash string) float64 {
	return lastBudget(entries, hash, func(e Entry) float64 { return e.DeltaBudget }, DefaultDeltaBudget)
}

// validateBudgets is the one home of the rules for a budget entry: ε
// budget finite and > 0 or 0 (unchanged), δ budget in (0, 1) or 0
// (unchanged), and at least one of them set.
func validateBudgets(eps, delta float64) error {
	switch {
	case !isFinite(eps) || eps < 0:
		return fmt.Errorf("budget: %v must be finite and > 0", eps)
	case !isFinite(delta) || delta < 0 || delta >= 1:
		return fmt.Errorf("delta_budget: %v must be in (0, 1)", delta)
	case eps == 0 && delta == 0:
		return fmt.Errorf("budget: %v must be finite and > 0 (or a delta_budget given)", eps)
	}
	return nil
}

// checkBudgets returns the *BudgetError refusing e if the dataset's spent ε
// plus e.Epsilon exceeds its ε budget, or its spent δ plus e.Delta its δ
// budget, each up to the relative budgetSlack; nil if both fit.
func checkBudgets(path string, entries []Entry, e Entry) error {
	eps, delta := spent(entries, nil, e.DatasetHash)
	if b := budget(entries, e.DatasetHash); eps+e.Epsilon > b*(1+budgetSlack) {
		return &BudgetError{File: path, DatasetHash: e.DatasetHash, Spent: eps, Requested: e.Epsilon, Budget: b}
	}
	if b := deltaBudget(entries, e.DatasetHash); delta+e.Delta > b*(1+budgetSlack) {
		return &BudgetError{File: path, DatasetHash: e.DatasetHash, Delta: true, Spent: delta, Requested: e.Delta, Budget: b}
	}
	return nil
}

// CheckDeltaForN refuses a single release's δ unless δ < 1/n, where n is
// the (public) number of data rows: a δ of 1/n or more allows a mechanism
// that publishes one person's record outright with probability δ (Dwork &
// Roth 2014, Section 2.3), so the standard ceiling is δ ≪ 1/n. δ = 0 (pure
// ε-DP) always passes.
func CheckDeltaForN(delta float64, n int) error {
	if delta == 0 {
		return nil
	}
	if n < 1 || delta*float64(n) >= 1 {
		return reqErr("delta", "δ = %g is not below 1/n = %.3g (n = %d data rows): with δ ≥ 1/n one person's record could be published outright with probability δ; choose δ far below 1/n, e.g. %g",
			delta, 1/float64(max(n, 1)), n, suggestDelta(n))
	}
	return nil
}

// suggestDelta is a δ to suggest for n rows: the default δ budget, or
// 1/(100 n) if that is smaller.
func suggestDelta(n int) float64 {
	return min(DefaultDeltaBudget, 1/(100*float64(max(n, 1))))
}
