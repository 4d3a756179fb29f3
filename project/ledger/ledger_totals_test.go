package ledger

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// overBudgetDamage destroys the ε and the over_budget marker of the line
// of an over-budget release of ε eps (the case docs/ledger.md listed as a
// limit before lines carried running totals).
func overBudgetDamage(eps string) func([]byte) []byte {
	return func(b []byte) []byte {
		b = bytes.Replace(b, []byte(`"epsilon":`+eps+`,`), []byte(`"epsilon":`+strings.Repeat("#", len(eps))+`,`), 1)
		return bytes.Replace(b, []byte(`"over_budget":true`), []byte(`"over_budget":tru#`), 1)
	}
}

// TestLedgerOverBudgetMarkerLost reproduces the last open point of issue
// 14 item 1: a release made with --allow-over-budget can carry any ε; when
// damage destroyed its line together with its over_budget marker, repair
// charged it the dataset's budget (1), far below its ε. Now the running
// totals of the next intact line bound it, and a line no intact line
// follows needs the curator.
func TestLedgerOverBudgetMarkerLost(t *testing.T) {
	relA, relB := Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.1}
	over := func(eps float64) Entry { return Entry{DatasetHash: hashA, Epsilon: eps, OverBudget: true} }
	for _, tc := range []struct {
		name    string
		entries []Entry
		damage  func([]byte) []byte
		attr    map[int][]string
		refuse  string             // NeedsCuratorError substring, or ""
		spent   map[string]float64 // at least this ε after the repair
	}{
		{"ε 5 in the middle", []Entry{relA, over(5), relB}, overBudgetDamage("5"), nil, "",
			map[string]float64{hashA: 5.25, hashB: 0.1}},
		{"ε 10⁶ in the middle", []Entry{relA, over(1e6), relB}, overBudgetDamage("1000000"), nil, "",
			map[string]float64{hashA: 1e6 + 0.25, hashB: 0.1}},
		{"two over-budget releases in one span", []Entry{relA, over(5), over(7), relB}, func(b []byte) []byte { return overBudgetDamage("7")(overBudgetDamage("5")(b)) }, nil, "",
			map[string]float64{hashA: 12.25, hashB: 0.1}},
		{"hash destroyed too, attributed", []Entry{relA, over(5), relB}, func(b []byte) []byte {
			b = overBudgetDamage("5")(b)
			i := bytes.Index(b, []byte("\n")) + 1
			b[i+len(`{"dataset_hash":"`)] = 'X'
			return b
		}, map[int][]string{2: {hashA}}, "", map[string]float64{hashA: 5.25, hashB: 0.1}},
		{"line end lost between the release and the next line", []Entry{relA, over(5), relB, relA}, func(b []byte) []byte {
			b = overBudgetDamage("5")(b)
			i := bytes.Index(b, []byte("\n")) + 1
			j := i + bytes.Index(b[i:], []byte("\n"))
			b[j] = ' '
			return b
		}, map[int][]string{2: {hashA, hashB}}, "", map[string]float64{hashA: 5.5, hashB: 5.1}},
		{"the last line: the curator decides", []Entry{relA, over(5)}, overBudgetDamage("5"), nil, "no intact line follows it", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.damage(ledgerBytes(t, tc.entries...))
			l := ledgerFile(t, data)
			if l.Damaged() == nil {
				t.Fatal("damage not detected")
			}
			_, err := l.Repair(RepairOptions{Attribute: tc.attr})
			if tc.refuse != "" {
				wantNeedsCurator(t, err, tc.refuse)
				if after, _ := os.ReadFile(l.Path()); !bytes.Equal(after, data) {
					t.Fatal("a refused repair changed the ledger")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			l2, err := Open(l.Path())
			if err != nil || l2.Damaged() != nil {
				t.Fatalf("after repair: %v, damaged %v", err, l2.Damaged())
			}
			for h, want := range tc.spent {
				if eps, _ := l2.Spent(h); eps < want*(1-1e-12) {
					t.Errorf("Spent(%s…) = %v after repair, below the %v spent before the damage", h[:8], eps, want)
				}
			}
		})
	}
}

// TestLedgerTotalsTamper: damage to the totals themselves cannot lower a
// charge. A changed total fails its line's checksum, so that line is
// damaged too and the totals of the next intact line bound both; an
// intact line whose totals do not follow from the lines before it (lines
// removed, duplicated or reordered) counts as written and blocks releases
// until a repair names it.
func TestLedgerTotalsTamper(t *testing.T) {
	relA, relB := Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.1}
	over := Entry{DatasetHash: hashA, Epsilon: 5, OverBudget: true}
	t.Run("total lowered without its checksum", func(t *testing.T) {
		data := overBudgetDamage("5")(ledgerBytes(t, relA, over, relB, relA))
		data = bytes.Replace(data, []byte(`"epsilon_sum":5.35`), []byte(`"epsilon_sum":0.35`), 1)
		l := ledgerFile(t, data)
		if d := l.DamagedLines(); len(d) != 2 || d[1].Line != 3 {
			t.Fatalf("damaged lines = %+v, want lines 2 and 3", d)
		}
		if _, err := l.Repair(RepairOptions{Attribute: map[int][]string{3: {hashB}}}); err != nil {
			t.Fatal(err)
		}
		if a, _ := l.Spent(hashA); a < 5.5 {
			t.Errorf("Spent(a) = %v, below the 5.5 spent", a)
		}
		if b, _ := l.Spent(hashB); b < 0.1 {
			t.Errorf("Spent(b) = %v, below the 0.1 spent", b)
		}
	})
	lines := bytes.SplitAfter(ledgerBytes(t, relA, over, relB, relA), []byte("\n"))
	for _, tc := range []struct {
		name  string
		data  []byte
		first int     // first damaged line
		gap   float64 // ε charged to every dataset (lines missing before an intact line)
	}{
		{"a line removed", bytes.Join([][]byte{lines[0], lines[2], lines[3]}, nil), 2, 5},
		{"a line duplicated", bytes.Join([][]byte{lines[0], lines[1], lines[1], lines[2], lines[3]}, nil), 3, 0},
		// Line 2 (ε 5) moved after line 3 reads as missing before it, and
		// line 3 as missing before line 4: over-charged, never under.
		{"two lines swapped", bytes.Join([][]byte{lines[0], lines[2], lines[1], lines[3]}, nil), 2, 5.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerFile(t, tc.data)
			d := l.Damaged()
			if d == nil || d.Line != tc.first || !strings.Contains(d.Error(), "do not follow") {
				t.Fatalf("Damaged() = %v, want line %d, totals that do not follow", d, tc.first)
			}
			want := map[string]float64{}
			for _, e := range parseLedger(tc.data, "x").entries {
				want[e.DatasetHash] += e.Epsilon
			}
			reps, err := l.Repair(RepairOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gap := 0.0
			for _, r := range reps {
				if r.AllDatasets {
					gap += r.Epsilon
				} else if r.Epsilon != 0 {
					t.Errorf("repair of intact line %d charged ε %v to %q, want 0 (it counts as written)", r.RepairsLine, r.Epsilon, r.DatasetHash)
				}
			}
			if gap < tc.gap || gap > tc.gap+1e-7 {
				t.Errorf("charged ε %v to every dataset, want %v", gap, tc.gap)
			}
			for h, w := range want {
				if eps, _ := l.Spent(h); eps < (w+tc.gap)*(1-1e-12) {
					t.Errorf("Spent(%s…) = %v, below the %v its intact lines record", h[:8], eps, w)
				}
			}
			if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, tc.gap > 0); err != nil {
				t.Errorf("Reserve after the repair: %v", err)
			}
			if l.Refresh() != nil || l.Damaged() != nil {
				t.Errorf("damaged after the repair and a release: %v", l.Damaged())
			}
		})
	}
}
