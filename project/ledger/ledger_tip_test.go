package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// tipLedgerEntries are the releases and budgets the tip tests write: ε and
// δ on three datasets, ending with releases of two of them.
var tipLedgerEntries = []Entry{
	{DatasetHash: hashA, Kind: KindBudget, Budget: 3, DeltaBudget: 1e-4},
	{DatasetHash: hashA, Epsilon: 0.5, Delta: 2e-6},
	{DatasetHash: hashB, Epsilon: 0.3},
	{DatasetHash: hashC, Epsilon: 0.2, Delta: 5e-7},
	{DatasetHash: hashA, Epsilon: 0.7, Delta: 3e-6},
	{DatasetHash: hashB, Epsilon: 0.4, Delta: 1e-7},
}

// cutLines returns data without its last n whole lines (a cut at a line
// end).
func cutLines(data []byte, n int) []byte {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	lines = lines[:len(lines)-1] // "" after the final line end
	return bytes.Join(lines[:max(0, len(lines)-n)], nil)
}

// TestLedgerTipTruncation is the regression test of issue 14's last gap:
// cutting the last whole lines of the ledger (at a line end) left a file
// that looked intact with smaller totals, and their spends disappeared.
// Now the tip file shows it: every write is refused (*TipError), Spent
// already counts what the lost lines spent for every dataset, and Repair
// charges at least the lost ε and δ to every dataset, one never seen
// included, never lowering anything.
func TestLedgerTipTruncation(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(data []byte) []byte // the damaged file; nil: deleted
		lost int                      // entries lost (their ε and δ must be charged)
		// damaged: a damaged line is left at the end, which the tip
		// bounds; it may hide the cut line (lines missing beside damaged
		// lines), so it is charged to every dataset, without the curator.
		damaged bool
	}{
		{"last line cut", func(d []byte) []byte { return cutLines(d, 1) }, 1, false},
		{"last two lines cut", func(d []byte) []byte { return cutLines(d, 2) }, 2, false},
		{"an older copy restored (three lines fewer)", func(d []byte) []byte { return cutLines(d, 3) }, 3, false},
		{"every line cut", func(d []byte) []byte { return nil }, 6, false},
		{"the ledger deleted", nil, 6, false},
		{"last line cut, the line before damaged", func(d []byte) []byte {
			d = cutLines(d, 1)
			i := bytes.LastIndex(d, []byte(`"epsilon":0.7`))
			d[i+len(`"epsilon":0.`)] = '1' // ε 0.7 → 0.1, checksum not recomputed
			return d
		}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, orig := reservedLedger(t, tipLedgerEntries...)
			o := parseLedger(orig, p)
			lostEps, lostDelta := 0.0, 0.0
			for _, e := range o.entries[len(o.entries)-tc.lost:] {
				lostEps += e.Epsilon
				lostDelta += e.Delta
			}
			if tc.cut == nil {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, tc.cut(bytes.Clone(orig)), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			var te *TipError
			if got := l.TipProblem(); got == nil || !got.Known {
				t.Fatalf("TipProblem = %v, want the lines missing at the end shown", got)
			}
			var de *Error // damage is reported first
			if _, err := l.Reserve(Entry{DatasetHash: hashNew, Epsilon: 0.01}, false); !errors.As(err, &te) && !errors.As(err, &de) {
				t.Fatalf("Reserve on a cut ledger: %v, want *TipError", err)
			}
			err = l.SetBudget(hashB, 9)
			if !errors.As(err, &te) && !errors.As(err, &de) {
				t.Fatalf("SetBudget on a cut ledger: %v, want *TipError", err)
			}
			if !strings.Contains(err.Error(), "ledger --repair") {
				t.Errorf("the refusal does not give the repair procedure: %v", err)
			}
			for _, h := range []string{hashA, hashB, hashC, hashNew} {
				e0, d0 := spent(o.entries, nil, h)
				if e1, d1 := l.Spent(h); e1 < e0 || d1 < d0 {
					t.Errorf("before the repair, dataset %s: Spent ε %g, δ %g, truly ε %g, δ %g", ShortHash(h), e1, d1, e0, d0)
				}
			}
			reps, err := l.Repair(RepairOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(reps, func(r Entry) bool { return r.RepairsTip }); i < 0 || i != len(reps)-1 {
				t.Fatalf("repairs %+v: want the tip repair last", reps)
			}
			charged, named := 0.0, false
			for _, r := range reps {
				charged += r.Epsilon
				named = named || strings.Contains(r.Note, "the tip file's running totals") && r.AllDatasets
			}
			if tc.damaged && !named {
				t.Errorf("repairs %+v of a damaged line at the end: no note says the tip bounds it", reps)
			}
			if charged < lostEps {
				t.Errorf("the repair charged ε %g, below the %g the lost lines spent", charged, lostEps)
			}
			if l.TipProblem() != nil || l.Damaged() != nil || l.Torn() != nil {
				t.Fatalf("after the repair: tip %v, damaged %v, torn %v", l.TipProblem(), l.Damaged(), l.Torn())
			}
			for _, h := range []string{hashA, hashB, hashC, hashNew} {
				e0, d0 := spent(o.entries, nil, h)
				e1, d1 := l.Spent(h)
				if e1 < e0 || d1 < d0 {
					t.Errorf("after the repair, dataset %s: spent ε %g, δ %g, truly ε %g, δ %g", ShortHash(h), e1, d1, e0, d0)
				}
				if h == hashNew && (e1 < lostEps || d1 < lostDelta*(1-1e-12)) {
					t.Errorf("a dataset never seen: spent ε %g, δ %g, below the lost ε %g, δ %g", e1, d1, lostEps, lostDelta)
				}
			}
			// Repaired, the ledger takes releases again and its tip follows.
			if _, err := l.Reserve(Entry{DatasetHash: hashC, Epsilon: 0.01}, true); err != nil {
				t.Fatalf("Reserve after the repair: %v", err)
			}
			l2, err := Open(p)
			if err != nil || l2.TipProblem() != nil {
				t.Fatalf("reopened: %v, tip %v", err, l2.TipProblem())
			}
		})
	}
}

// TestLedgerTipCrash: a crash between the append and the tip write (at
// each step of the tip write, through the fsops seam) leaves the tip one
// line behind; that is accepted as a tear — the entry counts, nothing is
// refused — and the next write catches the tip up. A crash at the same
// steps of the first write of a ledger from before tips (no tip file yet)
// is accepted too.
func TestLedgerTipCrash(t *testing.T) {
	for _, preTip := range []bool{false, true} {
		// The steps of a Reserve: the append, then the tip write.
		probe := func(t *testing.T) (string, *Ledger) {
			t.Helper()
			p := filepath.Join(t.TempDir(), "ledger.jsonl")
			if preTip {
				if err := os.WriteFile(p, ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.25}), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if !preTip {
				if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.25}, false); err != nil {
					t.Fatal(err)
				}
			}
			return p, l
		}
		_, l := probe(t)
		first, last := tipSteps(t, l)
		for step := first; step <= last; step++ {
			p, l := probe(t)
			crash := &fsops.Faults{FailAt: step, Crash: true}
			fsops.Install(t, crash)
			_, rerr := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.5}, false)
			fsops.Current = fsops.OS{}
			if rerr == nil {
				t.Errorf("preTip=%v: crash at %s not reported", preTip, crash.Faulted())
			}
			l2, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			if l2.TipProblem() != nil || l2.Damaged() != nil || l2.Torn() != nil {
				t.Fatalf("preTip=%v, crash at %s (step %d): tip %v, damaged %v, torn %v; want the lagging tip accepted",
					preTip, crash.Faulted(), step, l2.TipProblem(), l2.Damaged(), l2.Torn())
			}
			if eps, _ := l2.Spent(hashB); eps != 0.5 {
				t.Errorf("preTip=%v, crash at %s: the appended entry is not counted (spent %g)", preTip, crash.Faulted(), eps)
			}
			if _, err := l2.Reserve(Entry{DatasetHash: hashC, Epsilon: 0.1}, false); err != nil {
				t.Fatalf("preTip=%v, crash at %s: the next Reserve: %v", preTip, crash.Faulted(), err)
			}
			if data, _ := os.ReadFile(p); !bytes.Equal(tipOf(t, data), mustRead(t, TipPath(p))) {
				t.Errorf("preTip=%v: the next write did not catch the tip up", preTip)
			}
		}
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLedgerTipWriteFails: a tip write that fails (an error, not a
// crash), at each of its steps, takes the append back unless the tip
// already names the new line (only syncing the directory failed), so the
// ledger never holds an entry its tip does not cover; Reserve reports the
// error either way (nothing released), and nothing is left refused.
func TestLedgerTipWriteFails(t *testing.T) {
	_, l := reservedLedgerOpen(t)
	first, last := tipSteps(t, l)
	for step := first; step <= last; step++ {
		p, l := reservedLedgerOpen(t)
		orig := mustRead(t, p)
		f := &fsops.Faults{FailAt: step}
		fsops.Install(t, f)
		_, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.5}, false)
		fsops.Current = fsops.OS{}
		if err == nil {
			t.Errorf("fault at %s (step %d) not reported", f.Faulted(), step)
		}
		data := mustRead(t, p)
		if !bytes.Equal(data, orig) && !bytes.Equal(tipOf(t, data), mustRead(t, TipPath(p))) {
			t.Errorf("fault at %s (step %d): the append is neither taken back nor covered by the tip", f.Faulted(), step)
		}
		if l2, err := Open(p); err != nil || l2.TipProblem() != nil {
			t.Fatalf("fault at %s (step %d): %v, tip %v", f.Faulted(), step, err, l2.TipProblem())
		}
	}
}

// tipSteps returns the first and last file-system step (1-based, as
// fsops.Faults counts them) of the tip write of a Reserve on l, which it
// makes (of ε 0.5 on dataset B).
func tipSteps(t *testing.T, l *Ledger) (first, last int) {
	t.Helper()
	f := &fsops.Faults{FailAt: -1}
	fsops.Install(t, f)
	if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.5}, false); err != nil {
		t.Fatal(err)
	}
	fsops.Current = fsops.OS{}
	i := slices.Index(f.Trace, "create-temp") // the tip write's first step
	if i < 0 {
		t.Fatalf("steps %v: the tip is not written through the seam", f.Trace)
	}
	return i + 1, len(f.Trace)
}

// reservedLedgerOpen is reservedLedger with one release, opened.
func reservedLedgerOpen(t *testing.T) (string, *Ledger) {
	t.Helper()
	p, _ := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.25})
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return p, l
}

// TestLedgerTipMissingOrDamaged: the edge cases of a tip file that shows
// nothing. A ledger from before tips (no line says a tip is kept) without
// a tip is accepted, and its first write creates the tip; a ledger whose
// lines say a tip is kept, without it or with a damaged one, or with the
// tip of a ledger it replaced, fails closed, and Repair asks the curator
// until they reset the tip (ResetTip, recorded, charging nothing).
func TestLedgerTipMissingOrDamaged(t *testing.T) {
	t.Run("a ledger from before tips", func(t *testing.T) {
		l := ledgerFile(t, ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.25}))
		if l.TipProblem() != nil {
			t.Fatalf("a ledger from before tips refused: %v", l.TipProblem())
		}
		if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(TipPath(l.Path())); err != nil {
			t.Fatalf("the first write did not create the tip: %v", err)
		}
		if e := l.Entries("")[2]; !e.Tip {
			t.Error("the first write with a tip does not say so in its line")
		}
	})
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, p string)
		reason string
		// charge is what the reset charges every dataset: the loss the
		// tip and the file prove (tip totals − the file's before the
		// tip's entry count, TestReviewResetTipDropsTipBound).
		charge float64
	}{
		{"tip missing", func(t *testing.T, p string) {
			if err := os.Remove(TipPath(p)); err != nil {
				t.Fatal(err)
			}
		}, "is missing", 0},
		{"tip damaged", func(t *testing.T, p string) {
			b := mustRead(t, TipPath(p))
			b[bytes.Index(b, []byte(`"entries":`))+len(`"entries":`)] = '9'
			if err := os.WriteFile(TipPath(p), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is damaged", 0},
		{"tip empty", func(t *testing.T, p string) {
			if err := os.WriteFile(TipPath(p), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "is damaged", 0},
		{"ledger replaced by another with as many entries", func(t *testing.T, p string) {
			_, other := reservedLedger(t, Entry{DatasetHash: hashC, Epsilon: 0.1}, Entry{DatasetHash: hashC, Epsilon: 0.1}, Entry{DatasetHash: hashC, Epsilon: 0.1})
			if err := os.WriteFile(p, other, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "replaced or rewritten", 0.75 - 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.25}, Entry{DatasetHash: hashA, Epsilon: 0.25})
			tc.damage(t, p)
			l, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			te := l.TipProblem()
			if te == nil || te.Known || !strings.Contains(te.Reason, tc.reason) {
				t.Fatalf("TipProblem = %v, want one showing nothing, %q", te, tc.reason)
			}
			if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.01}, false); !errors.As(err, &te) || !strings.Contains(err.Error(), "--reset-tip") {
				t.Fatalf("Reserve: %v, want *TipError naming --reset-tip", err)
			}
			before := mustRead(t, p)
			_, err = l.Repair(RepairOptions{})
			wantNeedsCurator(t, err, "--reset-tip")
			if !bytes.Equal(mustRead(t, p), before) {
				t.Fatal("a refused repair changed the ledger")
			}
			reps, err := l.Repair(RepairOptions{ResetTip: true})
			if err != nil || len(reps) != 1 || !reps[0].RepairsTip || reps[0].Epsilon < tc.charge || reps[0].Epsilon > tc.charge+1e-8 || !strings.Contains(reps[0].Note, "--reset-tip") {
				t.Fatalf("Repair with ResetTip: %+v, %v; want one tip repair recording the decision", reps, err)
			}
			if l.TipProblem() != nil {
				t.Fatalf("still refused: %v", l.TipProblem())
			}
		})
	}
	t.Run("the first write with a tip interrupted", func(t *testing.T) {
		// Simulated: a ledger from before tips, one line that says a tip is
		// kept appended (as Reserve writes it), no tip.
		l := ledgerFile(t, ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.25}))
		p := l.Path()
		if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.25}, false); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(TipPath(p)); err != nil {
			t.Fatal(err)
		}
		if l2, err := Open(p); err != nil || l2.TipProblem() != nil {
			t.Fatalf("one line saying a tip is kept, no tip: %v, %v; want accepted (a crash before the first tip)", err, l2.TipProblem())
		}
		if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.25}, false); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(TipPath(p)); err != nil {
			t.Fatal(err)
		}
		if l2, _ := Open(p); l2.TipProblem() == nil {
			t.Fatal("two lines saying a tip is kept, no tip: accepted")
		}
	})
}

// TestLedgerTipLagsAndLinks: a tip behind the file (an older tip restored,
// or writes through a hard link, which keeps its own tip) is accepted, as
// is a crash during a tip repair; a symbolic link shares the tip of the
// file it names.
func TestLedgerTipLagsAndLinks(t *testing.T) {
	p, _ := reservedLedger(t, Entry{DatasetHash: hashA, Epsilon: 0.25})
	old := mustRead(t, TipPath(p))
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(TipPath(p), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if l2, err := Open(p); err != nil || l2.TipProblem() != nil {
		t.Fatalf("a tip three lines behind: %v, %v; want accepted", err, l2.TipProblem())
	}
	sym := filepath.Join(t.TempDir(), "sym.jsonl")
	if err := os.Symlink(p, sym); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if TipPath(sym) != TipPath(p) {
		t.Errorf("TipPath(symlink) = %s, want the tip of the file it names, %s", TipPath(sym), TipPath(p))
	}
	ls, err := Open(sym)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ls.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1}, false); err != nil {
		t.Fatal(err)
	}
	if data := mustRead(t, p); !bytes.Equal(tipOf(t, data), mustRead(t, TipPath(p))) {
		t.Error("a write through a symbolic link did not update the file's tip")
	}

	// A crash after a tip repair's append, before its tip write.
	if err := os.WriteFile(p, cutLines(mustRead(t, p), 2), 0o600); err != nil {
		t.Fatal(err)
	}
	st := parseLedgerTip(mustRead(t, p), p, ptr(readTip(p)))
	out, _, err := repairLines(st, RepairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(out); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if l2, err := Open(p); err != nil || l2.TipProblem() != nil || l2.Damaged() != nil {
		t.Fatalf("a tip repair recorded, its tip not written: %v, %v, %v; want accepted", err, l2.TipProblem(), l2.Damaged())
	}
}

func ptr[T any](v T) *T { return &v }

// TestLedgerRepairTerminatesDamagedLastLine: a last line without its line
// end that is a complete object breaking a rule (damage, not a tear) was
// repaired by an entry glued to it, so the ledger stayed damaged for good
// (found while testing the tip file). The repair now ends that line first.
func TestLedgerRepairTerminatesDamagedLastLine(t *testing.T) {
	b := ledgerBytes(t, Entry{DatasetHash: hashA, Epsilon: 0.25}, Entry{DatasetHash: hashB, Epsilon: 0.25})
	b = b[:len(b)-1]
	i := bytes.LastIndex(b, []byte(`"delta"`))
	b = slices.Concat(b[:i], []byte(`"xdelta"`), b[i+len(`"delta"`):]) // an unknown field: not a tear
	l := ledgerFile(t, b)
	if l.Damaged() == nil || l.Torn() != nil {
		t.Fatalf("damaged %v, torn %v: want line 2 damaged", l.Damaged(), l.Torn())
	}
	if _, err := l.Repair(RepairOptions{Attribute: map[int][]string{2: {hashB}}}); err != nil {
		t.Fatal(err)
	}
	if l.Damaged() != nil || l.Torn() != nil {
		t.Fatalf("after the repair: damaged %v, torn %v", l.Damaged(), l.Torn())
	}
	if eps, _ := l.Spent(hashB); eps < 0.25 {
		t.Errorf("dataset B spent ε %g after the repair, below the 0.25 of its damaged line", eps)
	}
}
