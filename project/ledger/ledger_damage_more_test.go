package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// realLedger writes releases of ε 0.4 on the named datasets through
// Reserve, with times that carry nanoseconds (as real ones do), and returns
// the file's path and bytes.
func realLedger(t *testing.T, names ...string) (string, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range names {
		tm := time.Date(2026, 11, 24, 6, 19, 48, 476214319+i, time.UTC)
		if _, err := l.Reserve(Entry{DatasetHash: hashOf(name), Epsilon: 0.4, Time: tm}, false); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// TestLedgerDamageSingleLineRepairs is the regression test of review item
// 1: the nanoseconds of a line's time looked like a second entry's hash,
// so a single damaged line "may hold more than one entry" and never
// repaired automatically. A line that really joins two entries (a line end
// lost) must still be detected. The ledgers keep a tip file, which bounds
// a damaged last line as the running totals of an intact line after it
// would: a joined last line whose keys hide a budget change no longer
// needs the curator (it did before tips, when nothing bounded it). A
// joined line is fewer lines than the entries the tip counts, so lines
// may be missing beside it: it is charged to every dataset.
func TestLedgerDamageSingleLineRepairs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		names   []string
		attr    map[int][]string
		damage  func([]byte) []byte
		entries int    // entriesIn of the damaged line
		refuse  string // "" if Repair must succeed without attribution
		charged string // the dataset a repair entry charges at least its budget; "": every dataset, what the lines spent
	}{
		{"one line, ε changed, dataset confirmed by line 4", []string{"a", "b", "c", "c"}, nil, epsOnLine3, 1, "", "c"},
		{"one line, ε changed, attributed (the repro)", []string{"a", "b", "c"}, map[int][]string{3: {hashOf("c")}}, epsOnLine3, 1, "", "c"},
		{"line end lost between lines 2 and 3", []string{"a", "b", "c"}, nil, func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			return append(append([]byte{}, b[:j]...), b[j+1:]...)
		}, 2, "", ""},
		{"line end lost and one key of the second entry damaged", []string{"a", "b", "c"}, map[int][]string{2: {hashOf("b")}}, func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			out := append(append([]byte{}, b[:j]...), b[j+1:]...)
			k := bytes.LastIndex(out, []byte(`"dataset_hash":`))
			out[k+2] = 'x'
			return out
		}, 2, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, data := realLedger(t, tc.names...)
			bad := tc.damage(data)
			if err := os.WriteFile(p, bad, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			st := l.state()
			if len(st.damaged) != 1 {
				t.Fatalf("damaged lines = %d, want 1", len(st.damaged))
			}
			if got := entriesIn(st.damaged[0].data); got != tc.entries {
				t.Fatalf("entriesIn = %d, want %d", got, tc.entries)
			}
			reps, err := l.Repair(RepairOptions{Attribute: tc.attr})
			if tc.refuse != "" {
				wantNeedsCurator(t, err, tc.refuse)
				return
			}
			if err != nil {
				t.Fatalf("Repair of a single damaged line: %v", err)
			}
			reps = slices.DeleteFunc(reps, func(r Entry) bool { return r.RepairsTip }) // resolves the tip, charging nothing more
			if tc.charged == "" {
				if len(reps) != 1 || !reps[0].AllDatasets {
					t.Fatalf("repairs = %+v, want one on every dataset", reps)
				}
				if eps, _ := l.Spent(hashNew); eps < 0.8 {
					t.Fatalf("a dataset never seen spent ε %g after repair, want ≥ the 0.8 the joined lines spent", eps)
				}
				return
			}
			if len(reps) != 1 || reps[0].DatasetHash != hashOf(tc.charged) {
				t.Fatalf("repairs = %+v, want one on dataset %s", reps, tc.charged)
			}
			if eps, _ := l.Spent(hashOf(tc.charged)); eps < DefaultBudget {
				t.Fatalf("dataset %s spent ε %g after repair, want ≥ its budget %g", tc.charged, eps, DefaultBudget)
			}
		})
	}
}

// epsOnLine3 makes line 3 fail its checksum: ε 0.4 becomes "0.4x".
func epsOnLine3(b []byte) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[2] = bytes.Replace(lines[2], []byte(`"epsilon":0.4`), []byte(`"epsilon":0.4x`), 1)
	return bytes.Join(lines, nil)
}

// TestLedgerHarmlessIrregularities is the regression test of review items
// 2 and 3: a ledger converted to CR LF showed "no entries", a blank line
// ("echo >> ledger.jsonl") was damage charging a dataset its whole budget,
// and a byte order mark damaged line 1. Each is now read past at no charge,
// with a note; every entry still counts, and writes are allowed. A line of
// spaces as long as an entry may be an overwritten entry: still damage.
func TestLedgerHarmlessIrregularities(t *testing.T) {
	base := ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.5},
		Entry{DatasetHash: hashA, Epsilon: 0.125})
	for _, tc := range []struct {
		name    string
		data    []byte
		note    string // "" if none
		damaged bool
	}{
		{"intact", base, "", false},
		{"CR LF", bytes.ReplaceAll(base, []byte("\n"), []byte("\r\n")), "lines 1, 2, 3 end in CR LF", false},
		{"blank last line", append(slices.Clone(base), '\n'), "line 4 is blank", false},
		{"blank lines at the end", append(slices.Clone(base), "\n \r\n\t\n"...), "lines 4, 5, 6 are blank", false},
		{"blank line inside", append(append(slices.Clone(base[:bytes.IndexByte(base, '\n')+1]), " \t\n"...), base[bytes.IndexByte(base, '\n')+1:]...), "", true}, // may be a damaged byte: shifts line numbers
		{"blank unterminated last line", append(slices.Clone(base), "  "...), "line 4 is blank", false},
		{"byte order mark", append(slices.Clone(dataset.UTF8BOM), base...), "byte order mark", false},
		{"spaces as long as an entry", append(slices.Clone(base), strings.Repeat(" ", minEntryLen)+"\n"...), "", true},
		{"CR inside a line", bytes.Replace(base, []byte(`"kind"`), []byte("\r\"kind\""), 1), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerFile(t, tc.data)
			notes := strings.Join(l.Notes(), "\n")
			if tc.note == "" && notes != "" || !strings.Contains(notes, tc.note) {
				t.Errorf("notes = %q, want %q", notes, tc.note)
			}
			if got := l.Damaged() != nil; got != tc.damaged {
				t.Fatalf("damaged = %v (%v), want %v", got, l.Damaged(), tc.damaged)
			}
			if a, _ := l.Spent(hashA); a < 0.375 {
				t.Errorf("dataset a spent ε %g, want ≥ 0.375", a)
			}
			if b, _ := l.Spent(hashB); b < 0.5 {
				t.Errorf("dataset b spent ε %g, want ≥ 0.5", b)
			}
			if tc.damaged {
				return
			}
			if got := len(l.Entries("")); got != 3 {
				t.Errorf("entries = %d, want 3", got)
			}
			if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, false); err != nil {
				t.Fatalf("a release after a harmless irregularity: %v", err)
			}
			if b, _ := l.Spent(hashB); b < 0.6-1e-12 {
				t.Errorf("dataset b spent ε %g after the release, want 0.6", b)
			}
			// The write removes a blank tail: left in place it would
			// become a blank line between entries, or be glued to the
			// entry just written (both damage).
			again, err := Open(l.Path())
			if err != nil {
				t.Fatal(err)
			}
			if d := again.Damaged(); d != nil || again.Torn() != nil || len(again.Entries("")) != 4 {
				t.Fatalf("after the release: damaged %v, torn %v, %d entries, want a clean ledger of 4", d, again.Torn(), len(again.Entries("")))
			}
			if strings.Contains(strings.Join(again.Notes(), "\n"), "blank") {
				t.Errorf("notes after the release = %q: the blank tail is still there", again.Notes())
			}
		})
	}
}

// TestLedgerBudgetReorder: review item 7. Swapping two budget lines
// silently changed the budget (the last budget entry counts; checksums are
// per line). A budget entry dated before the dataset's previous one is now
// damage; a clock stepped back a little is not.
func TestLedgerBudgetReorder(t *testing.T) {
	base := ledgerBytes(t, Entry{DatasetHash: hashA, Kind: KindBudget, Budget: 2}, Entry{DatasetHash: hashA, Epsilon: 0.5},
		Entry{DatasetHash: hashA, Kind: KindBudget, Budget: 5}, Entry{DatasetHash: hashB, Kind: KindBudget, Budget: 3})
	lines := bytes.SplitAfter(base, []byte("\n"))
	swap := func(i, j int) []byte {
		ls := slices.Clone(lines)
		ls[i], ls[j] = ls[j], ls[i]
		return bytes.Join(ls, nil)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		damaged int // first damaged line, 0 if none
		budgetA float64
	}{
		{"in order", base, 0, 5},
		// Line 1 (dated after line 3) is out of order by its running
		// totals, and line 3 by its date.
		{"budget lines of one dataset swapped", swap(0, 2), 1, 5},
		// Once harmless; the running totals now show the reordering.
		{"budget lines of two datasets swapped", swap(2, 3), 3, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerFile(t, tc.data)
			d := l.Damaged()
			if tc.damaged == 0 && d != nil || tc.damaged != 0 && (d == nil || d.Line != tc.damaged || !strings.Contains(d.Error(), "reordered")) {
				t.Fatalf("Damaged() = %v, want line %d", d, tc.damaged)
			}
			if b := l.Budget(hashA); b != tc.budgetA {
				t.Errorf("budget of a = %g, want %g", b, tc.budgetA)
			}
		})
	}
	// A budget set while the clock is behind the last budget entry is
	// dated at that entry, so that it reads back intact.
	future := Entry{DatasetHash: hashA, Kind: KindBudget, Budget: 2, Version: Version, ID: strings.Repeat("0", 16), Time: time.Now().Add(time.Hour).UTC(),
		Totals: &Totals{Entries: 1}}
	line, err := marshalEntry(future)
	if err != nil {
		t.Fatal(err)
	}
	l := ledgerFile(t, line)
	if err := l.SetBudget(hashA, 4); err != nil {
		t.Fatal(err)
	}
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	if d := l.Damaged(); d != nil || l.Budget(hashA) != 4 {
		t.Errorf("after a budget set behind the clock: damaged %v, budget %g, want intact and 4", d, l.Budget(hashA))
	}
}

// wantNeedsCurator fails t unless err is a *NeedsCuratorError saying want.
func wantNeedsCurator(t *testing.T, err error, want string) {
	t.Helper()
	var nc *NeedsCuratorError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Repair: err = %v, want *NeedsCuratorError with %q", err, want)
	}
}

// reservedLedger writes the entries through Reserve and SetBudgets (real
// ids, times, totals and checksums) and returns the file's path and bytes.
func reservedLedger(t *testing.T, es ...Entry) (string, []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Kind == KindBudget {
			err = l.SetBudgets(e.DatasetHash, e.Budget, e.DeltaBudget)
		} else {
			_, err = l.Reserve(e, false)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, data
}

// overwrite returns a copy of b with bytes [from, to) set to c.
func overwrite(b []byte, from, to int, c byte) []byte {
	d := bytes.Clone(b)
	for i := from; i < to; i++ {
		d[i] = c
	}
	return d
}

// lineStart returns the offset of line n (1-based) of b.
func lineStart(b []byte, n int) int {
	return len(bytes.Join(bytes.SplitAfter(b, []byte{'\n'})[:n-1], nil))
}

// v1Ledger writes the entries as version 1 lines (no totals, with
// checksums), with fixed ids and times; the kind defaults to release.
func v1Ledger(t testing.TB, es ...Entry) []byte {
	t.Helper()
	var out []byte
	for i, e := range es {
		if e.Kind == "" {
			e.Kind = KindRelease
		}
		e.Version, e.ID, e.Time = 1, strings.Repeat("1", 15)+string(rune('a'+i)), time.Date(2025, 1, 2, 3, 4, 5+i, 0, time.UTC)
		line, err := marshalEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line...)
	}
	return out
}

// TestLedgerRepairNeverUnderCounts is the regression test of the review of
// the running totals (issue 14): damage that hid one dataset's spend from
// the repair. Each case damages a valid ledger; the damage must be
// detected, and Repair (without attribution, as the CLI runs it) must
// either ask the curator or leave every dataset's spent ε and δ at least
// what it was.
func TestLedgerRepairNeverUnderCounts(t *testing.T) {
	diffPop := &EntryIdentity{Records: hashA, Columns: []string{"x"}, Match: MatchNew,
		DifferentPopulation: []DatasetOverlap{{DatasetHash: hashB, Share: 0.6}}}
	// joinAcross returns the releases of 0.4 on a, b and 0.1 on a, with
	// the bytes from line 1's "v" to line 2's (the line end between them
	// included) replaced by cut: one line, every key once, naming a.
	joinAcross := func(cut func(d []byte, from, to int) []byte) func(t *testing.T) ([]byte, []byte) {
		return func(t *testing.T) ([]byte, []byte) {
			_, orig := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.4}, Entry{DatasetHash: hashB, Epsilon: 0.4}, Entry{DatasetHash: hashA, Epsilon: 0.1})
			from, l2 := bytes.Index(orig, []byte(`"v":2`)), lineStart(orig, 2)
			return orig, cut(orig, from, l2+bytes.Index(orig[l2:], []byte(`"v":2`)))
		}
	}
	// zeroRun returns the releases, with zeros from line 2's "v" to the
	// line end of line last (kept): one long line naming a.
	zeroRun := func(last int, es ...Entry) func(t *testing.T) ([]byte, []byte) {
		return func(t *testing.T) ([]byte, []byte) {
			_, orig := reservedLedger(t, es...)
			from := lineStart(orig, 2) + bytes.Index(orig[lineStart(orig, 2):], []byte(`"v":2`))
			return orig, overwrite(orig, from, lineStart(orig, last+1)-1, 0)
		}
	}
	a, b, c := func(eps float64) Entry { return Entry{DatasetHash: hashA, Epsilon: eps} },
		func(eps float64) Entry { return Entry{DatasetHash: hashB, Epsilon: eps} },
		func(eps float64) Entry { return Entry{DatasetHash: hashC, Epsilon: eps} }
	for _, tc := range []struct {
		name   string
		ledger func(t *testing.T) (orig, damaged []byte)
		asks   string // what the repair asks the curator ("" if it repairs)
		every  bool   // the repair charges every dataset (lines may be missing beside the damaged ones)
	}{
		{"a declared different population does not stand in for a damaged key", func(t *testing.T) ([]byte, []byte) {
			_, orig := reservedLedger(t, b(0.2), Entry{DatasetHash: hashA, Epsilon: 0.4, Identity: diffPop}, b(0.1))
			d := bytes.Clone(orig)
			d[lineStart(orig, 2)+len(`{"dataset_has`)] = 'X' // line 2's own key
			return orig, d
		}, "", true},
		{"a damaged byte in an entry declaring a different population: one entry, repaired", func(t *testing.T) ([]byte, []byte) {
			_, orig := reservedLedger(t, b(0.2), Entry{DatasetHash: hashA, Epsilon: 0.4, Identity: diffPop}, a(0.1))
			return orig, bytes.Replace(orig, []byte(`"epsilon":0.4`), []byte(`"epsilon":0.5`), 1)
		}, "", false},
		{"a line end overwritten with the keys around it joins two datasets", joinAcross(func(d []byte, from, to int) []byte {
			return overwrite(d, from, to, 'x')
		}), "", true},
		{"a line end deleted with the keys around it joins two datasets", joinAcross(func(d []byte, from, to int) []byte {
			return slices.Concat(d[:from], d[to:])
		}), "", true},
		{"a run of zeros over three lines", zeroRun(4, a(0.1), a(0.1), b(0.4), c(0.4), a(0.1)), "", true},
		{"a version 2 line bounds damage before the version 1 lines before it", func(t *testing.T) ([]byte, []byte) {
			orig := slices.Concat(v1Ledger(t, a(0.125), Entry{DatasetHash: hashB, Epsilon: 50, OverBudget: true}, b(0.25)),
				ledgerBytesFrom(t, Totals{Epsilon: 50.375, Entries: 3}, a(0.5)))
			// Line 2 from its ε through its over_budget marker.
			l2 := lineStart(orig, 2)
			from := l2 + bytes.Index(orig[l2:], []byte(`"epsilon":50`)) + len(`"epsilon":`)
			to := l2 + bytes.Index(orig[l2:], []byte(`"over_budget":true`)) + len(`"over_budget":tru`)
			return orig, overwrite(orig, from, to, '0')
		}, "", true}, // the keys from "delta" to "time" destroyed: not a whole entry
		{"a version 1 release past its δ budget whose marker is damaged", func(t *testing.T) ([]byte, []byte) {
			orig := v1Ledger(t, b(0.1), Entry{DatasetHash: hashB, Epsilon: 0.1, Delta: 1e-3, OverBudget: true}, b(0.1))
			return orig, bytes.Replace(orig, []byte(`"over_budget":true`), []byte(`"over_budgeT":true`), 1)
		}, "line(s) 2 of dataset 3e23e8160039…: the dataset has a release past its budget", false},
		{"a run of zeros over five lines, longer than any entry", zeroRun(6, a(0.1), a(0.1), b(0.2), c(0.2), b(0.2), c(0.2), a(0.1)), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, damaged := tc.ledger(t)
			l := ledgerFileFrom(t, orig, damaged)
			if l.Damaged() == nil && l.Torn() == nil {
				t.Fatal("damage not detected")
			}
			_, err := l.Repair(RepairOptions{})
			var nc *NeedsCuratorError
			if tc.asks != "" {
				if !errors.As(err, &nc) || !strings.Contains(err.Error(), tc.asks) {
					t.Fatalf("Repair: %v, want the curator asked about %q", err, tc.asks)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Damaged() != nil || l.Torn() != nil {
				t.Fatalf("still damaged after repair: %v", l.Damaged())
			}
			o := parseLedger(orig, "orig")
			for _, h := range []string{hashA, hashB, hashC} {
				e0, d0 := spent(o.entries, nil, h)
				if e1, d1 := l.Spent(h); e1 < e0 || d1 < d0 {
					t.Errorf("dataset %s: spent ε %g, δ %g after the repair, truly ε %g, δ %g", ShortHash(h), e1, d1, e0, d0)
				}
			}
			if eps, _ := l.Spent(hashNew); (eps > 0) != tc.every {
				t.Errorf("a dataset never seen: spent ε %g after the repair, want the damaged lines charged to every dataset: %v", eps, tc.every)
			}
		})
	}
}

// TestLedgerDamageAfterRepairIsDetected is the regression test of review
// findings 4 and 5 (issue 14): a repair entry written for one thing
// resolved damage done later. A repair charging nothing (a complete entry
// that missed its line end, an out-of-order line) resolved the line it
// names after that line was damaged; and a repair followed an unbroken run
// of damaged lines — one of them a damaged repair entry — and resolved
// them all. Each case repairs a ledger, damages a line, and requires the
// damage to be seen, with no dataset charged less than before.
func TestLedgerDamageAfterRepairIsDetected(t *testing.T) {
	repaired := func(t *testing.T, p string, opt RepairOptions) []byte {
		t.Helper()
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if l.Damaged() == nil && l.Torn() == nil {
			t.Fatal("the ledger to repair is not damaged")
		}
		if _, err := l.Repair(opt); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if st := parseLedger(data, p); len(st.damaged) > 0 || st.torn != nil {
			t.Fatalf("still damaged after the repair: %v", st.damageError(p))
		}
		return data
	}
	for _, tc := range []struct {
		name string
		// ledger returns a repaired ledger and the line to damage.
		ledger func(t *testing.T, p string) (data []byte, line int)
	}{
		{"a complete entry that missed its line end", func(t *testing.T, p string) ([]byte, int) {
			_, data := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.3}, Entry{DatasetHash: hashB, Epsilon: 0.1}, Entry{DatasetHash: hashB, Epsilon: 0.7})
			if err := os.WriteFile(p, data[:len(data)-1], 0o600); err != nil { // a crash: line 3's line end missing
				t.Fatal(err)
			}
			writeTipOf(t, p, data[:bytes.LastIndexByte(data[:len(data)-1], '\n')+1]) // the tip before line 3
			return repaired(t, p, RepairOptions{}), 3
		}},
		{"an out-of-order line", func(t *testing.T, p string) ([]byte, int) {
			_, data := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.3}, Entry{DatasetHash: hashB, Epsilon: 0.6}, Entry{DatasetHash: hashA, Epsilon: 0.1})
			ls := bytes.SplitAfter(data, []byte{'\n'})
			ls[1], ls[2] = ls[2], ls[1] // lines 2 and 3 swapped: both out of order
			if err := os.WriteFile(p, bytes.Join(ls, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			writeTipOf(t, p, data)
			return repaired(t, p, RepairOptions{}), 3
		}},
		{"a repair entry after an unbroken run of damaged lines", func(t *testing.T, p string) ([]byte, int) {
			_, data := reservedLedger(t, Entry{DatasetHash: hashB, Epsilon: 0.1}, Entry{DatasetHash: hashC, Epsilon: 0.1},
				Entry{DatasetHash: hashB, Epsilon: 0.3}, Entry{DatasetHash: hashC, Epsilon: 0.3})
			ls := bytes.SplitAfter(data, []byte{'\n'})
			for _, n := range []int{2, 3} { // lines 3 and 4 damaged: ε 0.3 → 0.2
				ls[n] = bytes.Replace(ls[n], []byte(`"epsilon":0.3`), []byte(`"epsilon":0.2`), 1)
			}
			if err := os.WriteFile(p, bytes.Join(ls, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			writeTipOf(t, p, data)
			// Line 5 repairs line 4, line 6 line 3; line 5 is damaged.
			return repaired(t, p, RepairOptions{Attribute: map[int][]string{3: {hashB}, 4: {hashC}}}), 5
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ledger.jsonl")
			data, n := tc.ledger(t, p)
			before := parseLedger(data, p)
			ls := bytes.SplitAfter(data, []byte{'\n'})
			i := bytes.Index(ls[n-1], []byte(`"kind":"`)) + len(`"kind":"`)
			ls[n-1][i] ^= 0x20 // one byte of the kind: "release" → "Release"
			l := ledgerFileFrom(t, data, bytes.Join(ls, nil))
			if !slices.ContainsFunc(l.DamagedLines(), func(d DamagedLine) bool { return d.Line == n }) {
				t.Fatalf("damaged lines %v, want line %d among them", l.DamagedLines(), n)
			}
			_, err := l.Repair(RepairOptions{})
			var nc *NeedsCuratorError
			if errors.As(err, &nc) {
				return // fails closed: the curator attributes the lines
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{hashA, hashB, hashC} {
				e0, d0 := spent(before.entries, nil, h)
				if e1, d1 := l.Spent(h); e1 < e0 || d1 < d0 {
					t.Errorf("dataset %s: spent ε %g, δ %g after the damage and its repair, ε %g, δ %g before", ShortHash(h), e1, d1, e0, d0)
				}
			}
		})
	}
}

// TestLedgerLineMissingBesideDamagedLine: a span whose running totals
// count more entries than it has lines may have joined entries, and may as
// well mean a whole line is missing, of a dataset nobody knows: the span
// is charged to every dataset, without the curator. The curator who
// attributes the damaged line to its own dataset only must not thereby
// cancel that charge: b's deleted release stays charged.
func TestLedgerLineMissingBesideDamagedLine(t *testing.T) {
	orig := ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.4}, Entry{DatasetHash: hashA, Epsilon: 0.1},
		Entry{DatasetHash: hashB, Epsilon: 0.4}, Entry{DatasetHash: hashA, Epsilon: 0.1})
	ls := bytes.SplitAfter(orig, []byte{'\n'})
	ls[1] = bytes.Replace(ls[1], []byte(`"epsilon":0.1`), []byte(`"epsilon":0.2`), 1) // line 2 damaged
	l := ledgerFile(t, slices.Concat(ls[0], ls[1], ls[3]))                            // line 3 (b) deleted
	if _, err := l.Repair(RepairOptions{Attribute: map[int][]string{2: {hashA}}}); err != nil {
		t.Fatal(err)
	}
	if l.Damaged() != nil {
		t.Fatalf("still damaged: %v", l.Damaged())
	}
	if a, _ := l.Spent(hashA); a < 0.6 {
		t.Errorf("dataset a spent ε %g after the repair, truly 0.6", a)
	}
	for _, h := range []string{hashB, hashNew} {
		if eps, _ := l.Spent(h); eps < 0.4 {
			t.Errorf("dataset %s spent ε %g after the repair, at least 0.4 (b's line was deleted)", ShortHash(h), eps)
		}
	}
}
