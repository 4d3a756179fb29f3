package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A damaged ledger line is a complete line (it ends in '\n') that is not a
// valid entry: a crash can only tear the last line, so anything else is
// damage (a disk error, an edit) and the ledger fails closed. See
// docs/ledger.md, "Damage".

// sumLen is the number of hex digits of a line checksum (64 bits).
const sumLen = 16

// lineSum is the checksum of a line encoded without its "sum" field.
func lineSum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:sumLen]
}

// checkLineBytes checks a line's checksum: that it is exactly the encoding
// of e that marshalEntry writes and that the checksum matches, so that no
// byte of it can change unnoticed. Lines without a checksum (written
// before checksums existed) are accepted only before the first line with
// one (requireSum).
func checkLineBytes(line []byte, e Entry, requireSum bool) error {
	sum := e.Sum
	if sum == "" {
		if requireSum {
			return errors.New("sum: missing (every line after the first with a checksum has one)")
		}
		return nil
	}
	canon, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if !bytes.Equal(canon, line) {
		return errors.New("the line is not in the form the ledger writes (changed bytes)")
	}
	e.Sum = ""
	bare, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if lineSum(bare) != sum {
		return errors.New("sum: the checksum does not match the line (changed bytes)")
	}
	return nil
}

// Patterns recovering what a torn or damaged line still shows. A number
// must be followed by ',' or '}' so that a number cut short is not read as
// a smaller one. The dataset hash is read only where every line begins
// with it: an entry's identity may name other datasets (a declared
// different population, "dataset_hash" too), which must never stand in
// for the line's own.
var (
	reHash       = regexp.MustCompile(`^\{"dataset_hash":"([0-9a-f]{64})"`)
	reAnyHash    = regexp.MustCompile(`"dataset_hash":"([0-9a-f]{64})"`) // anywhere: every dataset a joined line shows
	reEpsilon    = regexp.MustCompile(`"epsilon":(-?[0-9][0-9.eE+-]*)[,}]`)
	reDelta      = regexp.MustCompile(`"delta":(-?[0-9][0-9.eE+-]*)[,}]`)
	reKind       = regexp.MustCompile(`"kind":"(release|validation|budget|repair)"[,}]`)
	reOverBudget = regexp.MustCompile(`"over_budget":true|"admitted_by":"zcdp"`) // past basic composition's budget either way
)

// recovered is what a torn or damaged line still shows.
type recovered struct {
	hash       string // "" if no dataset hash can be read
	eps, delta float64
	hasEps     bool
	kind       EntryKind // "" if unreadable
	overBudget bool
}

// recoverFields reads what it can from a damaged or torn line. Values may be
// wrong (damage can alter them); callers only use them in ways that cannot
// lower a charge.
func recoverFields(b []byte) recovered {
	var r recovered
	if m := reHash.FindSubmatch(b); m != nil {
		r.hash = string(m[1])
	}
	if m := reEpsilon.FindSubmatch(b); m != nil {
		if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil && v >= 0 && isFinite(v) {
			r.eps, r.hasEps = v, true
		}
	}
	if m := reDelta.FindSubmatch(b); m != nil {
		if v, err := strconv.ParseFloat(string(m[1]), 64); err == nil && v > 0 && v < 1 {
			r.delta = v
		}
	}
	if m := reKind.FindSubmatch(b); m != nil {
		r.kind = EntryKind(m[1])
	}
	r.overBudget = reOverBudget.Match(b)
	return r
}

// damagedLine is one complete line that is not a valid entry.
type damagedLine struct {
	line     int
	data     []byte
	reason   string
	rec      recovered
	resolved bool // a later repair entry names it
	// followed is set if a valid line follows it; bound, if the first
	// valid line after it carries running totals, is what they say of it.
	followed bool
	bound    *spanBound
	// outOfOrder is set for an intact line (its checksum holds) whose
	// running totals do not follow from the lines before it: it counts
	// as written. If its totals count more entries than the lines before
	// it (gap), entries are missing before it, and the repair charges
	// what gap says they spent to every dataset (or to the datasets the
	// curator attributes the line to); otherwise a repair charging
	// nothing resolves it.
	outOfOrder bool
	gap        *spanBound
	// long is set if the line is longer than singleEntryBound: it may
	// hold several entries whatever its keys show.
	long bool
}

func newDamagedLine(n int, data []byte, err error) damagedLine {
	return damagedLine{line: n, data: data, reason: err.Error(), rec: recoverFields(data)}
}

// confirmedHash returns the dataset hash read from the line if an intact
// entry names the same hash (known) and the line holds a single entry
// (entriesIn), so no second entry's hash can hide in it; else "".
func (d damagedLine) confirmedHash(known map[string]bool) string {
	if d.rec.hash != "" && known[d.rec.hash] && d.entries() == 1 {
		return d.rec.hash
	}
	return ""
}

// entries returns how many entries the damaged line may hold by its keys
// and length: the keys it shows twice (entriesIn), 2 if it is long; if
// more than one, at least one per minEntryLen bytes.
func (d damagedLine) entries() int {
	k := entriesIn(d.data)
	if k == 1 && d.long {
		k = 2 // too long for one entry: line ends and keys may both be damaged
	}
	if k > 1 {
		k = max(k, (len(d.data)+minEntryLen-1)/minEntryLen)
	}
	return k
}

// wholeEntry reports whether the damaged line has the shape of exactly
// one whole entry: it begins as every entry does (`{"dataset_hash":` at
// the start of the line), every key every entry has occurs in it exactly
// once (keyCount), and it does not read as a repair entry. A line split in
// two (a byte damaged into a line end) leaves at most one part that
// begins so and holds every key; joined lines hold the keys twice; a
// fragment that begins inside a different_population list holds none of
// the other keys. So the damaged lines of a span that are all whole
// entries each begin where a line of the ledger began, one line each, and
// there are at most as many of them as the lines that remain there
// (damageCharges, settleSpans). A repair entry may be the repair of an
// older damaged line in the span, which the running totals do not count
// as an entry: it is not taken for one.
func (d damagedLine) wholeEntry() bool {
	if !bytes.HasPrefix(d.data, entryStart) || d.rec.kind == KindRepair {
		return false
	}
	for _, key := range entryKeys {
		if keyCount(d.data, key) != 1 {
			return false
		}
	}
	return true
}

// entryStart is how every line the ledger writes begins (but an
// unattributed repair's, which has no dataset).
var entryStart = []byte(`{"dataset_hash":`)

// markLong sets long on the damaged lines longer than singleEntryBound:
// they may hold several entries whatever their keys show.
func markLong(damaged []damagedLine, longest int) {
	for i := range damaged {
		damaged[i].long = len(damaged[i].data) > singleEntryBound(longest)
	}
}

// resolveRepair checks the repair entry e on line n against the damaged
// lines before it and marks the ones it resolves; run is the running
// totals after the last valid line before it. A repair names either a
// damaged line, which it resolves; or the valid line just before it (a
// complete entry whose line end was missing), charging nothing.
//
// A repair with running totals that charges nothing resolves a damaged
// line only if they show that the line held no entry (a torn fragment, a
// line the totals showed empty; an out-of-order line is intact and counts
// as written): a line that held an entry, such as a terminated tear or an
// out-of-order line damaged since, is not resolved by it, so that later
// damage cannot hide behind a repair written for something else. A repair
// from an earlier version (no totals) also resolves the unbroken run of
// damaged lines between the line it names and itself (what those versions
// wrote after a crash during a repair); a repair of this version resolves
// only the line it names, so that a damaged repair entry is never
// swallowed by the next one.
func resolveRepair(damaged []damagedLine, n, validLine int, e Entry, wantTotals Totals) error {
	want := e.RepairsLine
	if want == n-1 && validLine == n-1 {
		if e.Epsilon != 0 || e.Delta != 0 {
			return fmt.Errorf("repair entry names the valid line %d but charges ε %g, δ %g", want, e.Epsilon, e.Delta)
		}
		return nil
	}
	i := slices.IndexFunc(damaged, func(d damagedLine) bool { return d.line == want })
	if i < 0 {
		return fmt.Errorf("repair entry names line %d, which is not a damaged line before it", want)
	}
	if d := damaged[i]; e.Totals != nil && e.Epsilon == 0 && e.Delta == 0 && !d.outOfOrder {
		b := d.bound
		if b == nil && !d.followed {
			b = newSpanBound(n, wantTotals, e) // this repair is the first valid line after it
		}
		if b == nil || b.entries != 0 {
			return fmt.Errorf("repair entry charges nothing for line %d, but the running totals do not show that the line held no entry (it was valid when the repair was written, or was damaged since)", want)
		}
	}
	damaged[i].resolved = true
	if e.Totals == nil && len(damaged)-i == n-want { // lines want … n-1 are all damaged
		for j := i; j < len(damaged); j++ {
			damaged[j].resolved = true
		}
	}
	return nil
}

// damageCharge is what Repair charges for one damaged line and dataset
// (every dataset if all).
type damageCharge struct {
	line       int
	hash       string
	all        bool
	eps, delta float64
	why        string
	// budgetsLost is set if the lines charged were missing and held, or
	// may have held, a budget entry (Entry.BudgetsLost).
	budgetsLost bool
}

// budgetsLost reports whether missing lines may have held a budget entry:
// the totals around them count budgets > held budget entries more than
// the damaged lines among them can hold, or do not count them (-1).
func budgetsLost(budgets, held int) bool {
	return budgets < 0 || budgets > held
}

// budgetsNote is what a repair note adds when budgetsLost.
const budgetsNote = "; they held or may have held a budget entry, so the budgets of the datasets charged are set aside until the curator sets them again"

// outOfOrderCharges returns the charges of an intact line out of order
// (damagedLine.outOfOrder): nothing if no entry is missing before it;
// otherwise the ε and δ its running totals show the missing entries spent,
// charged to every dataset, existing or future (nobody knows whose lines
// were lost), or to the datasets hs the curator attributes them to.
func outOfOrderCharges(d damagedLine, hs []string) []damageCharge {
	g := d.gap
	var own []damageCharge
	if d.rec.kind == KindBudget && IsSHA256Hex(d.rec.hash) {
		// A budget entry copied or moved later counts as written and may
		// have raised its dataset's budget back: set it aside.
		own = append(own, damageCharge{line: d.line, hash: d.rec.hash, budgetsLost: true,
			why: fmt.Sprintf("line %d is an intact budget entry out of order (%s); it counts as written, but a copy or a moved budget entry may have raised the budget again: the dataset's budgets are set aside until the curator sets them again", d.line, d.reason)})
	}
	if g == nil {
		if len(own) > 0 {
			return own
		}
		return []damageCharge{{line: d.line,
			why: fmt.Sprintf("line %d is intact but out of order (%s); it counts as written", d.line, d.reason)}}
	}
	return append(gapCharges(d, hs), own...)
}

// gapCharges returns the charges of the entries missing before the
// intact line d (outOfOrderCharges).
func gapCharges(d damagedLine, hs []string) []damageCharge {
	g := d.gap
	c := damageCharge{line: d.line, eps: g.eps, delta: min(g.delta, 1-1e-12), all: len(hs) == 0, budgetsLost: budgetsLost(g.budgets, 0),
		why: fmt.Sprintf("the running totals of line %d show %d missing entries that spent ε %g, δ %g", d.line, g.entries, g.eps, g.delta)}
	if c.budgetsLost {
		c.why += budgetsNote
	}
	if c.all {
		c.why = UnattributedNote(d.line) + ": " + c.why + "; charged to every dataset"
		return []damageCharge{c}
	}
	var out []damageCharge
	for _, h := range hs {
		c.hash = h
		out = append(out, c)
	}
	return out
}

// UnattributedNote is how an unattributed repair (Entry.AllDatasets) of
// the entries missing before line n is named.
func UnattributedNote(n int) string {
	return fmt.Sprintf("unattributed (lines missing before line %d)", n)
}

// NeedsCuratorError is Repair's refusal when a damaged line's charge cannot
// be settled from the file alone; nothing is written. Lines lists each such
// line with the reason and what the curator can do.
type NeedsCuratorError struct {
	File  string
	Lines []string
}

func (e *NeedsCuratorError) Error() string {
	return fmt.Sprintf("%s: the ledger cannot be repaired without you: %s (see docs/ledger.md, \"Damage\")", e.File, strings.Join(e.Lines, "; "))
}

// minEntryLen is a lower bound on the length of a ledger line (hash, id,
// time and the mandatory fields): a damaged line of n bytes that may hold
// several entries (a line end lost) holds at most ⌈n/minEntryLen⌉.
const minEntryLen = 120

// singleEntryBound is the length past which a damaged line is taken to
// hold more than one entry even where no key occurs twice (damage can
// destroy the line ends and the repeated keys together): twice the longest
// valid line of the ledger, and at least 8·minEntryLen. A longer single
// entry (a long note) only makes the repair fail closed.
func singleEntryBound(longest int) int {
	return max(2*longest, 8*minEntryLen)
}

// entryKeys are the keys every entry the ledger writes has, once each.
var entryKeys = [][]byte{
	[]byte(`"dataset_hash":`), []byte(`"epsilon":`), []byte(`"delta":`), []byte(`"kind":`),
	[]byte(`"v":`), []byte(`"id":`), []byte(`"time":`),
}

// entriesIn returns how many entries a damaged line may hold: the largest
// number of times any key every entry has occurs in it (at least 1). A line
// end lost between two entries doubles every key; damage to one of them
// leaves the others doubled. (Inside a string, such as a note, a key's
// quotes are escaped and do not count.) Counting keys rather than digits
// keeps the digits of a time, an ε or an id from looking like a second
// entry's dataset hash. The datasets an identity declares a different
// population ([{"dataset_hash":…},{"dataset_hash":…}]) are not entries:
// a "dataset_hash" key opening an element of a list does not count (a
// joined entry still doubles the other keys).
func entriesIn(b []byte) int {
	k := 1
	for _, key := range entryKeys {
		k = max(k, keyCount(b, key))
	}
	return k
}

// keyCount returns how many times key, one of entryKeys, occurs in b as
// an entry's own key: a "dataset_hash" key opening an element of a
// different_population list does not count (entriesIn).
func keyCount(b, key []byte) int {
	n := bytes.Count(b, key)
	if bytes.Equal(key, entryKeys[0]) {
		n -= bytes.Count(b, []byte(`[{"dataset_hash":`)) + bytes.Count(b, []byte(`},{"dataset_hash":`))
	}
	return n
}

// damageCharges computes the conservative charge of every unresolved
// damaged line (docs/ledger.md, "Damage"):
//
//   - a line the running totals of the next intact line show held no
//     entry is charged nothing (and needs no dataset);
//   - a line of a span that is not settled (damagedSpan: its lines are
//     not each one whole entry, or not as many as the entries the totals
//     count, so lines missing beside them may hide among them) is charged
//     its share of what the totals show the span spent, to every dataset
//     (and needs no dataset); the rules below are for the other lines;
//   - its datasets: the hash read from the line if an intact entry names
//     the same hash and the line holds a single entry (entriesIn; a
//     damaged hash cannot be told from a real one otherwise), plus
//     the curator's attribution (attribute: line → hashes); if guess is
//     set (for Spent while damaged), an unconfirmed hash read from the line
//     stands in for a missing attribution; a line that may hold several
//     entries is charged, besides, to every dataset hash it shows;
//   - a line no valid line follows has no running totals after it: it may
//     have been a release past its budget whose over_budget marker is
//     damaged too, so it needs the curator's attribution even when its
//     hash is confirmed (unless guess);
//   - the number of entries k it may hold: 1 if no key of an entry occurs
//     twice in it and it is no longer than singleEntryBound, else the
//     larger of that count and ⌈length/minEntryLen⌉ (a lost line end joins
//     lines);
//   - its charge on each dataset: ε = k·cap, where cap is the largest of
//     the default budget, every intact budget of the dataset and every
//     intact entry's charge on it, times (1 + 10⁻⁹); likewise δ;
//   - if a line with running totals follows (spanBound: the first one
//     after it, version 1 lines between included; or the tip file), the
//     settled span's damaged lines since the line with totals before them
//     spent together at most the difference of the totals: each dataset
//     of the span is charged at
//     least that difference in all, whatever the lines' ε was (an
//     over-budget release included); if each of its lines there shows a
//     spending kind, an ε > 0 and one entry, only that (its share per
//     line), not the cap;
//   - otherwise no charge can be bounded, and the curator must restore the
//     lines, if the dataset has a release past its budget (intact, or read
//     from such a damaged line, or such a line reads an ε above cap), or
//     may have two or more damaged entries of which one may have been a
//     budget change (it may have raised the cap).
//
// It returns the charges it could compute and, if any line cannot be
// settled, a *NeedsCuratorError naming all such lines.
func damageCharges(st *ledgerState, attribute map[int][]string, guess bool) ([]damageCharge, error) {
	known := map[string]bool{}
	for _, e := range st.entries {
		known[e.DatasetHash] = true
	}
	var problems []string
	for line, hs := range attribute {
		if !slices.ContainsFunc(st.damaged, func(d damagedLine) bool { return d.line == line }) {
			problems = append(problems, fmt.Sprintf("line %d is not a damaged line", line))
		}
		for _, h := range hs {
			if !IsSHA256Hex(h) {
				problems = append(problems, fmt.Sprintf("line %d: %q is not a dataset hash", line, h))
			}
		}
	}
	byHash := map[string][]lineCharge{}
	var order []string
	var out []damageCharge
	spans := settleSpans(st.damaged)
	for _, d := range st.damaged {
		if d.outOfOrder {
			out = append(out, outOfOrderCharges(d, attribute[d.line])...)
			continue
		}
		if d.bound != nil && d.bound.entries == 0 {
			out = append(out, damageCharge{line: d.line,
				why: fmt.Sprintf("damaged line %d (%s) held no entry, by %s", d.line, d.reason, d.bound.source())})
			continue
		}
		if sp := spans[d.bound]; sp != nil && !sp.settled {
			out = append(out, sp.share(d))
			continue
		}
		k := d.entries()
		var hs []string
		if h := d.confirmedHash(known); h != "" {
			hs = append(hs, h)
		}
		for _, h := range attribute[d.line] {
			if !slices.Contains(hs, h) {
				hs = append(hs, h)
			}
		}
		if len(hs) == 0 && guess && d.rec.hash != "" {
			hs = append(hs, d.rec.hash)
		}
		if k > 1 && len(hs) > 0 {
			// A line that may hold several entries is charged to every
			// dataset it shows too: an attribution that misses one of
			// them cannot lower its charge.
			for _, m := range reAnyHash.FindAllSubmatch(d.data, -1) {
				if h := string(m[1]); !slices.Contains(hs, h) {
					hs = append(hs, h)
				}
			}
		}
		if len(hs) == 0 {
			what := "no dataset hash can be read from it"
			switch {
			case k > 1:
				what = "it may hold more than one entry (a line end lost): attribute it to every dataset whose entries it may hold, one --attribute each"
			case d.rec.hash != "":
				what = fmt.Sprintf("it names dataset %s, which no intact entry confirms (the hash itself may be damaged)", ShortHash(d.rec.hash))
			}
			problems = append(problems, fmt.Sprintf("line %d: %s; attribute it to its dataset(s) (ledger --repair --attribute %d=FILE.csv)", d.line, what, d.line))
			continue
		}
		if !d.followed && !guess && len(attribute[d.line]) == 0 {
			problems = append(problems, fmt.Sprintf("line %d: no intact line follows it, so no running totals bound its ε, and it may have been a release past its budget (--allow-over-budget) whose over_budget marker was damaged too; if it was not, confirm its dataset(s) (ledger --repair --attribute %d=FILE.csv) and it is charged at the dataset's largest budget; if it was, restore the line from a backup or from the ε and δ its synopsis records", d.line, d.line))
			continue
		}
		lc := lineCharge{d: d, k: k, mayBeBud: k > 1 || d.rec.kind == "" || d.rec.kind == KindBudget}
		for _, h := range hs {
			if byHash[h] == nil {
				order = append(order, h)
			}
			byHash[h] = append(byHash[h], lc)
		}
	}
	for _, h := range order {
		cs, problem := chargeDataset(st.entries, h, byHash[h])
		out = append(out, cs...)
		if problem != "" {
			problems = append(problems, problem)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return out, &NeedsCuratorError{Lines: problems}
	}
	return out, nil
}

// damagedSpan is the unresolved damaged lines one set of running totals
// bounds (spanBound, entries > 0): the first, how many (lines), and
// whether they can be charged line by line (settled): every one of them
// is a whole entry (damagedLine.wholeEntry) and there are exactly as many
// as the totals count entries. Then each line is one line of the ledger
// as it was written, damaged in place, and no line is missing beside
// them. Otherwise lines may be missing and hide among them (a line split
// in two beside a deleted line; lines joined beside one), of datasets
// nobody knows: every line of the span is charged its share of what the
// totals show the span spent, to every dataset (share).
type damagedSpan struct {
	b       *spanBound
	first   int
	lines   int
	whole   bool
	settled bool
}

// settleSpans returns the spans of the unresolved damaged lines, by their
// bound.
func settleSpans(damaged []damagedLine) map[*spanBound]*damagedSpan {
	spans := map[*spanBound]*damagedSpan{}
	for _, d := range damaged {
		if d.outOfOrder || d.bound == nil || d.bound.entries == 0 {
			continue
		}
		sp := spans[d.bound]
		if sp == nil {
			sp = &damagedSpan{b: d.bound, first: d.line, whole: true}
			spans[d.bound] = sp
		}
		sp.lines++
		sp.whole = sp.whole && d.wholeEntry()
	}
	for _, sp := range spans {
		sp.settled = sp.whole && sp.lines == sp.b.entries
	}
	return spans
}

// share returns the charge of the damaged line d of the unsettled span
// sp: its share (1/lines) of the ε and δ the span spent together, to
// every dataset, existing or future. Nobody knows whose lines may be
// missing there: the curator's attribution of a line cannot lower it.
// If the span held, or may have held, a budget entry, every dataset's
// budgets are set aside (it may have lowered one).
func (sp *damagedSpan) share(d damagedLine) damageCharge {
	b, m := sp.b, float64(sp.lines)
	why := "are not each one whole entry (a line split or joined, or a key or the beginning of a line damaged)"
	switch {
	case sp.whole && sp.lines < b.entries:
		why = fmt.Sprintf("are fewer than the %d entries (whole lines are missing)", b.entries)
	case sp.whole:
		why = fmt.Sprintf("are more than the %d entries (a line there held no entry when the totals were written)", b.entries)
	}
	c := damageCharge{line: d.line, all: true, eps: b.eps / m * (1 + 1e-12), delta: min(b.delta/m*(1+1e-12), 1-1e-12),
		budgetsLost: budgetsLost(b.budgets, 0),
		why: fmt.Sprintf("%s: %s count %d entries since the valid line before line %d, spending ε %g, δ %g together; the %d damaged lines there %s, so lines missing beside them may hide among them: damaged line %d (%s) is charged its share (1/%d) to every dataset",
			UnattributedNote(d.line), b.source(), b.entries, sp.first, b.eps, b.delta, sp.lines, why, d.line, d.reason, sp.lines)}
	if c.budgetsLost {
		c.why += budgetsNote
	}
	return c
}

// lineCharge is a damaged line to be charged to a dataset: it may hold k
// entries, and one of them may have been a budget change (mayBeBud).
type lineCharge struct {
	d        damagedLine
	k        int
	mayBeBud bool
}

// chargeDataset returns the charges of dataset h for its damaged lines
// (damageCharges), and the problem, if any, that leaves the lines no
// running totals bound to the curator.
func chargeDataset(entries []Entry, h string, lines []lineCharge) ([]damageCharge, string) {
	epsCap, deltaCap, over := chargeCaps(entries, h)
	n, mayBeBudget := 0, false
	var unbounded []string
	for _, lc := range lines {
		n += lc.k
		mayBeBudget = mayBeBudget || lc.mayBeBud
		if lc.d.bound == nil {
			over = over || lc.d.rec.overBudget || lc.d.rec.eps > epsCap || lc.d.rec.delta > deltaCap
			unbounded = append(unbounded, strconv.Itoa(lc.d.line))
		}
	}
	problem := ""
	if len(unbounded) > 0 && (over || (n > 1 && mayBeBudget)) {
		why := "the dataset has a release past its budget, whose ε and δ nothing in the file bounds"
		if !over {
			why = "one of its damaged lines may have been a budget change, so nothing in the file bounds the others"
		}
		problem = fmt.Sprintf("line(s) %s of dataset %s: %s (no intact line with running totals follows them); restore the lines from a backup or from the ε and δ the synopses record (docs/ledger.md)", strings.Join(unbounded, ", "), ShortHash(h), why)
	}
	// The cap charges of each span, to which its difference is added;
	// the dataset's lines in each span, and whether one may have been a
	// budget change.
	capOf := map[int][2]float64{}
	linesOf, budgetIn := map[int]int{}, map[int]bool{}
	for _, lc := range lines {
		if b := lc.d.bound; b != nil {
			c := capOf[b.next]
			capOf[b.next] = [2]float64{c[0] + float64(lc.k)*epsCap, c[1] + float64(lc.k)*deltaCap}
			linesOf[b.next]++
			budgetIn[b.next] = budgetIn[b.next] || lc.mayBeBud || !lc.d.rec.hasEps || lc.d.rec.eps == 0
		}
	}
	var out []damageCharge
	done := map[int]bool{}
	for _, lc := range lines {
		b := lc.d.bound
		if b == nil && problem != "" {
			continue
		}
		if b != nil && !budgetIn[b.next] {
			// Single spending entries the totals bound: together they
			// spent at most b, so each line's share of it is enough.
			// (The 10⁻¹² covers the rounding of the division.)
			m := float64(linesOf[b.next])
			out = append(out, damageCharge{line: lc.d.line, hash: h, eps: b.eps / m * (1 + 1e-12), delta: min(b.delta/m*(1+1e-12), 1-1e-12),
				why: fmt.Sprintf("damaged line %d (%s) charged its share (1/%d) of the ε %g, δ %g the damaged lines there spent together by %s", lc.d.line, lc.d.reason, linesOf[b.next], b.eps, b.delta, b.source())})
			continue
		}
		k := float64(lc.k)
		c := damageCharge{line: lc.d.line, hash: h, eps: k * epsCap, delta: k * deltaCap,
			why: fmt.Sprintf("damaged line %d (%s) charged at %d × the dataset's largest budget", lc.d.line, lc.d.reason, lc.k)}
		if b != nil && !done[b.next] {
			done[b.next] = true
			caps := capOf[b.next]
			if b.eps > caps[0] || b.delta > caps[1] {
				c.eps += max(0, b.eps-caps[0])
				c.delta += max(0, b.delta-caps[1])
				c.why += fmt.Sprintf(", raised to the ε %g, δ %g the damaged lines there spent together by %s", b.eps, b.delta, b.source())
			}
		}
		c.delta = min(c.delta, 1-1e-12)
		out = append(out, c)
	}
	return out, problem
}

// chargeCaps returns the largest ε and δ a single entry within budget can
// have charged to dataset h, and whether h has an over-budget entry.
func chargeCaps(entries []Entry, h string) (epsCap, deltaCap float64, over bool) {
	epsCap, deltaCap = DefaultBudget, DefaultDeltaBudget
	for _, e := range entries {
		if !e.charges(h) {
			continue
		}
		epsCap = max(epsCap, e.Budget, e.Epsilon)
		deltaCap = max(deltaCap, e.DeltaBudget, e.Delta)
		over = over || e.OverBudget || e.AdmittedBy != ""
	}
	return epsCap * (1 + budgetSlack), deltaCap * (1 + budgetSlack), over
}

// damageError is the refusal of writes while lines are damaged.
func (st *ledgerState) damageError(path string) *Error {
	if len(st.damaged) == 0 {
		return nil
	}
	d := st.damaged[0]
	return &Error{File: path, Line: d.line, Rule: "damaged entry: " + d.reason, Damaged: len(st.damaged)}
}

// refuseWrites returns the error that blocks Reserve and SetBudget: damage
// first, then a torn last line.
func (st *ledgerState) refuseWrites(path string) error {
	if le := st.damageError(path); le != nil {
		return le
	}
	if st.tipErr != nil {
		return st.tipErr
	}
	if st.torn != nil {
		return st.torn
	}
	return nil
}

// RepairOptions are the curator's decisions for Repair.
type RepairOptions struct {
	// Attribute assigns damaged lines (by line number) to the datasets
	// (hashes) whose entries they held, for lines whose dataset cannot be
	// read with certainty. It can only add datasets to a line, never take
	// away the one the line shows.
	Attribute map[int][]string
	// ResetTip is the curator's decision, after checking that no line is
	// missing from the end of the ledger, to replace a damaged or missing
	// tip file, or one naming a line of a replaced ledger, that shows
	// nothing of what is missing (TipError.Known false). It is recorded
	// in the ledger. A tip that shows what lines missing at the end spent
	// is charged, whatever ResetTip says.
	ResetTip bool
}

// Repair makes a torn or damaged ledger usable again without lowering what
// any dataset has spent (docs/ledger.md, "Crashes and torn lines" and
// "Damage"). In one append it terminates a torn last line and records a
// KindRepair entry for it, charging what the fragment reveals (nothing
// more if it was a complete entry missing only its line end), and one
// KindRepair entry per damaged line, charging that line's dataset at its
// largest budget (see damageCharges). If a damaged line cannot be settled
// from the file and opt, Repair writes nothing and returns a
// *NeedsCuratorError. It returns the repair entries written (none if
// nothing was torn or damaged).
func (l *Ledger) Repair(opt RepairOptions) ([]Entry, error) {
	var reps []Entry
	err := l.appendChecked(func(st *ledgerState) ([]byte, error) {
		out, r, err := repairLines(st, opt)
		if nc, ok := err.(*NeedsCuratorError); ok {
			nc.File = l.path
		}
		reps = r
		return out, err
	})
	if errors.Is(err, errNothingToAppend) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return reps, nil
}

// repairLines returns the bytes Repair appends to a ledger in state st, and
// the repair entries they hold; errNothingToAppend if nothing is torn or
// damaged.
func repairLines(st *ledgerState, opt RepairOptions) ([]byte, []Entry, error) {
	if st.torn == nil && len(st.damaged) == 0 && st.tipErr == nil {
		return nil, nil, errNothingToAppend
	}
	charges, err := damageCharges(st, opt.Attribute, false)
	tipRep, tipProblem := st.tipRepair(opt.ResetTip)
	if tipProblem != "" {
		nc := &NeedsCuratorError{}
		if err != nil && !errors.As(err, &nc) {
			return nil, nil, err
		}
		nc.Lines = append(nc.Lines, tipProblem)
		err = nc
	}
	if err != nil {
		return nil, nil, err
	}
	var reps []Entry
	var out []byte
	if st.unterminated {
		// A damaged last line without its line end (not a tear: a complete
		// object breaking a rule): terminate it, or the first repair entry
		// would be glued to it and the ledger stay damaged for good.
		out = append(out, '\n')
	}
	if t := st.torn; t != nil {
		e := Entry{Kind: KindRepair, RepairsLine: t.Line, DatasetHash: t.DatasetHash, Epsilon: t.Epsilon, Delta: t.Delta,
			Note: fmt.Sprintf("torn from line %d (%d bytes): %s", t.Line, len(t.Fragment), quoteFragment(t.Fragment))}
		if t.Complete {
			// The entry itself counts once terminated; charge nothing more.
			e.Epsilon, e.Delta = 0, 0
			e.Note = fmt.Sprintf("line %d was a complete entry missing its line end; it counts as written", t.Line)
		}
		out = append(out, '\n')
		reps = append(reps, e)
	}
	// The totals continue from the last valid entry, and from the torn
	// line if the line end makes it one.
	run, budgets := st.run, st.budgets
	if t := st.torn; t != nil && t.Complete {
		if e, err := decodeEntry(t.Fragment, st.summed); err == nil {
			run = run.advance(e)
			if e.Kind == KindBudget {
				budgets++
			}
		}
	}
	if run.Budgets == nil { // continue the count as ledgerState.want does
		run.Budgets = &budgets
	}
	// Damaged lines last to first (a repair of this version resolves only
	// the line it names, whatever the order; see resolveRepair).
	slices.SortStableFunc(charges, func(a, b damageCharge) int { return b.line - a.line })
	for _, c := range charges {
		i := slices.IndexFunc(st.damaged, func(d damagedLine) bool { return d.line == c.line })
		reps = append(reps, Entry{Kind: KindRepair, RepairsLine: c.line, DatasetHash: c.hash, AllDatasets: c.all, Epsilon: c.eps, Delta: c.delta, BudgetsLost: c.budgetsLost,
			Note: fmt.Sprintf("%s: %s", c.why, quoteFragment(st.damaged[i].data))})
	}
	if tipRep != nil {
		// Last, so that the tip written after this append names it; it
		// names its own line (the missing lines were before it).
		tipRep.RepairsLine = st.nextLine + len(reps)
		reps = append(reps, *tipRep)
	}
	for i := range reps {
		if err := reps[i].prepare(); err != nil {
			return nil, nil, err
		}
		t := run.after(reps[i])
		reps[i].Totals, run = &t, t
		line, err := marshalEntry(reps[i])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, line...)
	}
	return out, reps, nil
}

// quoteFragment quotes at most 300 bytes of a line for a repair note.
func quoteFragment(b []byte) string {
	const maxQuote = 300
	if len(b) > maxQuote {
		return fmt.Sprintf("%q… (%d bytes)", b[:maxQuote], len(b))
	}
	return strconv.Quote(string(b))
}

// DamagedLine describes one unrepaired damaged line, for display.
type DamagedLine struct {
	Line int
	// DatasetHash is the dataset hash read from the line, or "". Damage
	// may have changed it, and a line may hold more than one entry: any
	// dataset's figures may be affected while the ledger is damaged.
	DatasetHash string
	Reason      string
}

// DamagedLines returns the unrepaired damaged lines found when the ledger
// was last read (none if it is not damaged). While there are any, Spent is
// a lower bound for every dataset and Budget may be wrong: show them as
// such (docs/ledger.md, "Damage").
func (l *Ledger) DamagedLines() []DamagedLine {
	var out []DamagedLine
	for _, d := range l.state().damaged {
		out = append(out, DamagedLine{Line: d.line, DatasetHash: d.rec.hash, Reason: d.reason})
	}
	return out
}
