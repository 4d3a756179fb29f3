package curator

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// openBounds loads the KDE demo and shows the bounds step.
func (f *curatorFixture) openBounds() (*boundsPage, *boundsEditor) {
	f.t.Helper()
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	f.do(func() { c.showStep(stepBounds) })
	bp := c.pages[stepBounds].(*boundsPage)
	ed := bp.editors["x"]
	if ed == nil {
		f.t.Fatal("no bounds editor for column x")
	}
	return bp, ed
}

// TestCuratorPartialEditKeepsDataEnd reproduces issue 13 item 4: after
// "Suggest from data", typing −1 as the lower end must keep the upper end
// (the data maximum) flagged as from the data, in the form, the request,
// the synopsis domain, the project file and the acknowledgement's list;
// the same number typed differently keeps the flag, a different number
// clears it.
func TestCuratorPartialEditKeepsDataEnd(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	bp, ed := f.openBounds()
	f.do(func() { test.Tap(bp.ack) })
	f.do(func() { test.Tap(ed.suggest) })
	max, _ := c.ds.SuggestBounds("x")
	f.do(func() { ed.lo.SetText("-1") })
	st := c.state.Bounds["x"]
	if st.LoEnd.source() != synopsis.EndTyped || st.HiEnd.source() != synopsis.EndFromData || st.Hi != fmtBound(max.Hi) {
		t.Fatalf("after typing the lower end: %+v", st)
	}
	req, err := c.state.request(c.ds)
	if err != nil {
		t.Fatal(err)
	}
	if pv := req.BoundsProvenance["x"]; pv.Lo != synopsis.EndTyped || pv.Hi != synopsis.EndFromData || !req.BoundsFromData["x"] {
		t.Fatalf("request provenance %+v, from data %v", pv, req.BoundsFromData)
	}
	p, err := release.Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := p.Domain.Features[0]; b.Lo != -1 || b.Hi != max.Hi || b.LoSource != synopsis.EndTyped || b.HiSource != synopsis.EndFromData || !b.FromData {
		t.Fatalf("synopsis domain %+v, want {Lo: −1 typed, Hi: %v from the data}", b, max.Hi)
	}
	w, err := c.state.toWorkspace(c.ds)
	if err != nil || w.Bounds[0].LoSource != synopsis.EndTyped || w.Bounds[0].HiSource != synopsis.EndFromData || !w.Bounds[0].FromData {
		t.Fatalf("project file bounds %+v, %v", w.Bounds, err)
	}
	if got := stateFromWorkspace(w).Bounds["x"]; got.LoEnd.source() != synopsis.EndTyped || got.HiEnd.source() != synopsis.EndFromData {
		t.Fatalf("reopened project: %+v", got)
	}
	if !strings.Contains(bp.ackEnds.Text, "x (upper end)") || !strings.Contains(ed.fromData.Text, "upper end from the data") {
		t.Errorf("acknowledgement %q, row %q: want the upper end of x named", bp.ackEnds.Text, ed.fromData.Text)
	}
	if s := releaseSummary(c.state, nil); !strings.Contains(s, "lower end typed; upper end from the data") {
		t.Errorf("release summary does not name the ends:\n%s", s)
	}
	// The same number, typed differently, is still the data's maximum.
	f.do(func() { ed.hi.SetText(st.Hi + "0") })
	if st.HiEnd.source() != synopsis.EndFromData {
		t.Fatalf("%q lost the data flag of %q", ed.hi.Text, st.HiEnd.Value)
	}
	// A different number is typed.
	f.do(func() { ed.hi.SetText("5") })
	if st.HiEnd.source() != synopsis.EndTyped || st.fromData() || bp.ackEnds.Text != "" {
		t.Fatalf("a typed upper end is still flagged: %+v, %q", st, bp.ackEnds.Text)
	}
}

// TestCuratorOldProjectBoundsFromData: a project file written before
// per-end provenance (one from_data flag) opens with both ends from the
// data.
func TestCuratorOldProjectBoundsFromData(t *testing.T) {
	w := &project.Workspace{Features: []string{"x"}, Bounds: []project.ColumnBounds{{Column: "x", Lo: 0, Hi: 1, FromData: true}}}
	got := stateFromWorkspace(w).Bounds["x"]
	if got.LoEnd.source() != synopsis.EndFromData || got.HiEnd.source() != synopsis.EndFromData || got.LoEnd.Value != "0" {
		t.Fatalf("old project bounds read as %+v", got)
	}
}

// TestCuratorClipCountsAfterConfirm: the private clip counts are hidden
// until the curator confirms the bounds (with the sentence why), and any
// edit hides them again.
func TestCuratorClipCountsAfterConfirm(t *testing.T) {
	f := newCuratorFixture(t)
	bp, ed := f.openBounds()
	f.do(func() { ed.hi.SetText("0.5") })
	if strings.Contains(ed.clipped.Text, "clipped") {
		t.Fatalf("clip counts shown before the confirmation: %q", ed.clipped.Text)
	}
	if !strings.Contains(clipCountsWhy, "ε does not cover") {
		t.Error("the page does not say why the counts wait")
	}
	f.preview()
	info := f.c.preview.info
	if strings.Contains(info.Text, "clipped to the bounds") || !strings.Contains(info.Text, "clip counts after you confirm") {
		t.Fatalf("preview numbers before the confirmation: %q", info.Text)
	}
	f.do(func() { test.Tap(bp.confirm) })
	if !strings.Contains(ed.clipped.Text, "would be clipped") {
		t.Fatalf("no clip counts after the confirmation: %q", ed.clipped.Text)
	}
	if !strings.Contains(info.Text, "clipped to the bounds") {
		t.Fatalf("preview numbers after the confirmation: %q", info.Text)
	}
	f.do(func() { ed.hi.SetText("0.6") })
	if bp.confirm.Checked || strings.Contains(ed.clipped.Text, "clipped") {
		t.Fatalf("an edit kept the confirmation (%v) or the counts %q", bp.confirm.Checked, ed.clipped.Text)
	}
}

// TestCuratorEstimatePrivately drives "Estimate privately…": the dialog
// states the ε (5 % of the budget) before spending, the estimate runs off
// the UI goroutine, the ledger holds one entry of kind bounds, and the
// bounds land in the form marked as estimated privately.
func TestCuratorEstimatePrivately(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	bp, ed := f.openBounds()
	f.do(func() { test.Tap(ed.estimate) })
	fl := bp.privateFlow
	if fl == nil {
		t.Fatal("no private-bounds dialog")
	}
	if fl.eps.Text != "0.05" || !strings.Contains(fl.forecast.Text, "Before you spend") {
		t.Fatalf("ε %q (want 0.05 = 5%% of the budget), forecast %q", fl.eps.Text, fl.forecast.Text)
	}
	f.do(func() {
		fl.lo.SetText("-10")
		fl.hi.SetText("10")
		fl.eps.SetText("0.2")
	})
	l, err := c.openLedger()
	if err != nil {
		t.Fatal(err)
	}
	if es := l.Entries(c.ds.Hash); len(es) != 0 {
		t.Fatalf("spent before the confirmation: %+v", es)
	}
	f.do(func() { test.Tap(fl.dialog.Button("Spend ε and estimate")) })
	f.waitFor(fl.done, "the private estimate")
	if fl.err != nil {
		t.Fatal(fl.err)
	}
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	var es []ledger.Entry // charged to the records' ledger dataset, which names the file
	for _, h := range ledger.DatasetsOfFile(l, c.ds.Hash) {
		es = append(es, l.Entries(h)...)
	}
	if len(es) != 1 || es[0].Kind != ledger.KindBounds || es[0].Epsilon != 0.2 {
		t.Fatalf("ledger %+v, want one bounds entry of ε 0.2", es)
	}
	st := c.state.Bounds["x"]
	if st.LoEnd.source() != synopsis.EndPrivate || st.HiEnd.source() != synopsis.EndPrivate || st.LoEnd.Estimate.Epsilon != 0.1 {
		t.Fatalf("bounds state %+v", st)
	}
	if ed.lo.Text != st.Lo || !strings.Contains(ed.fromData.Text, "estimated privately (ε 0.1") {
		t.Errorf("form %q, row %q", ed.lo.Text, ed.fromData.Text)
	}
	req, err := c.state.request(c.ds)
	if err != nil {
		t.Fatal(err)
	}
	if pv := req.BoundsProvenance["x"]; pv.Lo != synopsis.EndPrivate || pv.HiEstimate == nil || pv.HiEstimate.Quantile != 0.99 {
		t.Errorf("request provenance %+v", pv)
	}
}
