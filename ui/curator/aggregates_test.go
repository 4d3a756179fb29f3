package curator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// TestCuratorAggregatesElsewhere drives "Use aggregates computed
// elsewhere" by the keyboard (issue 20): from the data step, the dialog
// shows the query of the project's settings for the chosen dialect (the
// text release.AggregateQuery writes) and copies it; a missing table or n
// keeps the dialog open with the rule; with a table, a declared n and
// ledger dataset, the release goes through release.Aggregates: the release
// dialog names the declared dataset and the synopsis records the dialect,
// the declared n and the SHA-256 of exactly the query shown.
func TestCuratorAggregatesElsewhere(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.demoKDEWithKey("test passphrase")
	f.do(func() { c.showStep(stepData) })
	dp := c.pages[stepData].(*dataPage)
	f.tabTo(dp.aggregates.open, "the Use aggregates button")
	f.pressKey(fyne.KeySpace)
	form := c.aggForm
	if form == nil || !f.onTop(form.dlg) {
		t.Fatal("no aggregates dialog")
	}
	f.do(func() { form.dialect.SetSelected(string(aggregate.Postgres)) })
	var want string
	f.do(func() {
		req, err := c.state.request(c.ds)
		if err != nil {
			t.Fatal(err)
		}
		if want, err = release.AggregateQuery(req, aggregate.Postgres, "survey", aggregate.DefaultBins); err != nil {
			t.Fatal(err)
		}
	})
	f.tabTo(form.table, "the table name")
	f.selectAll()
	f.typeKeys("survey")
	var shown string
	f.do(func() { shown = form.query.Text })
	if shown != want || !strings.Contains(shown, `FROM "survey"`) {
		t.Fatalf("the dialog shows:\n%s\nwant release.AggregateQuery's text:\n%s", shown, want)
	}
	f.tabTo(form.copyQuery, "Copy query")
	f.pressKey(fyne.KeySpace)
	if got := c.app.Clipboard().Content(); got != want {
		t.Errorf("copied %q, want the query", got)
	}

	// The curator's engine returned this table: n = 10 records in two cells.
	table := filepath.Join(f.dir, "cells.csv")
	if err := os.WriteFile(table, []byte("bin_1,records\n0,7\n4095,3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	use := form.dlg.Button("Use this table")
	f.do(func() { test.Tap(use) })
	var msg string
	f.do(func() { msg = form.msg.Text })
	if !f.onTop(form.dlg) || !strings.Contains(msg, "result table") {
		t.Fatalf("no table: dialog shown %v, message %q", f.onTop(form.dlg), msg)
	}
	f.tabTo(form.path, "the result table")
	f.typeKeys(table)
	f.tabTo(form.n, "n")
	f.typeKeys("0")
	f.do(func() { test.Tap(use) })
	f.do(func() { msg = form.msg.Text })
	if !strings.Contains(msg, "records n") {
		t.Errorf("n = 0: message %q", msg)
	}
	f.tabTo(form.n, "n")
	f.selectAll()
	f.typeKeys("10")
	f.tabTo(form.dataID, "the ledger dataset")
	f.typeKeys("survey 2026")
	f.pressKey(fyne.KeyReturn) // Enter runs the default button, "Use this table"
	if f.onTop(form.dlg) {
		t.Fatalf("the dialog stays open: %q", form.msg.Text)
	}
	if a := c.state.Aggregates; a == nil || a.N != 10 || a.Dataset != "survey 2026" || a.Dialect != aggregate.Postgres || a.Table != "survey" {
		t.Fatalf("aggregates in use: %+v", a)
	}
	if dp.aggregates.status.Hidden || !strings.Contains(dp.aggregates.status.Text, table) {
		t.Errorf("the data step does not say the table is in use: %q", dp.aggregates.status.Text)
	}

	rp := c.pages[stepRelease].(*releasePage)
	out := filepath.Join(f.dir, "from-aggregates.synopsis")
	f.do(func() { curatorType(rp.out, out) })
	f.do(func() { c.startRelease() })
	fl := c.release
	if fl == nil {
		t.Fatal("no release dialog")
	}
	f.waitIdentity(fl)
	if !strings.Contains(fl.identity.finding.Text, `"survey 2026"`) {
		t.Errorf("the release dialog does not name the declared dataset: %q", fl.identity.finding.Text)
	}
	f.do(func() { curatorType(fl.pass, "test passphrase") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	o := f.waitRelease()
	if o.err != nil {
		t.Fatalf("release from aggregates: %v", o.err)
	}
	s := o.res.Synopsis
	if s.Source == nil || s.Source.Dialect != "postgres" || s.Source.QuerySHA256 != release.QueryHash(want) || s.Learner.N != 10 {
		t.Errorf("synopsis source %+v, n %d; want postgres, the shown query's hash %s, n 10", s.Source, s.Learner.N, release.QueryHash(want))
	}
	if e := o.res.Entry; e.DatasetHash != release.NamedDataset("survey 2026") {
		t.Errorf("charged to %s, want the declared dataset", e.DatasetHash)
	}
}
