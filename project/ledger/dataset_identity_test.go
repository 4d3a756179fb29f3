package ledger

import (
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// recordsKey is the record fingerprint of ds in columns: the ledger key of
// a dataset new to the ledger.
func recordsKey(t testing.TB, ds *dataset.Table, columns ...string) string {
	t.Helper()
	id, err := IdentifyDataset(ds, columns)
	if err != nil {
		t.Fatal(err)
	}
	return id.Records
}

// identityTestRows returns n rows "x,y" of continuous values drawn from a
// standard normal (x) and a uniform (y), seeded.
func identityTestRows(n int, seed uint64) []string {
	r := mrand.New(mrand.NewPCG(seed, 0x1d))
	rows := make([]string, n)
	for i := range rows {
		rows[i] = fmt.Sprintf("%.12f,%.12f", r.NormFloat64(), r.Float64())
	}
	return rows
}

// identityVariants are the seven files of issue 13 item 6: the same records
// (or, for "one row added", all of them and one more), formatted
// differently.
func identityVariants(rows []string) map[string]string {
	lf := "x,y\n" + strings.Join(rows, "\n") + "\n"
	reordered := slices.Clone(rows)
	slices.Reverse(reordered)
	var extra strings.Builder
	extra.WriteString("id,x,note,y\n")
	for i, r := range rows {
		x, y, _ := strings.Cut(r, ",")
		fmt.Fprintf(&extra, "%d,%s,\"quoted, text\",\"%s\"\n", 1000+i, x, y)
	}
	return map[string]string{
		"original":            lf,
		"rows reordered":      "x,y\n" + strings.Join(reordered, "\n") + "\n",
		"one row added":       lf + "0.123456789,0.5\n",
		"trailing blank line": lf + "\n",
		"CRLF":                strings.ReplaceAll(lf, "\n", "\r\n"),
		"BOM":                 "\uFEFF" + lf,
		"extra unused column": extra.String(),
	}
}

func parseTestCSV(t testing.TB, name, text string) *dataset.Table {
	t.Helper()
	ds, err := dataset.ParseCSV(strings.NewReader(text), name, dataset.CSVOptions{Columns: []string{"x", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestIdentityIgnoresFormatting(t *testing.T) {
	rows := identityTestRows(300, 1)
	variants := identityVariants(rows)
	want := recordsKey(t, parseTestCSV(t, "original", variants["original"]), "x", "y")
	hashes := map[string]bool{}
	for name, text := range variants {
		ds := parseTestCSV(t, name, text)
		hashes[ds.Hash] = true
		got := recordsKey(t, ds, "y", "x") // column order does not matter either
		if same := got == want; same != (name != "one row added") {
			t.Errorf("%s: records %s, original %s (same = %v)", name, ShortHash(got), ShortHash(want), same)
		}
	}
	if len(hashes) != len(variants) {
		t.Errorf("%d distinct file hashes for %d variants: the test files are not all different", len(hashes), len(variants))
	}
	// Numbers are compared as values: 1, 1.0, 1e0 and −0 = 0.
	a := parseTestCSV(t, "a", "x,y\n1,0\n2.5,3\n")
	b := parseTestCSV(t, "b", "x,y\n 2.50 ,3e0\n1.0,-0\n")
	if recordsKey(t, a, "x", "y") != recordsKey(t, b, "x", "y") {
		t.Error("equal values written differently give different records")
	}
	// Other column sets are other datasets; so are other values.
	for _, tc := range []struct {
		name string
		ds   *dataset.Table
		cols []string
	}{
		{"column x only", a, []string{"x"}},
		{"column y only", a, []string{"y"}},
		{"one value changed", parseTestCSV(t, "c", "x,y\n1,0\n2.5,3.0000001\n"), []string{"x", "y"}},
		{"a row duplicated", parseTestCSV(t, "d", "x,y\n1,0\n2.5,3\n1,0\n"), []string{"x", "y"}},
		{"values moved between rows", parseTestCSV(t, "e", "x,y\n1,3\n2.5,0\n"), []string{"x", "y"}},
	} {
		if recordsKey(t, tc.ds, tc.cols...) == recordsKey(t, a, "x", "y") {
			t.Errorf("%s: same records as the original", tc.name)
		}
	}
}

func TestIdentityRejectsBadColumns(t *testing.T) {
	ds := parseTestCSV(t, "a", "x,y\n1,0\n")
	for _, cols := range [][]string{nil, {"z"}} {
		if _, err := IdentifyDataset(ds, cols); err == nil {
			t.Errorf("columns %q: no error", cols)
		}
	}
	if _, err := IdentifyDataset(nil, []string{"x"}); err == nil {
		t.Error("nil dataset: no error")
	}
}

// TestSketchOverlapAccuracy checks the estimated share of common rows on
// datasets of 2000 rows sharing 30 % or 70 % of them, with a fresh random
// key each run. The Jaccard estimate's standard deviation is at most
// sqrt(J(1−J)/256) (≈ 0.024 at J = 0.18, ≈ 0.031 at J = 0.54), i.e. ≤ 0.035
// on the share; the tolerance 0.2 is ≥ 5.7 standard deviations, so the
// false-failure rate is below 10⁻⁷ per case; the ≥ 50 % decision is then
// right in both cases.
func TestSketchOverlapAccuracy(t *testing.T) {
	const n = 2000
	key := make([]byte, sketchKeyBytes)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	base := identityTestRows(2*n, 6)
	for _, share := range []float64{0.3, 0.7} {
		common := int(share * n)
		a := base[:n]
		b := append(slices.Clone(base[:common]), base[n:2*n-common]...)
		sa := identityOf(t, a).Sketch(key)
		sb := identityOf(t, b).Sketch(key)
		got := sa.Overlap(sb)
		if math.Abs(got-share) > 0.2 || (got >= NearDuplicateShare) != (share >= NearDuplicateShare) {
			t.Errorf("share %g: estimated %g", share, got)
		}
		if sym := sb.Overlap(sa); sym != got {
			t.Errorf("share %g: overlap not symmetric: %g vs %g", share, got, sym)
		}
	}
	// Small datasets are compared exactly; a subset counts fully.
	small := identityOf(t, base[:100]).Sketch(key)
	if got := small.Overlap(identityOf(t, base[:200]).Sketch(key)); got != 1 {
		t.Errorf("subset: share %g, want 1", got)
	}
	// Another key gives other hashes: a sketch is useless without its key.
	other := make([]byte, sketchKeyBytes)
	if got := small.Overlap(identityOf(t, base[:100]).Sketch(other)); got != 0 {
		t.Errorf("sketches under different keys overlap %g", got)
	}
}

func identityOf(t *testing.T, rows []string) *DatasetIdentity {
	t.Helper()
	ds := parseTestCSV(t, "rows", "x,y\n"+strings.Join(rows, "\n")+"\n")
	id, err := IdentifyDataset(ds, []string{"x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestEntryIdentityValidation(t *testing.T) {
	h := strings.Repeat("ab", 32)
	good := EntryIdentity{Records: h, FileHash: h, Columns: []string{"a", "b"}, Match: MatchNearDuplicate, Share: 0.9,
		DifferentPopulation: []DatasetOverlap{{DatasetHash: h, Share: 0.6}}}
	if err := good.Validate(); err != nil {
		t.Fatalf("valid identity: %v", err)
	}
	for name, mod := range map[string]func(x *EntryIdentity){
		"records":    func(x *EntryIdentity) { x.Records = "x" },
		"file hash":  func(x *EntryIdentity) { x.FileHash = "x" },
		"no columns": func(x *EntryIdentity) { x.Columns = nil },
		"unsorted":   func(x *EntryIdentity) { x.Columns = []string{"b", "a"} },
		"share":      func(x *EntryIdentity) { x.Share = 1.5 },
		"NaN share":  func(x *EntryIdentity) { x.Share = math.NaN() },
		"match":      func(x *EntryIdentity) { x.Match = "maybe" },
		"declared":   func(x *EntryIdentity) { x.DifferentPopulation[0].DatasetHash = "x" },
	} {
		x := good
		x.DifferentPopulation = slices.Clone(good.DifferentPopulation)
		mod(&x)
		if err := x.Validate(); err == nil || !strings.HasPrefix(err.Error(), "identity.") {
			t.Errorf("%s: err = %v, want an error naming the identity field", name, err)
		}
	}
}

// TestReserveByIdentityChecksEveryBudget is the regression test of a
// release matched to two ledger datasets (its records, and its file) whose
// second one refuses it: ReserveByIdentity checked only ε before writing,
// so a δ refusal on the second dataset left the first charged. Every
// matched dataset's ε and δ are checked before the first write: a refusal
// writes nothing (no entry, no sketch).
func TestReserveByIdentityChecksEveryBudget(t *testing.T) {
	for _, tc := range []struct {
		name          string
		budgetOfFile  [2]float64 // the file dataset's ε and δ budgets (0: default)
		eps, delta    float64    // of the release
		refusedDelta  bool
		refusedBudget bool // false: both charged
	}{
		{"δ refused on the second dataset", [2]float64{0, 1e-7}, 0.1, 5e-7, true, true},
		{"ε refused on the second dataset", [2]float64{0.15, 0}, 0.1, 5e-7, false, true},
		{"both fit", [2]float64{0, 0}, 0.1, 5e-7, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := identityOf(t, identityTestRows(50, 7))
			l := openTestLedger(t)
			// The records were released before (dataset X), and the file's
			// budget set by file (dataset Y, an older ledger's key).
			if _, err := l.Reserve(Entry{DatasetHash: id.Records, Epsilon: 0.1}, false); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Reserve(Entry{DatasetHash: id.FileHash, Epsilon: 0.1}, false); err != nil {
				t.Fatal(err)
			}
			if b := tc.budgetOfFile; b != [2]float64{} {
				if err := l.SetBudgets(id.FileHash, b[0], b[1]); err != nil {
					t.Fatal(err)
				}
			}
			before := len(l.Entries(""))
			out, f, err := ReserveByIdentity(l, id, Entry{Epsilon: tc.eps, Delta: tc.delta, Noise: "laplace-approx"}, false, false) // (ε, δ) only: no zCDP account admits it
			if f == nil || len(f.Charges) != 2 || f.Charges[0].DatasetHash != id.Records || f.Charges[1].DatasetHash != id.FileHash {
				t.Fatalf("matches %+v: want the records, then the file", f)
			}
			if !tc.refusedBudget {
				if err != nil || len(out) != 2 || len(l.Entries("")) != before+2 {
					t.Fatalf("ReserveByIdentity: %v, %d entries; want both charged", err, len(out))
				}
				return
			}
			var be *BudgetError
			if !errors.As(err, &be) || be.DatasetHash != id.FileHash || be.Delta != tc.refusedDelta {
				t.Fatalf("ReserveByIdentity: %v, want the file dataset's %s budget refusing", err, map[bool]string{false: "ε", true: "δ"}[tc.refusedDelta])
			}
			if err := l.Refresh(); err != nil {
				t.Fatal(err)
			}
			if len(out) != 0 || len(l.Entries("")) != before {
				t.Fatalf("a refused release wrote %d entries (%d returned): the first dataset was charged", len(l.Entries(""))-before, len(out))
			}
			if eps, delta := l.Spent(id.Records); eps != 0.1 || delta != 0 {
				t.Errorf("the records' dataset spent ε %g, δ %g after the refusal; want 0.1, 0", eps, delta)
			}
			if fi, err := os.Stat(SketchStorePath(l.Path())); err == nil && fi.Size() > 0 {
				t.Errorf("a refused release stored a sketch (%d bytes)", fi.Size()) // the store's lock creates it empty
			}
		})
	}
}
