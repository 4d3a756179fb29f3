package project

import (
	"fmt"
)

// LedgerError reports a ledger file that cannot be trusted: a malformed line
// that is not an interrupted last append. The ledger is refused until the
// curator inspects the file; nothing is guessed.
type LedgerError struct {
	File string
	Line int
	Rule string
}

func (e *LedgerError) Error() string {
	return fmt.Sprintf("%s:%d: %s; the privacy-budget ledger is refused until the line is fixed (see docs/ledger.md)", e.File, e.Line, e.Rule)
}

// TornError reports an unresolved tail of the ledger: the last append was
// interrupted (crash or power loss during Reserve, SetBudget or Repair). The
// charge it reveals is counted in Spent; Reserve and SetBudget refuse with
// it until Repair records it.
type TornError struct {
	File string
	Line int // first line of the tail
	// Fragment holds the tail's bytes.
	Fragment []byte
	// Unterminated is true if the file ends without a line end.
	Unterminated bool
	// Complete is true if the tail is one whole valid entry missing only its
	// line end.
	Complete bool
	// DatasetHash, Epsilon and Delta are the charge recovered from the
	// fragment; DatasetHash is empty if the tear came before the dataset
	// hash was complete. Charged is false (and ε = δ = 0) unless both the
	// hash and ε were recovered.
	DatasetHash    string
	Epsilon, Delta float64
	Charged        bool
}

func (e *TornError) Error() string {
	what := "no charge can be attributed (the tear came before the dataset hash)"
	switch {
	case e.Charged:
		what = fmt.Sprintf("counted as spent: ε = %g, δ = %g on dataset %s", e.Epsilon, e.Delta, shortHash(e.DatasetHash))
	case e.DatasetHash != "":
		what = fmt.Sprintf("it names dataset %s, but the tear came before its ε: no charge can be read", shortHash(e.DatasetHash))
	}
	return fmt.Sprintf("%s:%d: the last ledger entry is torn (%d bytes; a release was interrupted while being recorded); %s; repair the ledger to record it and continue", e.File, e.Line, len(e.Fragment), what)
}

// BudgetError reports a release refused because it would exceed the
// dataset's total ε budget.
type BudgetError struct {
	File        string // ledger path
	DatasetHash string
	Spent       float64 // ε spent so far
	Requested   float64 // ε of the refused release
	Budget      float64 // total ε budget
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s: a release with ε = %g on dataset %s would bring its spent ε from %g to %g, over its budget of %g; lower ε, raise the budget, or pass --allow-over-budget (which is recorded)",
		e.File, e.Requested, shortHash(e.DatasetHash), e.Spent, e.Spent+e.Requested, e.Budget)
}

// shortHash abbreviates a SHA-256 for messages.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
