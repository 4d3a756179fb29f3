package ledger

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
	return checkSpent(path, entries, e, eps, delta)
}

// checkSpent is checkBudgets with the dataset's spent ε and δ given (as
// Ledger.Spent counts them): the one home of the budget rule.
func checkSpent(path string, entries []Entry, e Entry, eps, delta float64) error {
	if b := budget(entries, e.DatasetHash); eps+e.Epsilon > b*(1+budgetSlack) {
		return &BudgetError{File: path, DatasetHash: e.DatasetHash, Spent: eps, Requested: e.Epsilon, Budget: b}
	}
	if b := deltaBudget(entries, e.DatasetHash); delta+e.Delta > b*(1+budgetSlack) {
		return &BudgetError{File: path, DatasetHash: e.DatasetHash, Delta: true, Spent: delta, Requested: e.Delta, Budget: b}
	}
	return nil
}
