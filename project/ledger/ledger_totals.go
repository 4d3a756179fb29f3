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
type Totals struct {
	Epsilon float64 `json:"epsilon_sum"`
	Delta   float64 `json:"delta_sum"`
	Entries int     `json:"entries"`
}

// after returns the totals once e is appended to a ledger whose totals are
// t. The sums are taken in file order, one entry at a time, so that a
// reader recomputes the writer's floating-point values exactly.
func (t Totals) after(e Entry) Totals {
	t.Entries++
	if e.Kind.spends() {
		t.Epsilon += e.Epsilon
		t.Delta += e.Delta
	}
	return t
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
	case e.Kind.spends() && (t.Epsilon < e.Epsilon || t.Delta < e.Delta):
		return fmt.Errorf("totals: epsilon_sum %v, delta_sum %v are below the entry's own ε %v, δ %v", t.Epsilon, t.Delta, e.Epsilon, e.Delta)
	}
	return nil
}

// checkVersionTotals is the reading rule tying the version to the totals:
// a version 2 line carries totals, a version 1 line none, and once a line
// with totals has been read every later line must have them (this version
// never writes a line without them; older versions refuse version 2).
func checkVersionTotals(e Entry, requireTotals bool) error {
	switch {
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

// checkTotals checks the totals of the valid entry e against run, the
// totals after the valid entry before it. clean says no damaged line lies
// between the two: then e's totals must be exactly run.after(e), as the
// writer computed them, so that a line removed, added, duplicated or
// reordered (whose checksum alone cannot tell) is damage. Otherwise the
// damaged lines between held entries valid when e was written, so e's
// totals can only be larger (up to rounding).
func checkTotals(run Totals, e Entry, clean bool) error {
	if e.Totals == nil {
		return nil
	}
	want, got := run.after(e), *e.Totals
	if clean && got == want {
		return nil
	}
	if !clean && got.Entries >= want.Entries &&
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
// the damaged lines between the valid entry before it, whose totals are
// run, and itself.
func newSpanBound(n int, run Totals, e Entry) *spanBound {
	want, got := run.after(e), *e.Totals
	return &spanBound{
		next:    n,
		eps:     max(0, got.Epsilon-want.Epsilon) + totalsSlack*(got.Epsilon+1),
		delta:   max(0, got.Delta-want.Delta) + totalsSlack*(got.Delta+1),
		entries: got.Entries - want.Entries,
	}
}

// next returns the totals of e appended to the ledger in state st.
func (st *ledgerState) next(e Entry) *Totals {
	t := st.run.after(e)
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
