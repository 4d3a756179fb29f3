package release

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// The walkthrough of 2026-11-24 (bug 1): the same records got a fresh
// budget when the classes were declared the other way round, when the GUI
// (file read before the classes were declared, header row 2) and the CLI
// (read with the classes) fingerprinted them, and when columns were
// renamed. testdata/identity_v1/cancer.csv holds 300 such records; its
// ledger files were written by the version the walkthrough used (main at
// b8af99a): an old-format ledger.

const walkCSV = "testdata/identity_v1/cancer.csv"

// walkRead is one way a file reaches Prepare.
type walkRead struct {
	name     string
	text     func(orig string) string // the file's bytes from the original's
	features []string
	label    string
	classes  dataset.Classes
	gui      bool // read as the curator window does (no columns, no classes)
	header   int  // header row (0: 1)
}

var (
	walkFeatures = []string{"mean radius", "mean texture"}
	walkClasses  = dataset.Classes{Negative: "benign", Positive: "malignant"}
	walkSwapped  = dataset.Classes{Negative: "malignant", Positive: "benign"}
)

func walkOriginal(s string) string { return s }

// walkReads are the variants of the walkthrough's reproductions a), b), c)
// and combinations; every one holds the same records.
func walkReads() []walkRead {
	renamed := func(s string) string {
		return strings.Replace(s, "mean radius,mean texture,diagnosis", "mean_radius,mean_texture,diagnosis", 1)
	}
	preamble := func(s string) string { return "300,2,malignant,benign\n" + s }
	reordered := func(s string) string {
		var b strings.Builder
		b.WriteString("dx,texture,radius\n")
		for _, line := range strings.Split(strings.TrimSpace(s), "\n")[1:] {
			f := strings.Split(line, ",")
			b.WriteString(f[2] + "," + f[1] + "," + f[0] + "\r\n")
		}
		return b.String()
	}
	return []walkRead{
		{name: "a) classes swapped, trailing blank line", text: func(s string) string { return s + "\n" }, features: walkFeatures, label: "diagnosis", classes: walkSwapped},
		{name: "b) GUI reading, preamble, header row 2", text: preamble, features: walkFeatures, label: "diagnosis", classes: walkClasses, gui: true, header: 2},
		{name: "b) CLI reading, preamble, header row 2", text: preamble, features: walkFeatures, label: "diagnosis", classes: walkClasses, header: 2},
		{name: "b) GUI reading, same file", text: walkOriginal, features: walkFeatures, label: "diagnosis", classes: walkClasses, gui: true},
		{name: "c) columns renamed", text: renamed, features: []string{"mean_radius", "mean_texture"}, label: "diagnosis", classes: walkClasses},
		{name: "c) all renamed and reordered, CRLF, classes swapped, GUI", text: reordered, features: []string{"radius", "texture"}, label: "dx", classes: walkSwapped, gui: true},
		{name: "features in the other order", text: walkOriginal, features: []string{"mean texture", "mean radius"}, label: "diagnosis", classes: walkClasses},
	}
}

// read writes the variant's file into dir and reads it as the CLI or the
// curator window would.
func (w walkRead) read(t *testing.T, dir, orig string) *dataset.Table {
	t.Helper()
	path := filepath.Join(dir, strings.NewReplacer(" ", "_", ",", "", ")", "").Replace(w.name)+".csv")
	must(t, os.WriteFile(path, []byte(w.text(orig)), 0o600))
	imp := dataset.ImportOptions{HeaderRow: max(1, w.header)}
	opts := dataset.CSVOptions{KeepInvalid: true, Import: imp}
	if !w.gui {
		opts.Columns = append([]string{w.label}, w.features...)
		opts.Classes = map[string]dataset.Classes{w.label: w.classes}
	}
	ds, err := dataset.ReadCSV(path, opts)
	must(t, err)
	return ds
}

// request is the walkthrough's naive Bayes release on the variant.
func (w walkRead) request(ds *dataset.Table, eps float64) Request {
	c := w.classes
	return Request{
		Dataset:  ds,
		Features: w.features,
		Label:    w.label,
		Classes:  &c,
		Bounds:   map[string]dataset.Bounds{w.features[0]: {Lo: 5, Hi: 30}, w.features[1]: {Lo: 5, Hi: 40}},
		Learner:  learners.KindNaiveBayes,
		Privacy:  mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, K: []int{1, 1}, H: 1},
		Title:    "identity walkthrough",
	}
}

func readWalkOriginal(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(walkCSV)
	must(t, err)
	return string(b)
}

// TestWalkthroughSameRecordsSameBudget: after a release of ε 0.6 on the
// original (CLI reading), each variant is charged to the same budget as the
// same records (match "records", which no declaration of a different
// population lifts) and refused: 0.6 + 0.6 > 1.
func TestWalkthroughSameRecordsSameBudget(t *testing.T) {
	orig := readWalkOriginal(t)
	base := walkRead{name: "original", text: walkOriginal, features: walkFeatures, label: "diagnosis", classes: walkClasses}
	for _, w := range walkReads() {
		t.Run(w.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			p, err := Prepare(context.Background(), base.request(base.read(t, e.dir, orig), 0.6), nil)
			must(t, err)
			first, err := p.Release(context.Background(), e.opt)
			must(t, err)
			key := first.Entry.DatasetHash

			q, err := Prepare(context.Background(), w.request(w.read(t, e.dir, orig), 0.6), nil)
			must(t, err)
			hashes, how, err := q.LedgerDatasets(e.ledger, true)
			must(t, err)
			if len(hashes) != 1 || hashes[0] != key || !strings.Contains(how, "already knows these records") {
				t.Errorf("finding %v (%s), want the records of %s", hashes, how, ledger.ShortHash(key))
			}
			opt := e.opt
			opt.Out = filepath.Join(e.dir, "second.synopsis")
			opt.DifferentPopulation = true
			_, err = q.Release(context.Background(), opt)
			var be *ledger.BudgetError
			if !errors.As(err, &be) || be.DatasetHash != key || be.Spent != 0.6 {
				t.Errorf("second release: err = %v, want the budget of %s refusing (spent 0.6)", err, ledger.ShortHash(key))
			}
		})
	}
}

// TestGUIAndCLIIdentityEqual: the release dialog's check (Identify, the
// curator window's table) and the release (Prepare, the CLI's table) compute
// one identity for the same request, with and without missing values.
func TestGUIAndCLIIdentityEqual(t *testing.T) {
	orig := readWalkOriginal(t)
	missing := strings.Replace(orig, "\n12.006,17.64,benign\n", "\nn/a,17.64,\n", 1)
	if missing == orig {
		t.Fatal("fixture changed: the row to blank is gone")
	}
	for _, tc := range []struct{ name, text string }{{"complete", orig}, {"missing values", missing}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var records []string
			for _, gui := range []bool{false, true} {
				w := walkRead{name: tc.name, text: func(string) string { return tc.text }, features: walkFeatures, label: "diagnosis", classes: walkClasses, gui: gui}
				req := w.request(w.read(t, dir, orig), 0.5)
				checked, err := Identify(req)
				must(t, err)
				p, err := Prepare(context.Background(), req, nil)
				must(t, err)
				charged, err := p.Identity()
				must(t, err)
				if checked.Records != charged.Records {
					t.Errorf("gui=%v: the check's identity %s is not the release's %s", gui, ledger.ShortHash(checked.Records), ledger.ShortHash(charged.Records))
				}
				records = append(records, charged.Records)
			}
			if records[0] != records[1] {
				t.Errorf("CLI identity %s, GUI identity %s: want one", ledger.ShortHash(records[0]), ledger.ShortHash(records[1]))
			}
		})
	}
}

// TestOldFormatLedgerStillCharges: the ledger and sketch store in
// testdata/identity_v1 were written by the walkthrough's version (version-1
// fingerprint 3fcf80e9…, ε 0.5 of 1, a version-1 sketch). The same records
// in other readings, and a near-duplicate, are still charged to that
// dataset after the change of fingerprint.
func TestOldFormatLedgerStillCharges(t *testing.T) {
	const oldKey = "3fcf80e9dbe7c08b408964f03528ca2509bd83320712da952d69592acf65fa47"
	orig := readWalkOriginal(t)
	oneChanged := strings.Replace(orig, "\n12.006,17.64,benign\n", "\n12.5,17.5,benign\n", 1)
	cases := []struct {
		w          walkRead
		match      ledger.MatchKind
		noSketches bool // the ledger alone (its version-1 fingerprint)
	}{
		{walkRead{name: "same file", text: walkOriginal, features: walkFeatures, label: "diagnosis", classes: walkClasses}, ledger.MatchRecords, false},
		{walkRead{name: "blank line, classes swapped", text: func(s string) string { return s + "\n" }, features: walkFeatures, label: "diagnosis", classes: walkSwapped}, ledger.MatchRecords, false},
		{walkRead{name: "ledger only, CRLF, classes swapped", text: func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }, features: walkFeatures, label: "diagnosis", classes: walkSwapped}, ledger.MatchRecords, true},
		{walkRead{name: "GUI, preamble", text: func(s string) string { return "x\n" + s }, features: walkFeatures, label: "diagnosis", classes: walkClasses, gui: true, header: 2}, ledger.MatchRecords, false},
		{walkRead{name: "one row changed, GUI, classes swapped", text: func(string) string { return oneChanged }, features: walkFeatures, label: "diagnosis", classes: walkSwapped, gui: true}, ledger.MatchNearDuplicate, false},
	}
	for _, tc := range cases {
		t.Run(tc.w.name, func(t *testing.T) {
			dir := t.TempDir()
			files := []string{"ledger.jsonl", "ledger.jsonl.tip", "ledger.jsonl.sketches", "ledger.jsonl.sketch-key"}
			if tc.noSketches {
				files = files[:2]
			}
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join("testdata/identity_v1", f))
				must(t, err)
				must(t, os.WriteFile(filepath.Join(dir, f), b, 0o600))
			}
			l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
			must(t, err)
			if spent, _ := l.Spent(oldKey); spent != 0.5 {
				t.Fatalf("fixture: spent %g on %s, want 0.5", spent, ledger.ShortHash(oldKey))
			}
			p, err := Prepare(context.Background(), tc.w.request(tc.w.read(t, dir, orig), 0.3), nil)
			must(t, err)
			e := newReleaseEnv(t)
			opt := e.opt
			opt.Ledger = l
			res, err := p.Release(context.Background(), opt)
			must(t, err)
			if m := res.Identity.Charges[0]; m.DatasetHash != oldKey || m.Match != tc.match {
				t.Fatalf("charged %+v, want %s (%s)", res.Identity.Charges, ledger.ShortHash(oldKey), tc.match)
			}
			if spent, _ := l.Spent(oldKey); spent != 0.8 {
				t.Errorf("spent %g on the old dataset, want 0.8", spent)
			}
		})
	}
}

// TestRenamedColumnsPartialOverlap: a release on one feature and the label,
// then one on a renamed copy with two features and the label: the stored
// sketch's columns are not in the copy by name, so the copy's used columns
// are projected onto every pair; one pair holds the same records.
func TestRenamedColumnsPartialOverlap(t *testing.T) {
	orig := readWalkOriginal(t)
	e := newReleaseEnv(t)
	base := walkRead{name: "original", text: walkOriginal, features: walkFeatures, label: "diagnosis", classes: walkClasses}
	req := base.request(base.read(t, e.dir, orig), 0.6)
	req.Features = []string{"mean radius"}
	req.Privacy.K = []int{1}
	p, err := Prepare(context.Background(), req, nil)
	must(t, err)
	first, err := p.Release(context.Background(), e.opt)
	must(t, err)
	renamed := walkRead{name: "renamed", text: func(s string) string {
		return strings.Replace(s, "mean radius,mean texture,diagnosis", "radius,texture,class", 1)
	}, features: []string{"radius", "texture"}, label: "class", classes: walkSwapped, gui: true}
	q, err := Prepare(context.Background(), renamed.request(renamed.read(t, e.dir, orig), 0.6), nil)
	must(t, err)
	opt := e.opt
	opt.Out = filepath.Join(e.dir, "second.synopsis")
	_, err = q.Release(context.Background(), opt)
	if be := (*ledger.BudgetError)(nil); !errors.As(err, &be) || be.DatasetHash != first.Entry.DatasetHash {
		t.Errorf("renamed superset of columns: err = %v, want the first release's budget refusing", err)
	}
}
