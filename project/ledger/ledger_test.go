package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// hashOf returns the hex SHA-256 of s, a valid dataset hash for tests.
func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

var (
	hashA = hashOf("a") // ca978112…
	hashB = hashOf("b") // 3e23e816…
)

func openTestLedger(t *testing.T) *Ledger {
	t.Helper()
	l, err := Open(filepath.Join(t.TempDir(), "sub", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// tol is the tolerance for sums of a few ε values (rounding only).
const tol = 1e-12

func TestLedgerReserve(t *testing.T) {
	l := openTestLedger(t)
	if eps, delta := l.Spent(hashA); eps != 0 || delta != 0 {
		t.Fatalf("fresh ledger spent %v, %v", eps, delta)
	}
	if b := l.Budget(hashA); b != DefaultBudget {
		t.Fatalf("Budget = %v, want %v", b, DefaultBudget)
	}
	e, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.4, Delta: 1e-6, Learner: "kde",
		Params: map[string][]float64{"bandwidth": {0.1}}, Output: "out.bsyn", DatasetPath: "a.csv"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kind != KindRelease || e.ID == "" || e.Time.IsZero() || e.Version != Version || e.OverBudget {
		t.Errorf("recorded entry = %+v", e)
	}
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.5, Kind: KindValidation}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.3}, false); err != nil {
		t.Fatal(err)
	}
	// 0.4 + 0.5 + 0.2 > 1: refused, nothing written.
	before, _ := os.ReadFile(l.Path())
	_, err = l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.2}, false)
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BudgetError", err)
	}
	if math.Abs(be.Spent-0.9) > tol || be.Requested != 0.2 || be.Budget != 1 || be.DatasetHash != hashA || be.File != l.Path() {
		t.Errorf("BudgetError = %+v", be)
	}
	for _, want := range []string{"--allow-over-budget", "ε = 0.2", "budget of 1", "ca978112ca1b…"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if after, _ := os.ReadFile(l.Path()); !bytes.Equal(before, after) {
		t.Error("a refused release changed the ledger")
	}
	// With allowOver it is recorded as such.
	e, err = l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.2}, true)
	if err != nil || !e.OverBudget {
		t.Fatalf("allowOver: %+v, %v", e, err)
	}
	// Persistence: a fresh open sees the same spend.
	l2, err := Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	eps, delta := l2.Spent(hashA)
	if math.Abs(eps-1.1) > tol || delta != 1e-6 {
		t.Errorf("Spent(A) = %v, %v; want 1.1, 1e-6", eps, delta)
	}
	if eps, _ := l2.Spent(hashB); eps != 0.3 {
		t.Errorf("Spent(B) = %v, want 0.3", eps)
	}
	if n := len(l2.Entries(hashA)); n != 3 {
		t.Errorf("len(Entries(A)) = %d, want 3", n)
	}
	if n := len(l2.Entries("")); n != 4 {
		t.Errorf("len(Entries(\"\")) = %d, want 4", n)
	}
	got := l2.Entries(hashA)[0]
	if got.Learner != "kde" || got.Params["bandwidth"][0] != 0.1 || got.Output != "out.bsyn" {
		t.Errorf("round-tripped entry = %+v", got)
	}
	if fi, err := os.Stat(l.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ledger mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

func TestLedgerBudgetRounding(t *testing.T) {
	l := openTestLedger(t)
	for i := range 10 {
		if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1}, false); err != nil {
			t.Fatalf("release %d of ε = 0.1: %v", i+1, err)
		}
	}
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 1e-6}, false); err == nil {
		t.Fatal("release past a spent budget allowed")
	}
}

func TestLedgerSetBudget(t *testing.T) {
	l := openTestLedger(t)
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.8}, false); err != nil {
		t.Fatal(err)
	}
	if err := l.SetBudget(hashA, 2); err != nil {
		t.Fatal(err)
	}
	if b := l.Budget(hashA); b != 2 {
		t.Fatalf("Budget = %v, want 2", b)
	}
	if b := l.Budget(hashB); b != DefaultBudget {
		t.Fatalf("Budget(B) = %v, want default", b)
	}
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 1}, false); err != nil {
		t.Fatalf("within the raised budget: %v", err)
	}
	if err := l.SetBudget(hashA, 0.5); err != nil { // below spent: allowed
		t.Fatal(err)
	}
	var be *BudgetError
	if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.01}, false); !errors.As(err, &be) || be.Budget != 0.5 {
		t.Fatalf("after lowering: err = %v", err)
	}
	last := l.Entries(hashA)
	if k := last[len(last)-1].Kind; k != KindBudget {
		t.Errorf("budget change not recorded as an entry (last kind %q)", k)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if err := l.SetBudget(hashA, bad); err == nil || !strings.Contains(err.Error(), "budget:") {
			t.Errorf("SetBudget(%v): err = %v", bad, err)
		}
	}
	if err := l.SetBudget("nothex", 1); err == nil || !strings.Contains(err.Error(), "dataset_hash") {
		t.Errorf("SetBudget(bad hash): err = %v", err)
	}
}

func TestLedgerReserveInvalid(t *testing.T) {
	l := openTestLedger(t)
	tests := []struct {
		name string
		e    Entry
		want string
	}{
		{"bad hash", Entry{DatasetHash: "abc", Epsilon: 0.1}, "dataset_hash"},
		{"upper-case hash", Entry{DatasetHash: strings.ToUpper(hashA), Epsilon: 0.1}, "dataset_hash"},
		{"zero epsilon", Entry{DatasetHash: hashA}, "epsilon: 0 must be > 0"},
		{"negative epsilon", Entry{DatasetHash: hashA, Epsilon: -1}, "epsilon"},
		{"NaN epsilon", Entry{DatasetHash: hashA, Epsilon: math.NaN()}, "epsilon"},
		{"Inf epsilon", Entry{DatasetHash: hashA, Epsilon: math.Inf(1)}, "epsilon"},
		{"delta 1", Entry{DatasetHash: hashA, Epsilon: 0.1, Delta: 1}, "delta: 1 must be in [0, 1)"},
		{"negative delta", Entry{DatasetHash: hashA, Epsilon: 0.1, Delta: -1e-9}, "delta"},
		{"NaN param", Entry{DatasetHash: hashA, Epsilon: 0.1, Params: map[string][]float64{"h": {math.NaN()}}}, "params: h"},
		{"budget kind", Entry{DatasetHash: hashA, Kind: KindBudget, Budget: 2}, "cannot be reserved"},
		{"repair kind", Entry{DatasetHash: hashA, Kind: KindRepair, Epsilon: 1}, "cannot be reserved"},
		{"unknown kind", Entry{DatasetHash: hashA, Kind: "gift", Epsilon: 1}, "cannot be reserved"},
		{"caller sets OverBudget", Entry{DatasetHash: hashA, Epsilon: 0.1, OverBudget: true}, "set by the ledger"},
	}
	for _, tc := range tests {
		if _, err := l.Reserve(tc.e, true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(l.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("invalid entries created the ledger file: %v", err)
	}
}

// TestLedgerRead reads the hand-written files under testdata/ledger and pins
// the outcome (spend per dataset, torn tail, or the error) in
// testdata/ledger/read.golden.
func TestLedgerRead(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "ledger", "*.jsonl"))
	if err != nil || len(files) < 10 {
		t.Fatalf("ledger test files: %v, %v", files, err)
	}
	sort.Strings(files)
	wantDamaged := map[string]bool{ // files whose writes must be refused as damaged
		"malformed-middle.jsonl": true, "repair-wrong-line.jsonl": true, "unknown-field.jsonl": true,
		"unknown-version.jsonl": true, "unknown-kind.jsonl": true, "bad-hash.jsonl": true,
		"negative-epsilon.jsonl": true, "blank-line.jsonl": true, "repair-interrupted.jsonl": true,
		"totals-reordered.jsonl": true, "totals-over-budget-damaged.jsonl": true,
	}
	wantTorn := map[string]bool{
		"torn-tail.jsonl": true, "torn-early.jsonl": true, "torn-number-cut.jsonl": true,
		"complete-unterminated.jsonl": true, "repair-interrupted.jsonl": true, "zero-garbage-tail.jsonl": true,
	}
	var out bytes.Buffer
	for _, f := range files {
		base := filepath.Base(f)
		fmt.Fprintf(&out, "%s\n", base)
		l, err := Open(f)
		if err != nil {
			t.Errorf("%s: %v (a damaged ledger must open, to be shown and repaired)", base, err)
			continue
		}
		if le := l.Damaged(); (le != nil) != wantDamaged[base] {
			t.Errorf("%s: Damaged() = %v, want damaged %v", base, le, wantDamaged[base])
		} else if le != nil {
			if le.Line < 1 || le.File != f {
				t.Errorf("%s: error %v lacks file and line", base, le)
			}
			var got *Error
			if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.01}, true); !errors.As(err, &got) {
				t.Errorf("%s: Reserve on a damaged ledger: err = %v, want *LedgerError", base, err)
			}
			fmt.Fprintf(&out, "\tdamaged: %v\n", le)
		}
		if (l.Torn() != nil) != wantTorn[base] {
			t.Errorf("%s: Torn() = %v, want torn %v", base, l.Torn(), wantTorn[base])
		}
		if tr := l.Torn(); tr != nil {
			fmt.Fprintf(&out, "\ttorn: %v (complete %v)\n", tr, tr.Complete)
		}
		for _, h := range []string{hashA, hashB} {
			eps, delta := l.Spent(h)
			fmt.Fprintf(&out, "\t%s: spent ε %g δ %g, budget %g, %d entries\n", h[:8], eps, delta, l.Budget(h), len(l.Entries(h)))
		}
	}
	checkGolden(t, filepath.Join("testdata", "ledger", "read.golden"), out.Bytes())
}

// copyLedger copies a testdata ledger into a temporary directory.
func copyLedger(t *testing.T, name string) *Ledger {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "ledger", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLedgerRepair(t *testing.T) {
	tests := []struct {
		file     string
		spentA   float64 // ε spent on A while torn, and after repair
		deltaA   float64
		complete bool
	}{
		{"torn-tail.jsonl", 0.75, 1e-6, false},
		{"complete-unterminated.jsonl", 0.75, 1e-6, true},
		{"torn-early.jsonl", 0.25, 0, false},        // tear before the hash: nothing attributable
		{"torn-number-cut.jsonl", 0.25, 0, false},   // ε cut short: not read as a smaller number
		{"zero-garbage-tail.jsonl", 0.25, 0, false}, // file extended with zeros by a crash
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			l := copyLedger(t, tc.file)
			torn := l.Torn()
			if torn == nil || torn.Complete != tc.complete {
				t.Fatalf("Torn() = %+v", torn)
			}
			check := func(when string) {
				eps, delta := l.Spent(hashA)
				if math.Abs(eps-tc.spentA) > tol || math.Abs(delta-tc.deltaA) > tol {
					t.Errorf("%s: Spent(A) = %v, %v; want %v, %v", when, eps, delta, tc.spentA, tc.deltaA)
				}
			}
			check("torn")
			var te *TornError
			if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, true); !errors.As(err, &te) {
				t.Errorf("Reserve on a torn ledger: err = %v, want *TornError", err)
			}
			if err := l.SetBudget(hashB, 3); !errors.As(err, &te) {
				t.Errorf("SetBudget on a torn ledger: err = %v, want *TornError", err)
			}
			rep, err := l.Repair(RepairOptions{})
			if err != nil || len(rep) != 1 || rep[0].Kind != KindRepair || rep[0].RepairsLine != torn.Line {
				t.Fatalf("Repair = %+v, %v", rep, err)
			}
			if l.Torn() != nil {
				t.Fatalf("still torn after repair: %v", l.Torn())
			}
			check("repaired")
			l2, err := Open(l.Path())
			if err != nil || l2.Torn() != nil {
				t.Fatalf("reopen after repair: %v, torn %v", err, l2.Torn())
			}
			l = l2
			check("reopened")
			if _, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, false); err != nil {
				t.Errorf("Reserve after repair: %v", err)
			}
			if rep, err := l.Repair(RepairOptions{}); rep != nil || err != nil {
				t.Errorf("second Repair = %v, %v; want nothing to do", rep, err)
			}
		})
	}
}

// TestLedgerRepairInterrupted crashes Repair at every write step: the
// charge stays counted once, never zero and never twice once repaired.
func TestLedgerRepairInterrupted(t *testing.T) {
	fsops.ForEach(t, func(t *testing.T, dir string, f *fsops.Faults) {
		data, err := os.ReadFile(filepath.Join("testdata", "ledger", "torn-tail.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "ledger.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		fsops.Install(t, f)
		_, rerr := l.Repair(RepairOptions{})
		if f.Hit && rerr == nil {
			t.Errorf("fault at %s not reported", f.Faulted())
		}
		fsops.Current = fsops.OS{}
		l, err = Open(p)
		if err != nil {
			t.Fatalf("ledger refused after an interrupted repair: %v", err)
		}
		// A repair cut after its line end leaves a complete damaged line,
		// which is charged conservatively (docs/ledger.md): never less.
		before, _ := l.Spent(hashA)
		if before < 0.75-tol {
			t.Errorf("Spent(A) = %v after interrupted repair, want ≥ 0.75", before)
		}
		// The terminated torn line is then a damaged line no intact line
		// follows: the curator confirms its dataset (docs/ledger.md).
		var opt RepairOptions
		if d := l.DamagedLines(); len(d) == 1 {
			opt.Attribute = map[int][]string{d[0].Line: {hashA}}
		}
		if _, err := l.Repair(opt); err != nil {
			t.Fatal(err)
		}
		if eps, _ := l.Spent(hashA); eps < before-tol || l.Torn() != nil || l.Damaged() != nil {
			t.Errorf("after a second repair: Spent(A) = %v (was %v), torn %v, damaged %v", eps, before, l.Torn(), l.Damaged())
		}
	})
}

// TestLedgerReserveFaults interrupts the ledger append at every write step
// (error and crash modes). Afterwards the ledger always opens; the new
// entry is either absent (and Reserve failed), present and complete, or a
// torn tail that is reported, counted for the dataset, refuses further
// releases, and is kept counted by Repair. It is never silently unspent.
func TestLedgerReserveFaults(t *testing.T) {
	for _, fresh := range []bool{true, false} {
		t.Run(fmt.Sprintf("fresh=%v", fresh), func(t *testing.T) {
			fsops.ForEach(t, func(t *testing.T, dir string, f *fsops.Faults) {
				p := filepath.Join(dir, "ledger.jsonl")
				l, err := Open(p)
				if err != nil {
					t.Fatal(err)
				}
				old := 0.0
				if !fresh {
					if _, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.25}, false); err != nil {
						t.Fatal(err)
					}
					old = 0.25
				}
				fsops.Install(t, f)
				_, rerr := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.5, Learner: "kde",
					Params: map[string][]float64{"bandwidth": {0.05}, "h": {2}}, Output: strings.Repeat("o", 200)}, false)
				if f.Hit && rerr == nil {
					t.Errorf("fault at %s not reported", f.Faulted())
				}
				fsops.Current = fsops.OS{}

				l2, err := Open(p)
				if err != nil {
					t.Fatalf("ledger refused after interrupted append: %v", err)
				}
				if te := l2.TipProblem(); te != nil {
					t.Errorf("fault at %s: the ledger no longer ends where its tip says: %v", f.Faulted(), te)
				}
				eps, _ := l2.Spent(hashA)
				switch torn := l2.Torn(); {
				case torn != nil:
					if !f.Crash {
						t.Errorf("torn tail left without a crash (fault at %s): the failed append was not taken back", f.Faulted())
					}
					if rerr == nil {
						t.Error("torn tail although Reserve succeeded")
					}
					if torn.DatasetHash == hashA && math.Abs(eps-old-0.5) > tol {
						t.Errorf("torn entry for A not counted: Spent = %v", eps)
					}
					if _, err := l2.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1}, false); err == nil {
						t.Error("Reserve allowed on a torn ledger")
					}
					before := eps
					if _, err := l2.Repair(RepairOptions{}); err != nil {
						t.Fatal(err)
					}
					if after, _ := l2.Spent(hashA); math.Abs(after-before) > tol {
						t.Errorf("Repair changed Spent from %v to %v", before, after)
					}
				case math.Abs(eps-old-0.5) <= tol:
					// the entry is complete (Reserve may still report the
					// failed fsync or close: a conservative outcome)
				case math.Abs(eps-old) <= tol:
					if rerr == nil {
						t.Error("Reserve succeeded but the entry is missing")
					}
				default:
					t.Errorf("Spent = %v, want %v or %v", eps, old, old+0.5)
				}
			})
		})
	}
}

// TestLedgerConcurrent runs releases from separate Ledger values (separate
// lock descriptors, as separate processes would) on one file: the budget
// admits exactly ten releases of ε = 0.1.
func TestLedgerConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.jsonl")
	const workers = 20
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			l, err := Open(p)
			if err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1}, false)
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		var be *BudgetError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &be):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 10 || refused != 10 {
		t.Errorf("%d allowed, %d refused; want 10, 10", ok, refused)
	}
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l.Entries(hashA)); n != 10 {
		t.Errorf("%d entries, want 10", n)
	}
}

func TestDefaultLedgerPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/cfg")
	t.Setenv("HOME", "/tmp/home")
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(p, filepath.Join("bernstein", "ledger.jsonl")) {
		t.Errorf("DefaultLedgerPath = %q", p)
	}
}

// TestLedgerConcurrentLinks reproduces issue 14 item 2: the lock was keyed
// on the path name, so releases through a symbolic or hard link to the
// ledger took another lock and both passed the budget check (1.1 spent of
// a budget of 1). Twenty concurrent releases of ε = 0.1 through two names
// of one ledger file (its path and a symbolic link) admit exactly ten.
// With a hard link (another name, which would keep its own tip file),
// every release through every name is refused (*HardLinkError, the tip
// review: TestLedgerHardLinkRefused), so none can over-spend either.
func TestLedgerConcurrentLinks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ledger.jsonl")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetBudget(hashA, 1); err != nil { // the file must exist to be linked
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "sym.jsonl"), filepath.Join(dir, "other", "hard.jsonl")
	if err := os.Symlink(p, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(hard), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, hard); err != nil {
		t.Fatal(err)
	}
	race := func(names []string, check func(error)) int {
		const workers = 20
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for i := range workers {
			wg.Go(func() {
				l, err := Open(names[i%len(names)])
				if err != nil {
					errs[i] = err
					return
				}
				_, errs[i] = l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1}, false)
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else {
				check(err)
			}
		}
		return ok
	}
	// A hard link: every name refuses.
	if ok := race([]string{p, sym, hard}, func(err error) {
		if hl := (*HardLinkError)(nil); !errors.As(err, &hl) {
			t.Errorf("with a hard link: %v, want *HardLinkError", err)
		}
	}); ok != 0 {
		t.Errorf("with a hard link: %d releases allowed, want 0", ok)
	}
	if err := os.Remove(hard); err != nil {
		t.Fatal(err)
	}
	ok := race([]string{p, sym}, func(err error) {
		if be := (*BudgetError)(nil); !errors.As(err, &be) {
			t.Errorf("unexpected error: %v", err)
		}
	})
	l, err = Open(sym)
	if err != nil {
		t.Fatal(err)
	}
	if eps, _ := l.Spent(hashA); ok != 10 || eps > 1+1e-9 || l.Damaged() != nil || l.TipProblem() != nil {
		t.Errorf("%d releases allowed, ε %v spent of a budget of 1 (damaged: %v, tip: %v); want 10 and 1", ok, eps, l.Damaged(), l.TipProblem())
	}
	for _, name := range []string{p, sym, hard} {
		if _, err := os.Lstat(name + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a lock file beside %s: the lock must be the ledger file itself", name)
		}
	}
}
