package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// identityRequest is a KDE release of ε on columns x (feature) and y (a
// second feature), so both columns are used.
func identityRequest(ds *dataset.Table, eps float64) Request {
	return Request{
		Dataset:  ds,
		Features: []string{"x", "y"},
		Bounds:   map[string]dataset.Bounds{"x": {Lo: -4, Hi: 4}, "y": {Lo: 0, Hi: 1}},
		Learner:  learners.KindKDE,
		Params:   learners.Values{"bandwidth": {0.2}},
		Privacy:  mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1},
		Title:    "identity test",
	}
}

func releaseDataset(t *testing.T, e *releaseEnv, ds *dataset.Table, eps float64, differentPopulation bool) (*Result, error) {
	t.Helper()
	p, err := Prepare(context.Background(), identityRequest(ds, eps), nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := e.opt
	opt.Out = filepath.Join(e.dir, fmt.Sprintf("release-%d.synopsis", len(e.ledger.Entries(""))))
	opt.DifferentPopulation = differentPopulation
	return p.Release(context.Background(), opt)
}

// TestReleaseVariantsShareBudget is the reproduction of issue 13 item 6:
// seven releases of ε 0.3 on the same records against a budget of 0.5 all
// succeeded. Now the first succeeds and every other variant is charged to
// the same budget and refused.
func TestReleaseVariantsShareBudget(t *testing.T) {
	variants := identityVariants(identityTestRows(400, 2))
	names := []string{"rows reordered", "one row added", "trailing blank line", "CRLF", "BOM", "extra unused column"}
	for _, first := range []string{"original", "one row added"} {
		t.Run("first "+first, func(t *testing.T) {
			e := newReleaseEnv(t)
			ds := parseTestCSV(t, first, variants[first])
			key := recordsKey(t, ds, "x", "y")
			if err := e.ledger.SetBudget(key, 0.5); err != nil {
				t.Fatal(err)
			}
			if _, err := releaseDataset(t, e, ds, 0.3, false); err != nil {
				t.Fatalf("first release: %v", err)
			}
			for _, name := range append([]string{"original"}, names...) {
				if name == first {
					continue
				}
				_, err := releaseDataset(t, e, parseTestCSV(t, name, variants[name]), 0.3, false)
				var be *ledger.BudgetError
				if !errors.As(err, &be) || be.DatasetHash != key || be.Spent != 0.3 {
					t.Errorf("%s: err = %v, want the budget of %s refusing (spent 0.3)", name, err, ledger.ShortHash(key))
				}
			}
			if eps, _ := e.ledger.Spent(key); eps != 0.3 {
				t.Errorf("spent %g, want 0.3", eps)
			}
			if n := len(e.ledger.Entries("")); n != 2 {
				t.Errorf("%d ledger entries, want 2 (budget, release)", n)
			}
		})
	}
}

func TestNearDuplicateOneRowChanged(t *testing.T) {
	rows := identityTestRows(1000, 3)
	e := newReleaseEnv(t)
	orig := parseTestCSV(t, "orig.csv", "x,y\n"+strings.Join(rows, "\n")+"\n")
	first, err := releaseDataset(t, e, orig, 0.3, false)
	if err != nil {
		t.Fatal(err)
	}
	key := first.Entry.DatasetHash
	if first.Identity.Charges[0].Match != ledger.MatchNew || key != recordsKey(t, orig, "x", "y") {
		t.Fatalf("first release matched %+v, want a new dataset keyed by its records", first.Identity.Charges)
	}
	changed := slices.Clone(rows)
	changed[500] = "0.5,0.5"
	ds := parseTestCSV(t, "changed.csv", "x,y\n"+strings.Join(changed, "\n")+"\n")
	id, err := ledger.IdentifyDataset(ds, []string{"x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.FindDataset(e.ledger, id, false)
	if err != nil {
		t.Fatal(err)
	}
	// True share 999/1000. The estimate is J·2000/(1+J)/1000 with J the share of
	// the 256 smallest union hashes found in both sketches: at most 2 of them
	// (the changed row, old and new) are not, so the estimate is ≥ 0.99.
	m := f.Charges[0]
	if m.Match != ledger.MatchNearDuplicate || m.DatasetHash != key || m.Share < 0.99 {
		t.Fatalf("finding %+v, want a near-duplicate of %s with share ≥ 0.99", f.Charges, ledger.ShortHash(key))
	}
	if d := f.Describe(); !strings.Contains(d, ledger.ShortHash(key)) || !strings.Contains(d, "different population") {
		t.Errorf("description %q does not name the dataset and the choice", d)
	}
	// Charged to the original's budget: 0.3 + 0.8 > 1 is refused.
	if _, err := releaseDataset(t, e, ds, 0.8, false); !errors.As(err, new(*ledger.BudgetError)) {
		t.Fatalf("near-duplicate release: err = %v, want the original's budget refusing", err)
	}
	res, err := releaseDataset(t, e, ds, 0.3, false)
	if err != nil {
		t.Fatal(err)
	}
	if x := res.Entry.Identity; res.Entry.DatasetHash != key || x == nil || x.Match != ledger.MatchNearDuplicate || x.Share < 0.99 || x.Records != id.Records {
		t.Errorf("entry %+v (identity %+v), want charged to %s as a near-duplicate", res.Entry, res.Entry.Identity, ledger.ShortHash(key))
	}
	// Another near-duplicate, declared a different population: a budget of
	// its own, the declaration recorded. (The first changed dataset cannot
	// be declared so any more: its records are now charged to the original.)
	changed[501] = "0.25,0.25"
	ds = parseTestCSV(t, "changed2.csv", "x,y\n"+strings.Join(changed, "\n")+"\n")
	if id, err = ledger.IdentifyDataset(ds, []string{"x", "y"}); err != nil {
		t.Fatal(err)
	}
	res, err = releaseDataset(t, e, ds, 0.8, true)
	if err != nil {
		t.Fatal(err)
	}
	x := res.Entry.Identity
	if res.Entry.DatasetHash != id.Records || x.Match != ledger.MatchNew || len(x.DifferentPopulation) != 1 ||
		x.DifferentPopulation[0].DatasetHash != key || x.DifferentPopulation[0].Share < 0.99 {
		t.Errorf("entry %+v (identity %+v), want its own dataset with the declaration recorded", res.Entry, x)
	}
	if eps, _ := e.ledger.Spent(key); eps != 0.6 {
		t.Errorf("original spent %g, want 0.6", eps)
	}
	// The declaration stands for the same records later (and for the
	// original's records): neither is charged to the other.
	again, err := releaseDataset(t, e, ds, 0.1, false)
	if err != nil {
		t.Fatal(err)
	}
	if f := again.Identity; len(again.Entries) != 1 || again.Entry.DatasetHash != id.Records || len(f.DifferentPopulation) != 1 {
		t.Errorf("release of the declared records again: entries %+v, finding %+v", again.Entries, f)
	}
	back, err := releaseDataset(t, e, orig, 0.1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Entries) != 1 || back.Entry.DatasetHash != key {
		t.Errorf("release of the original again: entries %+v, want one, on %s", back.Entries, ledger.ShortHash(key))
	}
	if eps, _ := e.ledger.Spent(id.Records); eps != 0.9 {
		t.Errorf("declared dataset spent %g, want 0.9", eps)
	}
	// The declaration was recorded: reopening the ledger keeps it.
	l, err := ledger.Open(e.ledger.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Entries(id.Records); len(got) != 2 || got[0].Identity == nil || len(got[0].Identity.DifferentPopulation) != 1 {
		t.Errorf("reopened ledger entries %+v", got)
	}
}

// TestIndependentSamplesNotNearDuplicate: two independent samples of the
// same continuous distribution share no row (values with 12 decimals; the
// chance that two of 2000 draws coincide is below 10⁻⁶, and a collision of
// the 64-bit keyed hashes below 10⁻¹²), so the estimated share is exactly
// 0 and the second is a new dataset. False-failure rate < 10⁻⁶.
func TestIndependentSamplesNotNearDuplicate(t *testing.T) {
	e := newReleaseEnv(t)
	a := parseTestCSV(t, "a.csv", "x,y\n"+strings.Join(identityTestRows(1000, 4), "\n")+"\n")
	b := parseTestCSV(t, "b.csv", "x,y\n"+strings.Join(identityTestRows(1000, 5), "\n")+"\n")
	if _, err := releaseDataset(t, e, a, 0.3, false); err != nil {
		t.Fatal(err)
	}
	res, err := releaseDataset(t, e, b, 0.9, false)
	if err != nil {
		t.Fatalf("independent sample refused: %v", err)
	}
	if f := res.Identity; len(f.Charges) != 1 || f.Charges[0].Match != ledger.MatchNew || len(f.NearDuplicates()) != 0 {
		t.Errorf("finding %+v, want a new dataset", f)
	}
}

func TestSketchStoreFilesAndDamage(t *testing.T) {
	e := newReleaseEnv(t)
	ds := parseTestCSV(t, "a.csv", "x,y\n"+strings.Join(identityTestRows(50, 7), "\n")+"\n")
	if _, err := releaseDataset(t, e, ds, 0.1, false); err != nil {
		t.Fatal(err)
	}
	keyPath, storePath := ledger.SketchKeyPath(e.ledger.Path()), ledger.SketchStorePath(e.ledger.Path())
	fi, err := os.Stat(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("sketch key mode %04o, want 0600", fi.Mode().Perm())
	}
	if fi, err := os.Stat(storePath); err != nil {
		t.Fatal(err)
	} else if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("sketch store mode %04o, want 0600", fi.Mode().Perm())
	}
	store, err := os.ReadFile(storePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(store), "\n"); n != 1 {
		t.Fatalf("sketch store has %d lines, want 1", n)
	}
	// The same records again: no second sketch line.
	if _, err := releaseDataset(t, e, ds, 0.1, false); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(storePath); string(again) != string(store) {
		t.Errorf("sketch store grew for the same records")
	}
	entries := len(e.ledger.Entries(""))

	refused := func(name string, wantSketchErr bool) {
		t.Helper()
		_, err := releaseDataset(t, e, ds, 0.1, false)
		var se *ledger.SketchStoreError
		if errors.As(err, &se) != wantSketchErr || (!wantSketchErr && err != nil) {
			t.Errorf("%s: err = %v (want sketch store error: %v)", name, err, wantSketchErr)
		}
		if !wantSketchErr {
			entries++
		}
		if got := len(e.ledger.Entries("")); got != entries {
			t.Errorf("%s: %d ledger entries, want %d", name, got, entries)
		}
	}
	// A torn last line (crash during the sketch append) is ignored, and
	// cut off by the next append (of new records).
	must(t, os.WriteFile(storePath, append(slices.Clone(store), `{"v":1,"dataset_ha`...), 0o600))
	refused("torn last line", false)
	other := parseTestCSV(t, "b.csv", "x,y\n"+strings.Join(identityTestRows(50, 17), "\n")+"\n")
	if _, err := releaseDataset(t, e, other, 0.1, false); err != nil {
		t.Fatal(err)
	}
	entries++
	got, _ := os.ReadFile(storePath)
	if lines := strings.Split(string(got), "\n"); len(lines) != 3 || lines[0]+"\n" != string(store) || !strings.HasPrefix(lines[1], "{") || !strings.HasSuffix(lines[1], "}") {
		t.Errorf("torn tail not cut off:\n%s", got)
	}
	store = got
	// Damage fails closed.
	must(t, os.WriteFile(storePath, append([]byte("{\"v\":1}\n"), store...), 0o600))
	refused("malformed line", true)
	must(t, os.WriteFile(storePath, store, 0o600))
	keyText, err := os.ReadFile(keyPath)
	must(t, err)
	if runtime.GOOS != "windows" {
		must(t, os.Chmod(keyPath, 0o644))
		refused("key readable by others", true)
		must(t, os.Chmod(keyPath, 0o600))
	}
	must(t, os.WriteFile(keyPath, []byte(strings.Repeat("ab", 32 /* the sketch key's bytes */)+"\n"), 0o600))
	refused("another key", true)
	must(t, os.WriteFile(keyPath, keyText[:10], 0o600))
	refused("damaged key", true)
	must(t, os.Remove(keyPath))
	refused("lost key", true)
	must(t, os.WriteFile(keyPath, keyText, 0o600))
	refused("restored", false)
}

// TestPreUpgradeFileBudgetStillCounts: entries keyed on the file hash (as
// written before records identified datasets) keep charging that file, and
// once a release links the file to its records, reformatted copies too.
func TestPreUpgradeFileBudgetStillCounts(t *testing.T) {
	e := newReleaseEnv(t)
	variants := identityVariants(identityTestRows(100, 8))
	ds := parseTestCSV(t, "orig.csv", variants["original"])
	old := ledger.Entry{DatasetHash: ds.Hash, Epsilon: 0.3, Learner: "kde"}
	if _, err := e.ledger.Reserve(old, false); err != nil {
		t.Fatal(err)
	}
	must(t, e.ledger.SetBudget(ds.Hash, 0.7))
	res, err := releaseDataset(t, e, ds, 0.3, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry.DatasetHash != ds.Hash || res.Entry.Identity.Match != ledger.MatchFile || res.Total != 0.6 || res.Budget != 0.7 {
		t.Fatalf("result %+v, want charged to the old file key (total 0.6 of 0.7)", res)
	}
	crlf := parseTestCSV(t, "crlf.csv", variants["CRLF"])
	_, err = releaseDataset(t, e, crlf, 0.3, false)
	if be := (*ledger.BudgetError)(nil); !errors.As(err, &be) || be.DatasetHash != ds.Hash {
		t.Fatalf("reformatted copy: err = %v, want the old file's budget refusing", err)
	}
	// Another column set of the same file: the same file budget.
	p, err := Prepare(context.Background(), Request{Dataset: ds, Features: []string{"y"}, Bounds: map[string]dataset.Bounds{"y": {Lo: 0, Hi: 1}},
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.2}},
		Privacy: mechanism.Params{Epsilon: 0.3, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1}}, nil)
	must(t, err)
	if _, err := p.Release(context.Background(), e.opt); !errors.As(err, new(*ledger.BudgetError)) {
		t.Errorf("other columns of the same file: err = %v, want the file's budget refusing", err)
	}
}

// TestColumnSubsetIsSameRecords: a release on (x, y) after one on x of a
// reformatted copy is charged to the first: its projection onto x has the
// same records.
func TestColumnSubsetIsSameRecords(t *testing.T) {
	e := newReleaseEnv(t)
	variants := identityVariants(identityTestRows(100, 9))
	ds := parseTestCSV(t, "orig.csv", variants["original"])
	p, err := Prepare(context.Background(), Request{Dataset: ds, Features: []string{"x"}, Bounds: map[string]dataset.Bounds{"x": {Lo: -4, Hi: 4}},
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.2}},
		Privacy: mechanism.Params{Epsilon: 0.6, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1}}, nil)
	must(t, err)
	first, err := p.Release(context.Background(), e.opt)
	must(t, err)
	_, err = releaseDataset(t, e, parseTestCSV(t, "bom.csv", variants["BOM"]), 0.6, false)
	if be := (*ledger.BudgetError)(nil); !errors.As(err, &be) || be.DatasetHash != first.Entry.DatasetHash {
		t.Errorf("superset of columns: err = %v, want the first release's budget refusing", err)
	}
}

// preparedKey is the record fingerprint of a prepared release: its ledger
// key when the dataset is new to the ledger.
func preparedKey(t testing.TB, p *Prepared) string {
	t.Helper()
	id, err := p.Identity()
	if err != nil {
		t.Fatal(err)
	}
	return id.Records
}

// TestConcurrentVariantsShareBudget: after a release of the original (ε 0.1,
// budget 0.45), fourteen releases of the seven variants (two each, ε 0.1)
// run at once; they are matched and charged one after the other under the
// sketch store's lock, so exactly three go through.
func TestConcurrentVariantsShareBudget(t *testing.T) {
	e := newReleaseEnv(t)
	variants := identityVariants(identityTestRows(300, 10))
	orig := parseTestCSV(t, "orig.csv", variants["original"])
	must(t, e.ledger.SetBudget(recordsKey(t, orig, "x", "y"), 0.45))
	// The original is released first so the sketch exists for "one row added".
	if _, err := releaseDataset(t, e, orig, 0.1, false); err != nil {
		t.Fatal(err)
	}
	var preps []*Prepared
	for name, text := range variants {
		for range 2 {
			p, err := Prepare(context.Background(), identityRequest(parseTestCSV(t, name, text), 0.1), nil)
			must(t, err)
			preps = append(preps, p)
		}
	}
	errs := make(chan error, len(preps))
	for i, p := range preps {
		opt := e.opt
		opt.Out = filepath.Join(e.dir, fmt.Sprintf("concurrent-%d.synopsis", i))
		go func() {
			_, err := p.Release(context.Background(), opt)
			errs <- err
		}()
	}
	ok := 0
	for range preps {
		err := <-errs
		switch {
		case err == nil:
			ok++
		case !errors.As(err, new(*ledger.BudgetError)):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 3 {
		t.Errorf("%d of %d concurrent releases went through, want 3 (0.1 + 3 × 0.1 ≤ 0.45)", ok, len(preps))
	}
	if eps, _ := e.ledger.Spent(recordsKey(t, orig, "x", "y")); math.Abs(eps-0.4) > 1e-12 {
		t.Errorf("spent %g, want 0.4", eps)
	}
}

// Helpers shared with project/ledger's identity tests (a copy: test files
// of another package cannot be imported).

// recordsKey is the record fingerprint of ds in columns: the ledger key of
// a dataset new to the ledger.
func recordsKey(t testing.TB, ds *dataset.Table, columns ...string) string {
	t.Helper()
	id, err := ledger.IdentifyDataset(ds, columns)
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
