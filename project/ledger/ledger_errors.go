package ledger

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Error reports a damaged ledger: a complete line that is not a valid
// entry (a crash can only tear the last line, so this is damage or an
// edit). Every release and budget change is refused until Repair, which
// never lowers what a dataset has spent (docs/ledger.md, "Damage").
type Error struct {
	File string
	Line int // the first damaged line
	Rule string
	// Damaged is the number of damaged lines (0 or 1: just Line).
	Damaged int
}

func (e *Error) Error() string {
	more := ""
	if e.Damaged > 1 {
		more = fmt.Sprintf(" (%d damaged lines in all)", e.Damaged)
	}
	return fmt.Sprintf("%s:%d: %s%s; the privacy-budget ledger is damaged and every release is refused. To repair it: keep a copy of the file, then run 'bernstein ledger --repair', which charges the damaged lines what the running totals of the intact line after them show they spent (and at least their dataset's largest budget where the totals cannot tell), and lines missing before an intact line to every dataset (it never lowers what a dataset has spent), and asks you to attribute lines whose dataset cannot be read or that no intact line follows; or restore the lines from a backup (see docs/ledger.md, \"Damage\")",
		e.File, e.Line, e.Rule, more)
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
		what = fmt.Sprintf("counted as spent: ε = %g, δ = %g on dataset %s", e.Epsilon, e.Delta, ShortHash(e.DatasetHash))
	case e.DatasetHash != "":
		what = fmt.Sprintf("it names dataset %s, but the tear came before its ε: no charge can be read", ShortHash(e.DatasetHash))
	}
	return fmt.Sprintf("%s:%d: the last ledger entry is torn (%d bytes; a release was interrupted while being recorded); %s; repair the ledger to record it and continue", e.File, e.Line, len(e.Fragment), what)
}

// BudgetError reports a release refused because it would exceed the
// dataset's total ε budget, or (Delta set) its total δ budget.
type BudgetError struct {
	File        string // ledger path
	DatasetHash string
	Delta       bool    // the δ budget (else the ε budget)
	Spent       float64 // ε (or δ) spent so far
	Requested   float64 // ε (or δ) of the refused release
	Budget      float64 // total ε (or δ) budget
	// ZCDP is the ε the zCDP account would reach at the δ budget with the
	// release (it refuses too); 0 if not computed.
	ZCDP float64
}

func (e *BudgetError) Error() string {
	sym, flag := "ε", "--budget"
	if e.Delta {
		sym, flag = "δ", "--delta-budget"
	}
	if e.Budget == 0 {
		return fmt.Sprintf("%s: a release with %s = %g on dataset %s is refused: its %s budget is set aside, because a repair recorded lines missing from the ledger that held or may have held a budget entry (which may have lowered it); the dataset has spent %s %g; set the budget again ('bernstein ledger --data FILE %s VALUE', recorded), or pass --allow-over-budget (which is recorded)",
			e.File, sym, e.Requested, ShortHash(e.DatasetHash), sym, sym, e.Spent, flag)
	}
	return fmt.Sprintf("%s: a release with %s = %s on dataset %s is refused: the dataset has spent %s %s of its %s budget of %s, this release asks %s %s, so at most %s %s would fit; lower %s, raise the budget (%s), or pass --allow-over-budget (which is recorded)",
		e.File, sym, FormatAmount(e.Requested), ShortHash(e.DatasetHash), sym, FormatAmount(e.Spent), sym, FormatAmount(e.Budget), sym, FormatAmount(e.Requested), sym, FormatLeft(e.Budget-e.Spent), sym, flag) + zcdpNote(e.ZCDP)
}

// FormatAmount writes a spent, requested or budget amount of ε or δ for a
// message: at most 6 significant digits (0.45, not 0.44999999999999996),
// exact values unchanged.
func FormatAmount(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// FormatLeft writes what is left of a budget for a message, rounded down
// to 6 significant digits so that a release of the amount shown fits
// (0.45 for 0.44999999999999996 would not); 0 when nothing is left.
func FormatLeft(x float64) string {
	if !(x > 0) || math.IsInf(x, 0) {
		return FormatAmount(max(x, 0))
	}
	s := strconv.FormatFloat(x, 'e', 5, 64) // d.ddddde±x: 6 significant digits
	if v, _ := strconv.ParseFloat(s, 64); v <= x {
		return FormatAmount(v)
	}
	// Rounded up: the 6-digit decimal one unit in the last place below.
	mant, exp, _ := strings.Cut(s, "e")
	m, _ := strconv.Atoi(strings.Replace(mant, ".", "", 1))
	e, _ := strconv.Atoi(exp)
	m--
	if m < 100000 {
		m, e = 999999, e-1
	}
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e-5), 64) // ≤ x: x is a double above that decimal
	return FormatAmount(v)
}

// HardLinkError reports that the ledger file has more than one hard link
// (name). Each name keeps its own tip file (TipPath), so writes through
// one name leave the other name's tip behind, and a tip behind is
// accepted: lines cut from the end after it would go unseen. The ledger
// therefore refuses every write, Repair included, through a file with
// another hard link (docs/ledger.md, "The tip file"); Unix and Windows (on
// other platforms the count is not looked up).
type HardLinkError struct {
	File  string // the ledger
	Links int    // its number of hard links
}

func (e *HardLinkError) Error() string {
	return fmt.Sprintf("%s: the ledger file has %d hard links (names); the ledger refuses to write through a file with more than one, because each name keeps its own tip file and a tip left behind by writes through the other name would hide lines cut from the end. Remove the other name(s) of the file (find them with '"+findLinksHint+"'), and use a symbolic link instead, which shares the tip (see docs/ledger.md, \"The tip file\")",
		e.File, e.Links, e.File)
}

// shortHash abbreviates a SHA-256 for messages.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// isFinite reports whether x is neither NaN nor ±Inf.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
