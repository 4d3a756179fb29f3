package curator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// waitIdentity waits until the release dialog has shown which ledger
// dataset the records belong to (a background check).
func (f *curatorFixture) waitIdentity(fl *releaseFlow) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
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
	if !strings.Contains(finding, "100 % of these rows are also in ledger dataset "+key[:12]) || !checkShown {
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
