package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// The tip file (docs/ledger.md, "The tip file") remembers where the
// ledger ended when this program last wrote it: the checksum and running
// totals of its last line. Running totals show lines removed before an
// intact line; only the tip shows lines removed from the end (a cut at a
// line end, an older backup restored), which leave a file that looks
// intact with smaller totals.

// TipPath returns the path of the tip file of the ledger at path: the
// ledger's real path (symbolic links resolved, so that every symbolic
// link to the ledger shares its tip) with ".tip" appended
// (ledger.jsonl.tip). A hard link is another name of the same file in its
// own right, whose tip would be beside it: the ledger refuses to write
// through a file with several hard links (HardLinkError).
func TipPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path + ".tip"
}

// tipVersion is the format version of the tip file ("v").
const tipVersion = 1

// maxTipSize bounds what is read of a tip file (a real one is about 130
// bytes).
const maxTipSize = 4096

// tipRecord is the tip file's one line. Field order is the byte order.
type tipRecord struct {
	V int `json:"v"`
	// LineSum is the checksum (Entry.Sum) of the ledger's last line.
	LineSum string `json:"line_sum"`
	// Totals are that line's running totals (Entry.Totals).
	Totals Totals `json:"totals"`
	// Sum is the tip's own checksum, as a ledger line's.
	Sum string `json:"sum"`
}

// marshalTip encodes t as the tip file's bytes: one line with its
// checksum.
func marshalTip(t tipRecord) ([]byte, error) {
	t.V, t.Sum = tipVersion, ""
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	t.Sum = lineSum(b)
	if b, err = json.Marshal(t); err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// decodeTip strictly decodes a tip file: known fields only, exactly the
// bytes marshalTip writes, the checksum matching.
func decodeTip(data []byte) (*tipRecord, error) {
	if line, ok := bytes.CutSuffix(data, []byte("\r\n")); ok {
		data = append(line[:len(line):len(line)], '\n') // a Windows line end (tipRead.crlf)
	}
	line, ok := bytes.CutSuffix(data, []byte{'\n'})
	if !ok {
		return nil, errors.New("no line end (a tip file is one line)")
	}
	var t tipRecord
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	if t.V != tipVersion {
		return nil, fmt.Errorf("v: version %d is not supported (this program reads version %d)", t.V, tipVersion)
	}
	if len(t.LineSum) != sumLen || !isLowerHex(t.LineSum) {
		return nil, fmt.Errorf("line_sum: %q is not %d hex digits", shortQuote(t.LineSum), sumLen)
	}
	if err := t.Totals.validate(&Entry{}); err != nil {
		return nil, err
	}
	canon, err := marshalTip(t)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(canon, data) {
		return nil, errors.New("the file is not in the form the ledger writes, or its checksum does not match (changed bytes)")
	}
	return &t, nil
}

// tipRead is what reading the tip file found: the tip, or nil if there is
// none (missing), or damage.
type tipRead struct {
	tip    *tipRecord
	damage error
	crlf   bool // the tip file ends in CR LF (a harmless irregularity, read past as in the ledger)
}

// readTip reads the tip file of the ledger at path. A missing file is no
// tip; a file that cannot be read or decoded is damage.
func readTip(path string) tipRead {
	data, err := fileio.ReadRegular(TipPath(path), maxTipSize)
	if errors.Is(err, os.ErrNotExist) {
		return tipRead{}
	}
	if err != nil {
		return tipRead{damage: err}
	}
	t, err := decodeTip(data)
	if err != nil {
		return tipRead{damage: err}
	}
	return tipRead{tip: t, crlf: bytes.HasSuffix(data, []byte("\r\n"))}
}

// TipError reports that the ledger does not end where its tip file says
// this program last left it: lines were removed from its end (or it was
// replaced by an older copy), or the tip file is damaged or missing. Every
// release and budget change is refused until Repair (docs/ledger.md, "The
// tip file").
type TipError struct {
	File   string // the ledger
	Reason string
	// Known is set if the tip shows what the missing lines spent: ε
	// Epsilon and δ Delta in Entries entries (the rounding margin added),
	// which Spent already counts for every dataset and Repair charges to
	// every dataset. Otherwise Repair needs the curator (ResetTip).
	Known          bool
	Epsilon, Delta float64
	Entries        int
	// BudgetsLost is set if the missing lines held, or may have held, a
	// budget entry (the budget counts of the tip and the file differ, or
	// one is unknown): the repair sets every dataset's budgets aside
	// until the curator sets them again (Entry.BudgetsLost).
	BudgetsLost bool
	// unreadable is set if the tip file is damaged or missing: the
	// ledger itself may be intact, and restoring an older ledger with
	// its tip would roll it back unseen.
	unreadable bool
	// boundsDamage is set if the tip bounds damaged lines no valid line
	// follows: their repairs charge what the missing lines spent (the
	// tip is a span's bound, damageCharges), and the tip repair nothing.
	boundsDamage bool
}

func (e *TipError) Error() string {
	return fmt.Sprintf("%s: %s; the privacy-budget ledger may have lost lines at its end and every release is refused. To repair it: %s (see docs/ledger.md, \"The tip file\")",
		e.File, e.Reason, e.advice())
}

// advice is what the curator can do about the tip problem.
func (e *TipError) advice() string {
	budgets := ""
	if e.BudgetsLost {
		budgets = "; the missing lines held or may have held a budget entry, so every dataset's budgets are set aside until you set them again (ledger --data FILE --budget/--delta-budget)"
	}
	switch {
	case e.Known:
		return "keep a copy of both files, then run 'bernstein ledger --repair', which charges what the missing lines spent to every dataset, including datasets first seen later (it never lowers what a dataset has spent)" + budgets + "; or restore the ledger from a backup that ends where the tip file says"
	case e.unreadable:
		return "restore the tip file alone from a backup (not the ledger: an older ledger restored with its tip would silently roll back the releases recorded since; an older tip is accepted); or, once you have checked that no line is missing from the end of the ledger (compare it with your backup and the synopses you released), run 'bernstein ledger --repair --reset-tip', which records your decision in the ledger and writes a new tip file"
	}
	charge := ""
	if e.Epsilon > 0 || e.Delta > 0 {
		charge = fmt.Sprintf(", charging every dataset the ε %g, δ %g that the tip and the file show lost at least", e.Epsilon, e.Delta)
	}
	return "restore the newest backup of the ledger that holds the line the tip file names; or, once you have checked that no line is missing (compare the ledger with your backup and the synopses you released), run 'bernstein ledger --repair --reset-tip', which records your decision in the ledger" + charge + budgets + ", and writes a new tip file"
}

// checkTip compares the ledger state st (parsed from the file) with the
// tip file read r and sets st.tipErr, adding what the missing lines spent
// to st.charges (every dataset) where the tip shows it:
//
//   - the tip names a valid line (its checksum) whose totals are the
//     tip's: consistent, however many lines follow it (a crash between an
//     append and the tip write leaves the tip behind; the next write
//     catches it up);
//   - the last valid line is a tip repair whose totals are at least the
//     tip's: the repair was recorded and the tip write interrupted;
//   - the tip names no valid line and counts more entries than the file:
//     lines were removed from the end; they spent the difference of the
//     totals (the rounding margin added);
//   - otherwise (the file has as many entries but not the tip's line: it
//     was replaced or rewritten; the tip file damaged; no tip file although
//     a line says tips are kept, beyond the one append a crash can leave
//     before the first tip is written): unknown, the curator decides.
//
// In the last case with damaged lines (damaged: every damaged line, in
// file order) that no valid line follows, the tip bounds them instead, as
// the totals of an intact line after them would (spanBound): they and the
// lines missing after them spent the difference together.
func (st *ledgerState) checkTip(path string, r tipRead, damaged []damagedLine) {
	st.tip = r.tip
	st.tipErr = nil
	fail := func(reason string) { st.tipErr = &TipError{File: path, Reason: reason, unreadable: true} }
	switch {
	case r.damage != nil:
		fail(fmt.Sprintf("the tip file %s is damaged: %v", TipPath(path), r.damage))
		return
	case r.tip == nil:
		if st.tipFirst >= 0 && !st.oneAppendTipped() {
			fail(fmt.Sprintf("the tip file %s is missing, although line %d says that this ledger keeps one", TipPath(path), st.tipFirstLine))
		}
		return
	}
	if r.crlf {
		st.notes = append(st.notes, fmt.Sprintf("the tip file %s has a Windows line end (CR LF), read past; the next write rewrites it", TipPath(path)))
	}
	t := r.tip
	names := func(e Entry) bool { return e.Sum == t.LineSum && e.Totals != nil && e.Totals.equal(t.Totals) }
	if slices.ContainsFunc(st.entries, names) {
		return
	}
	if st.torn != nil && st.torn.Complete {
		// The tip's line, its line end cut off: the repair terminates it.
		if e, err := decodeEntry(st.torn.Fragment, st.summed); err == nil && names(e) {
			return
		}
	}
	if n := len(st.entries); n > 0 {
		// A repair recorded for this tip, its tip write interrupted: the
		// repair counts at least the tip's entries, or names the tip's
		// line (a cut of more lines than it appended). A tip written
		// after the repair counts more entries and is not in its note.
		if e := st.entries[n-1]; e.RepairsTip && e.Totals != nil &&
			e.Totals.Epsilon >= t.Totals.Epsilon && e.Totals.Delta >= t.Totals.Delta &&
			(e.Totals.Entries >= t.Totals.Entries || strings.Contains(e.Note, t.LineSum)) {
			return
		}
	}
	reason := fmt.Sprintf("the tip file %s says the ledger ends with a line of checksum %s and running totals ε %g, δ %g, %d entries, which it does not hold (it ends at ε %g, δ %g, %d entries)",
		TipPath(path), t.LineSum, t.Totals.Epsilon, t.Totals.Delta, t.Totals.Entries, st.run.Epsilon, st.run.Delta, st.run.Entries)
	// The file's totals before the tip's line: the two histories share
	// at most the entries before it (the file does not hold the tip's
	// line), so the tip's lines after that spent at least the difference
	// (every line spends ≥ 0).
	at := st.totalsBefore(t.Totals.Entries)
	gap := func(tip, file float64) float64 {
		if tip <= file {
			return 0
		}
		return tip - file + totalsSlack*(tip+1)
	}
	te := &TipError{File: path, Epsilon: gap(t.Totals.Epsilon, at.Epsilon), Delta: min(gap(t.Totals.Delta, at.Delta), 1-1e-12)}
	st.tipErr = te
	if t.Totals.Entries <= st.run.Entries {
		// Replaced or rewritten: the curator decides (ResetTip), and the
		// reset charges what the tip and the file show lost at least.
		te.Reason = reason + ": it was replaced or rewritten"
		te.BudgetsLost = t.Totals.budgetsSince(at) > 0
		return
	}
	te.Reason, te.Known, te.Entries = reason+": lines were removed from its end", true, t.Totals.Entries-st.run.Entries
	te.BudgetsLost = budgetsLost(t.Totals.budgetsSince(at), 0)
	// The damaged lines after the last valid line, if that line's totals
	// (or the start of the file) are exact.
	if n := len(st.entries); n > 0 && st.entries[n-1].Totals == nil {
		return
	}
	b := &spanBound{next: st.nextLine, eps: t.Totals.Epsilon - st.run.Epsilon + totalsSlack*(t.Totals.Epsilon+1),
		delta: t.Totals.Delta - st.run.Delta + totalsSlack*(t.Totals.Delta+1), entries: te.Entries,
		budgets: t.Totals.budgetsSince(at), tip: true}
	b.eps, b.delta = max(b.eps, 0), max(b.delta, 0)
	for i := range damaged {
		if d := &damaged[i]; !d.followed && !d.resolved && !d.outOfOrder {
			d.bound, d.followed = b, true
			te.boundsDamage = true
			te.Reason = reason + ": lines at its end were damaged or removed"
		}
	}
}

// totalsBefore returns the running totals after the last valid entry
// that counts fewer than n entries (all of them if none counts n), the
// budget count filled in from the valid budget entries if the lines do
// not carry it (ledgerState.want).
func (st *ledgerState) totalsBefore(n int) Totals {
	var at Totals
	budgets := 0
	for _, e := range st.entries {
		next := at.advance(e)
		if next.Entries >= n {
			break
		}
		at = next
		if e.Kind == KindBudget {
			budgets++
		}
	}
	if at.Budgets == nil {
		at.Budgets = &budgets
	}
	return at
}

// oneAppendTipped reports whether the valid lines that say tips are kept
// can all be the one append a crash interrupted before the first tip file
// was written: they are the last valid lines, and one entry or repairs
// only (Repair is the one write of several lines).
func (st *ledgerState) oneAppendTipped() bool {
	tipped := st.entries[st.tipFirst:]
	if len(tipped) == 1 {
		return true
	}
	for _, e := range tipped {
		if e.Kind != KindRepair {
			return false
		}
	}
	return true
}

// checkTipMarker is the reading rule of the marker "tip": a line that
// carries it has running totals, and once a line with it has been read
// every later line carries it (this version writes it in every line, and
// older versions refuse it as an unknown field).
func checkTipMarker(e Entry, tipped bool) error {
	switch {
	case e.Tip && e.Totals == nil:
		return errors.New("tip: a line without running totals cannot say a tip file is kept")
	case tipped && !e.Tip:
		return errors.New("tip: missing (every line after the first that says a tip file is kept says so)")
	}
	return nil
}

// tipRepair returns the repair entry that resolves st's tip problem
// (nil if none), or the reason Repair needs the curator: a tip that shows
// what lines missing at the end spent is charged to every dataset; a tip
// that shows nothing is reset only by the curator's decision (reset).
func (st *ledgerState) tipRepair(reset bool) (*Entry, string) {
	te := st.tipErr
	if te == nil {
		return nil, ""
	}
	e := &Entry{Kind: KindRepair, RepairsTip: true, AllDatasets: true}
	switch {
	case te.boundsDamage:
		e.Note = fmt.Sprintf("%d entries at the end of the ledger damaged or missing (the tip file: %s); charged by the repairs of the damaged lines, which the tip bounds", te.Entries, te.Reason)
		return e, ""
	case te.Known:
		e.Note = fmt.Sprintf("%d entries missing at the end of the ledger (the tip file: %s); charged to every dataset", te.Entries, te.Reason)
	case reset:
		e.Note = fmt.Sprintf("the curator reset the tip file (--reset-tip) after checking that no line is missing at the end of the ledger: %s", te.Reason)
		if te.Epsilon > 0 || te.Delta > 0 {
			e.Note += fmt.Sprintf("; charged to every dataset the ε %g, δ %g that the tip and the file show lost at least", te.Epsilon, te.Delta)
		}
	default:
		return nil, fmt.Sprintf("%s; %s", te.Reason, te.advice())
	}
	e.Epsilon, e.Delta, e.BudgetsLost = te.Epsilon, te.Delta, te.BudgetsLost
	if e.BudgetsLost {
		e.Note += budgetsNote
	}
	return e, ""
}

// catchUpTip rewrites, under the ledger's lock, a tip file that names a
// line before the ledger's last when nothing else is wrong (no damage, no
// tear, no tip problem, one hard link): a crash between an append and its
// tip write, or an older tip restored, leaves the lines after the tip's
// line uncovered until the next write; a read now covers them too, so
// that cutting them is seen. Best effort: an error (a read-only
// directory) leaves the tip as it was, which is accepted.
func (st *ledgerState) catchUpTip(path string) {
	n := len(st.entries)
	if st.tip == nil || st.tipErr != nil || st.torn != nil || len(st.damaged) > 0 || st.links > 1 || n == 0 {
		return
	}
	last := st.entries[n-1]
	if last.Totals == nil || last.Sum == "" || !last.Tip || last.Sum == st.tip.LineSum {
		return
	}
	t := tipRecord{LineSum: last.Sum, Totals: *last.Totals}
	if data, err := marshalTip(t); err == nil {
		_ = fileio.WriteAtomic(TipPath(path), data, 0o600, true)
	}
}

// writeTip writes the tip file of the ledger at path for the state st
// just appended (its last valid entry is the last line written), under
// the ledger's lock, atomically (fileio.WriteAtomic, through the fsops
// seam). If it fails, the append is taken back (the ledger truncated to
// size) unless the tip already names the new line (only a later step,
// such as syncing the directory, failed); the error is returned either
// way, so the caller refuses the release: the ledger never holds an
// entry the tip does not cover without a crash.
func writeTip(path string, st *ledgerState, size int64) error {
	last := st.entries[len(st.entries)-1]
	if last.Totals == nil || last.Sum == "" {
		return fmt.Errorf("ledger: internal error: the appended line has no totals or checksum")
	}
	t := tipRecord{LineSum: last.Sum, Totals: *last.Totals}
	data, err := marshalTip(t)
	if err != nil {
		return fmt.Errorf("ledger: encode the tip: %w", err)
	}
	werr := fileio.WriteAtomic(TipPath(path), data, 0o600, true)
	if werr == nil {
		return nil
	}
	if r := readTip(path); r.tip != nil && r.tip.LineSum == t.LineSum {
		return fmt.Errorf("ledger: the entry is recorded, but writing its tip file failed: %w", werr)
	}
	if err := truncateLedger(path, size, "take back the entry"); err != nil {
		return fmt.Errorf("ledger: writing the tip file failed (%w); taking the entry back failed too (%v): it stays recorded and counted", werr, err)
	}
	return fmt.Errorf("ledger: writing the tip file failed, the entry was taken back: %w", werr)
}
