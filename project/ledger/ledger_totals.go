package ledger

import (
	"fmt"
)

// Totals are the running totals a ledger line of format version 2 carries
// (docs/ledger.md, "Running totals"): over every valid entry of the ledger
// up to and including this one, the sums of ε and δ of the entries that
// spend and the number of entries. They are covered by the line's checksum.
// Repair bounds what damaged lines spent by the difference of the totals of
// the intact lines around them, whatever their ε was (a release made with
// --allow-over-budget included).
//
// Budgets is the number of budget entries among them, written by every
// line since budget counts exist; nil (absent) in older lines: unknown.
// It shows whether lines that are missing held a budget entry, whose loss
// may have raised a budget (docs/ledger.md, "Lines missing before an
// intact line").
type Totals struct {
	Epsilon float64 `json:"epsilon_sum"`
	Delta   float64 `json:"delta_sum"`
	Entries int     `json:"entries"`
	Budgets *int    `json:"budgets,omitempty"`
}

// after returns the totals once e is appended to a ledger whose totals are
// t. The sums are taken in file order, one entry at a time, so that a
// reader recomputes the writer's floating-point values exactly. The budget
// count stays unknown if it was.
func (t Totals) after(e Entry) Totals {
	t.Entries++
	if e.Kind.spends() {
		t.Epsilon += e.Epsilon
		t.Delta += e.Delta
	}
	if t.Budgets != nil {
		n := *t.Budgets
		if e.Kind == KindBudget {
			n++
		}
		t.Budgets = &n
	}
	return t
}

// equal reports whether t and u are the same totals, the budget count
// included (both unknown, or both the same).
func (t Totals) equal(u Totals) bool {
	return t.Epsilon == u.Epsilon && t.Delta == u.Delta && t.Entries == u.Entries &&
		(t.Budgets == nil) == (u.Budgets == nil) && (t.Budgets == nil || *t.Budgets == *u.Budgets)
}

// budgetsSince returns how many budget entries lie between the totals
// from and t (t's count minus from's), or -1 if either count is unknown.
func (t Totals) budgetsSince(from Totals) int {
	if t.Budgets == nil || from.Budgets == nil {
		return -1
	}
	return *t.Budgets - *from.Budgets
}

// want returns the totals a line appending e to the ledger in state st
// must carry (the writer's st.next): the running totals after e, the
// budget count continued from the last line's, or, after lines without
// one, counted from the valid budget entries read.
func (st *ledgerState) want(e Entry) Totals {
	r := st.run
	if r.Budgets == nil {
		n := st.budgets
		r.Budgets = &n
	}
	return r.after(e)
}

// validate checks the totals' own rules: finite, non-negative, at least
// the entry itself.
func (t *Totals) validate(e *Entry) error {
	if t == nil {
		return nil
	}
	switch {
	case !isFinite(t.Epsilon) || t.Epsilon < 0 || !isFinite(t.Delta) || t.Delta < 0:
		return fmt.Errorf("totals: epsilon_sum %v and delta_sum %v must be finite and ≥ 0", t.Epsilon, t.Delta)
	case t.Entries < 1:
		return fmt.Errorf("totals: entries %d must be ≥ 1", t.Entries)
	case t.Budgets != nil && (*t.Budgets < 0 || *t.Budgets > t.Entries || e.Kind == KindBudget && *t.Budgets < 1):
		return fmt.Errorf("totals: budgets %d must be between 0 (1 in a budget entry) and entries %d", *t.Budgets, t.Entries)
	case e.Kind.spends() && (t.Epsilon < e.Epsilon || t.Delta < e.Delta):
		return fmt.Errorf("totals: epsilon_sum %v, delta_sum %v are below the entry's own ε %v, δ %v", t.Epsilon, t.Delta, e.Epsilon, e.Delta)
	}
	return nil
}

// checkVersionTotals is the reading rule tying the version to the totals:
// a version 2 line carries totals, a version 1 line none, and once a line
// with totals has been read every later line must have them (this version
// never writes a line without them; older versions refuse version 2); and
// likewise, once a line with a budget count has been read, every later
// line must have one (older versions refuse the field).
func checkVersionTotals(e Entry, requireTotals, requireBudgets bool) error {
	switch {
	case requireBudgets && (e.Totals == nil || e.Totals.Budgets == nil):
		return fmt.Errorf("totals: budgets missing (every line after the first with a budget count has one)")
	case e.Version >= 2 && e.Totals == nil:
		return fmt.Errorf("totals: missing in a version %d line", e.Version)
	case e.Version == 1 && e.Totals != nil:
		return fmt.Errorf("totals: a version 1 line has none")
	case requireTotals && e.Totals == nil:
		return fmt.Errorf("totals: missing (every line after the first with running totals has them)")
	}
	return nil
}

// totalsSlack is the rounding margin of a difference of totals relative
// to the larger total: each total is a sum of floating-point numbers in
// file order, off from the exact sum by at most (number of entries) × 2⁻⁵³
// of it, far below 10⁻⁹ for any ledger of fewer than 10⁶ lines.
const totalsSlack = 1e-9

// checkTotals checks the totals of the valid entry e against want, the
// totals the writer computes for it (ledgerState.want). clean says no
// damaged line lies since the valid entry before it: then e's totals must
// be exactly want, so that a line removed, added, duplicated or reordered
// (whose checksum alone cannot tell) is damage. Otherwise the damaged
// lines between held entries valid when e was written, so e's totals can
// only be larger (up to rounding). A line without a budget count (older
// versions) is checked without it.
func checkTotals(want Totals, e Entry, clean bool) error {
	if e.Totals == nil {
		return nil
	}
	got := *e.Totals
	if got.Budgets == nil {
		want.Budgets = nil
	}
	if clean && got.equal(want) {
		return nil
	}
	if !clean && got.Entries >= want.Entries && (got.Budgets == nil || *got.Budgets >= *want.Budgets) &&
		got.Epsilon >= want.Epsilon-totalsSlack*(got.Epsilon+1) && got.Delta >= want.Delta-totalsSlack*(got.Delta+1) {
		return nil
	}
	return fmt.Errorf("totals: epsilon_sum %v, delta_sum %v, entries %d do not follow from the lines before it (ε %v, δ %v, %d entries): a line may have been removed, added, duplicated or reordered",
		got.Epsilon, got.Delta, got.Entries, want.Epsilon, want.Delta, want.Entries)
}

// spanBound is what the running totals of the first intact line after a
// run of damaged lines say about them: together, when that line was
// written, they were entries entries spending ε eps and δ delta (the
// difference of the intact lines' totals, the rounding margin added).
type spanBound struct {
	next       int // the intact line whose totals bound the span (one past the last line for the tip)
	eps, delta float64
	entries    int
	budgets    int  // how many of the entries were budget entries, -1 if unknown
	tip        bool // the tip file's totals bound it (checkTip): no line follows the span
}

// source names what bounds the span, for repair notes.
func (b *spanBound) source() string {
	if b.tip {
		return "the tip file's running totals (the ledger's end)"
	}
	return fmt.Sprintf("the running totals of line %d", b.next)
}

// newSpanBound returns the bound the valid entry e (with totals) puts on
// the damaged or missing lines between the valid entry before it and
// itself; want is what e's totals would be without them
// (ledgerState.want).
func newSpanBound(n int, want Totals, e Entry) *spanBound {
	got := *e.Totals
	return &spanBound{
		next:    n,
		eps:     max(0, got.Epsilon-want.Epsilon) + totalsSlack*(got.Epsilon+1),
		delta:   max(0, got.Delta-want.Delta) + totalsSlack*(got.Delta+1),
		entries: got.Entries - want.Entries,
		budgets: got.budgetsSince(want),
	}
}

// next returns the totals of e appended to the ledger in state st.
func (st *ledgerState) next(e Entry) *Totals {
	t := st.want(e)
	return &t
}

// advance returns the running totals after the valid entry e: its own
// totals if it carries them (a version 1 line does not), else t.after(e).
func (t Totals) advance(e Entry) Totals {
	if e.Totals != nil {
		return *e.Totals
	}
	return t.after(e)
}
