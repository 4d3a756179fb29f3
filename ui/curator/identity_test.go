package curator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// waitIdentity waits until the release dialog has shown which ledger
// dataset the records belong to (a background check).
func (f *curatorFixture) waitIdentity(fl *releaseFlow) {
	f.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		var done bool
		f.do(func() { done = fl.identity.same != nil })
		if done {
			return
		}
		if time.Now().After(deadline) {
			var text string
			f.do(func() { text = fl.identity.finding.Text })
			f.t.Fatalf("the identity check did not finish; the dialog says %q", text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCuratorNearDuplicateDeclaration drives the release dialog on a copy
// of a released dataset with one row changed: the dialog names the ledger
// dataset and the share of rows in common, charges its budget by default,
// and offers the declaration "different population", which the ledger
// records.
func TestCuratorNearDuplicateDeclaration(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	paths, err := dataset.WriteDemoData(filepath.Join(f.dir, "demo"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keys.WriteKeyPair(c.opts.KeyPath, []byte("pw"), "curator", false); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(paths[0], true) })
	f.waitDataset()
	f.preview()
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { curatorType(pp.epsEntry, "0.4") })
	f.waitIdle()

	release := func(out string, declare bool) curatorReleaseOutcome {
		t.Helper()
		rp := c.pages[stepRelease].(*releasePage)
		f.do(func() { curatorType(rp.out, filepath.Join(f.dir, out)) })
		f.do(func() { test.Tap(rp.release) })
		fl := c.release
		f.waitIdentity(fl)
		if declare {
			f.do(func() { test.Tap(fl.identity.diffPop) })
		}
		f.do(func() { curatorType(fl.pass, "pw") })
		f.do(func() { test.Tap(fl.dlg.Button("Release")) })
		o := f.waitRelease()
		if o.err != nil {
			t.Fatalf("release %s: %v", out, o.err)
		}
		f.do(func() { test.Tap(fl.result.Button("Close")) })
		return o
	}
	first := release("first.synopsis", false)
	key := first.res.Entry.DatasetHash

	// The same records with one value changed.
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	lines[10] = "0.123456"
	changed := filepath.Join(f.dir, "changed.csv")
	if err := os.WriteFile(changed, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(changed, false) })
	f.waitDataset()
	f.waitIdle()

	rp := c.pages[stepRelease].(*releasePage)
	f.do(func() { curatorType(rp.out, filepath.Join(f.dir, "second.synopsis")) })
	f.do(func() { test.Tap(rp.release) })
	fl := c.release
	f.waitIdentity(fl)
	var finding string
	var checkShown bool
	f.do(func() { finding, checkShown = fl.identity.finding.Text, fl.identity.diffPop.Visible() })
	if !strings.Contains(finding, "100% of these rows are also in ledger dataset "+key[:12]) || !checkShown {
		t.Fatalf("dialog finding %q (declaration shown: %v), want the near-duplicate named with its share", finding, checkShown)
	}
	if spent, _, _, _ := c.budgetState(); spent != 0.4 {
		t.Errorf("status budget shows %v spent, want the original's 0.4", spent)
	}
	f.do(func() { test.Tap(fl.dlg.Button("Cancel")) })

	o := release("declared.synopsis", true)
	x := o.res.Entry.Identity
	if o.res.Entry.DatasetHash == key || x == nil || len(x.DifferentPopulation) != 1 || x.DifferentPopulation[0].DatasetHash != key {
		t.Errorf("declared release entry %+v (identity %+v), want a dataset of its own with the declaration", o.res.Entry, x)
	}
	if spent, _, _, _ := c.budgetState(); spent != 0.4 {
		t.Errorf("status budget shows %v spent after the declared release, want its own 0.4", spent)
	}
}

// TestCuratorIdentityIsTheCLIs: the release dialog's identity check
// (checkIdentity: release.Identify on the curator window's table, read
// before any class is declared, the text label as missing values) finds
// the same record fingerprint as a release of the same request from the
// table the CLI reads (its columns, the classes declared), whichever order
// the classes are declared in: one identity path (walkthrough of
// 2026-11-24, bug 1 b).
func TestCuratorIdentityIsTheCLIs(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	data, err := os.ReadFile("../../project/release/testdata/identity_v1/cancer.csv")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(f.dir, "cancer.csv")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(path, true) })
	f.waitDataset()
	for _, classes := range []dataset.Classes{{Negative: "benign", Positive: "malignant"}, {Negative: "malignant", Positive: "benign"}} {
		req := release.Request{
			Features: []string{"mean radius", "mean texture"}, Label: "diagnosis", Classes: &classes,
			Bounds:  map[string]dataset.Bounds{"mean radius": {Lo: 5, Hi: 30}, "mean texture": {Lo: 5, Hi: 40}},
			Learner: learners.KindNaiveBayes,
			Privacy: mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{1, 1}, H: 1},
			Title:   "identity",
		}
		fl := &releaseFlow{identity: newIdentityWidgets()}
		f.do(func() {
			req.Dataset = c.ds
			c.release = fl
			c.checkIdentity(fl, req, func(*ledger.IdentityFinding) {})
		})
		f.waitIdentity(fl)
		var checked string
		f.do(func() { checked = fl.identity.same.Identity.Records })

		req.Dataset, err = dataset.ReadCSV(path, dataset.CSVOptions{Columns: []string{"mean radius", "mean texture", "diagnosis"}, KeepInvalid: true,
			Classes: map[string]dataset.Classes{"diagnosis": classes}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := release.Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		id, err := p.Identity()
		if err != nil {
			t.Fatal(err)
		}
		if id.Records != checked {
			t.Errorf("classes %s: the dialog checked records %s, the CLI's release would charge %s", classes, ledger.ShortHash(checked), ledger.ShortHash(id.Records))
		}
		f.do(func() { c.release = nil })
	}
}
