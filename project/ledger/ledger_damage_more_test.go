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
// lost) must still be detected.
func TestLedgerDamageSingleLineRepairs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		names   []string
		attr    map[int][]string
		damage  func([]byte) []byte
		entries int    // entriesIn of the damaged line
		refuse  string // "" if Repair must succeed without attribution
	}{
		{"one line, ε changed, dataset confirmed by line 4", []string{"a", "b", "c", "c"}, nil, epsOnLine3, 1, ""},
		{"one line, ε changed, attributed (the repro)", []string{"a", "b", "c"}, map[int][]string{3: {hashOf("c")}}, epsOnLine3, 1, ""},
		{"line end lost between lines 2 and 3", []string{"a", "b", "c"}, nil, func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			return append(append([]byte{}, b[:j]...), b[j+1:]...)
		}, 2, "more than one entry"},
		{"line end lost and one key of the second entry damaged", []string{"a", "b", "c"}, map[int][]string{2: {hashOf("b")}}, func(b []byte) []byte {
			i := bytes.IndexByte(b, '\n')
			j := i + 1 + bytes.IndexByte(b[i+1:], '\n')
			out := append(append([]byte{}, b[:j]...), b[j+1:]...)
			k := bytes.LastIndex(out, []byte(`"dataset_hash":`))
			out[k+2] = 'x'
			return out
		}, 2, "may have been a budget change"},
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
			if len(reps) != 1 || reps[0].DatasetHash != hashOf("c") {
				t.Fatalf("repairs = %+v, want one on dataset c", reps)
			}
			if eps, _ := l.Spent(hashOf("c")); eps < DefaultBudget {
				t.Fatalf("dataset c spent ε %g after repair, want ≥ its budget %g", eps, DefaultBudget)
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
