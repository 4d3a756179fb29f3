package viewer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/uitest"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// TestViewerQueryMarkFollowsRule: the query field's mark follows the rule
// of the message under it: `abc`, `35,5` and the out-of-bounds `70` never
// show ✓, while typed or after the field lost focus, and a valid value
// does (issue 18 item 2).
func TestViewerQueryMarkFollowsRule(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 1)
	path := viewerFixtureKDE.write(t, dir, signer) // length in [0, 10] cm
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	v.win.Resize(fyne.NewSize(1100, 760))
	vdo(func() { v.tabs.SelectIndex(1) })
	e := v.query.entries[0]
	c := v.win.Canvas()
	for _, bad := range []string{"abc", "35,5", "70"} {
		c.Focus(e)
		setEntry(e, bad)
		if m := uitest.EntryMark(e); m == "ok" {
			t.Errorf("%q while typed: the field shows ✓", bad)
		}
		if !strings.Contains(v.query.status.Text, "1 of 1 inputs invalid") {
			t.Errorf("%q: status %q", bad, v.query.status.Text)
		}
		c.Unfocus()
		if m := uitest.EntryMark(e); m != "error" {
			t.Errorf("%q after leaving the field: mark %q, want ✗", bad, m)
		}
	}
	c.Focus(e)
	setEntry(e, "7.5")
	c.Unfocus()
	if m := uitest.EntryMark(e); m != "ok" || v.query.last == nil {
		t.Errorf("7.5: mark %q, result %v; want ✓ and a value", m, v.query.last)
	}
}

// TestViewerBatchInvalidRowsByLine: a batch file with invalid rows names
// them by their line in the file, in the very words of `bernstein eval`,
// points to an option that exists (the "Skip invalid rows" box), and with
// the box ticked evaluates the other rows, says how many rows it skipped
// and which, and numbers the results by file line (issue 18 item 3).
func TestViewerBatchInvalidRowsByLine(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 2)
	path := viewerFixtureSVM.write(t, dir, signer) // x1 in [0, 1], x2 in [-5, 5] kg
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	q := filepath.Join(dir, "q.csv")
	if err := os.WriteFile(q, []byte("x1,x2\n0.5,abc\n0.5,6\n\n0.2,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The CLI's message for the same file (eval --points).
	_, evalErr := dataset.EvalPointsCSV(context.Background(), v.doc.Verified, q, &bytes.Buffer{}, dataset.EvalPointsOptions{})
	var bad *dataset.InvalidPointsError
	if !errors.As(evalErr, &bad) {
		t.Fatalf("eval: %v", evalErr)
	}
	v.batch.load(q)
	v.wait()
	info := v.batch.info.Text
	want := q + `:2:2 (column "x2"): "abc" is not a number; 2 rows cannot be evaluated (lines 2, 3)`
	if !strings.Contains(info, want) || !strings.Contains(info, evalErr.Error()) || !v.batch.evalBt.Disabled() {
		t.Errorf("info %q; want it to contain eval's message %q", info, evalErr.Error())
	}
	if !strings.Contains(info, `tick "Skip invalid rows"`) || strings.Contains(info, "drop") || strings.Contains(info, "fill value") {
		t.Errorf("info %q does not point to the skip box, or points to an option the viewer lacks", info)
	}
	if v.batch.skip.Text != "Skip invalid rows" {
		t.Fatalf("the skip box is %q", v.batch.skip.Text)
	}
	vdo(func() { test.Tap(v.batch.skip) })
	v.wait()
	if info := v.batch.info.Text; !strings.Contains(info, "1 rows to evaluate; skipped 2 invalid rows (lines 2, 3); first: ") || v.batch.evalBt.Disabled() {
		t.Fatalf("with skipping: info %q, evaluate enabled %v", info, !v.batch.evalBt.Disabled())
	}
	vdo(func() { test.Tap(v.batch.evalBt) })
	v.wait()
	if b := v.batch.result; b == nil || b.Len() != 1 || b.X[0] != 0.2 || b.X[1] != 1 {
		t.Fatalf("result %+v (status %q)", v.batch.result, v.batch.status.Text)
	}
	if !strings.Contains(v.batch.status.Text, "skipped 2 invalid rows (lines 2, 3)") {
		t.Errorf("status %q does not report the skipped rows", v.batch.status.Text)
	}
	header := widget.NewLabel("")
	v.batch.results.UpdateHeader(widget.TableCellID{Row: 0, Col: -1}, header)
	if header.Text != "5" {
		t.Errorf("the result row is numbered %q, want its file line 5", header.Text)
	}
}

// viewerFixtureRidgeOut is a 1-D regression whose released values leave
// the public output range: the label y is bounded to [100, 300] €, and the
// lattice value −1.2 at x = 0 is y = 80 € (a Bernstein polynomial takes its
// end values at the ends).
var viewerFixtureRidgeOut = viewerFixture{
	name: "ridge-out", learner: learners.KindRidge,
	features: []synopsis.Bound{{Name: "x", Lo: 0, Hi: 1}},
	label:    &synopsis.Bound{Name: "y", Unit: "€", Lo: 100, Hi: 300},
	k:        []int{4}, h: 1, noise: mechanism.NoiseLaplace,
	f: func(y []float64) float64 { return 2*y[0] - 1.2 },
}

// TestViewerClampOption: a value outside the public output range is
// shown with a word that noise can carry it there; the marked display
// option clamps it in the query, the batch results (the export says which
// values were clamped) and the plot; unticked, the released values are back
// (issue 18 item 10).
func TestViewerClampOption(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 3)
	path := viewerFixtureRidgeOut.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	if v.doc.Release.Range != [2]float64{100, 300} {
		t.Fatalf("output range %v", v.doc.Release.Range)
	}
	vdo(func() { setEntry(v.query.entries[0], "0") })
	if got := v.query.value.Text; got != "80" {
		t.Fatalf("value at 0: %q, want 80", got)
	}
	if s := v.query.status.Text; !strings.Contains(s, "outside the public output range [100, 300] €") || !strings.Contains(s, "noise can carry") {
		t.Errorf("status %q does not say the value is outside the range", s)
	}
	q := filepath.Join(dir, "q.csv")
	if err := os.WriteFile(q, []byte("x\n0\n0.5\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.batch.load(q)
	v.wait()
	vdo(func() { test.Tap(v.batch.evalBt) })
	v.wait()
	if !strings.Contains(v.batch.status.Text, "1 of 3 values lie outside the public output range [100, 300] €") {
		t.Errorf("batch status %q", v.batch.status.Text)
	}
	vdo(func() { v.tabs.SelectIndex(3) })
	v.wait()
	if c := v.plot.fig.(*plotting.ViewerCurve); c.Value[0] != 80 || !strings.Contains(v.plot.status.Text, "outside the public output range") {
		t.Errorf("plot: first value %v, status %q", c.Value[0], v.plot.status.Text)
	}
	for i, tab := range []fyne.CanvasObject{v.query.content, v.batch.content, v.plot.content} {
		vdo(func() { v.tabs.SelectIndex(i + 1) })
		if w := tab.MinSize().Width; w > 900 { // the notes wrap: the window never grows with them
			t.Errorf("tab %d needs %v px", i+1, w)
		}
	}

	if !strings.Contains(v.clampCheck.Text, viewerClampLabel) {
		t.Fatalf("the clamp option reads %q", v.clampCheck.Text)
	}
	vdo(func() { tapCentre(v.clampCheck) })
	v.wait()
	if got := v.query.value.Text; got != "100 (clamped; released 80)" {
		t.Errorf("clamped query value %q", got)
	}
	if b := v.batch.result; b.Value[0] != 100 || !b.Clamped[0] || b.Clamped[1] || v.batch.raw.Value[0] != 80 {
		t.Errorf("clamped batch %v %v (released %v)", b.Value, b.Clamped, v.batch.raw.Value)
	}
	out := filepath.Join(dir, "out.csv")
	v.batch.export(out)
	v.wait()
	recs := readCSVFile(t, out)
	if strings.Join(recs[0], ",") != "x,value,noise_std,clamped" || recs[1][1] != "100" || recs[1][3] != "true" || recs[2][3] != "false" {
		t.Errorf("clamped export %v", recs)
	}
	c := v.plot.fig.(*plotting.ViewerCurve)
	if c.Value[0] != 100 || !strings.Contains(c.Title, "clamped to [100, 300] €") {
		t.Errorf("clamped plot: first value %v, title %q", c.Value[0], c.Title)
	}
	for _, y := range c.Value {
		if y < 100 || y > 300 {
			t.Fatalf("clamped plot value %v outside [100, 300]", y)
		}
	}
	vdo(func() { tapCentre(v.clampCheck) })
	v.wait()
	if got := v.query.value.Text; got != "80" || v.batch.result.Value[0] != 80 || v.batch.result.Clamped != nil {
		t.Errorf("unclamped again: query %q, batch %v", got, v.batch.result.Value)
	}
}

// TestViewerRegressionNamesLabel: a regression release's value is named
// after the label column — in the plot's axis, title and colour scale and
// in the query tab — not "regression" (issue 18 item 11).
func TestViewerRegressionNamesLabel(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 4)
	for _, fx := range []viewerFixture{viewerFixtureRidgeOut, viewerFixtureRidge} {
		path := fx.write(t, dir, signer)
		v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
		vdo(func() { v.tabs.SelectIndex(3) })
		v.wait()
		var names []string
		switch f := v.plot.fig.(type) {
		case *plotting.ViewerCurve:
			names = []string{f.YLabel, f.Title}
			if f.YLabel != "y (€)" {
				t.Errorf("%s: axis %q, want y (€)", fx.name, f.YLabel)
			}
		case *plotting.ViewerHeatmap:
			names = []string{f.ColourLabel, f.Title}
			if f.ColourLabel != "y" {
				t.Errorf("%s: colour scale %q, want y", fx.name, f.ColourLabel)
			}
		}
		texts := widgetTexts(t, v.query.content)
		names = append(names, texts)
		for _, n := range names {
			if strings.Contains(n, "regression") {
				t.Errorf("%s: %q says regression", fx.name, n)
			}
		}
		if !strings.Contains(texts, "y (€)") {
			t.Errorf("%s: the query tab does not name the label:\n%s", fx.name, texts)
		}
	}
}

// tapCentre taps a widget in its middle, as a user clicks it (a check
// taller than its box ignores taps beside the box).
func tapCentre(o fyne.Tappable) {
	w := o.(fyne.CanvasObject)
	test.TapAt(o, fyne.NewPos(8, w.Size().Height/2))
}

// vdo runs a widget action serialised with the viewer's background
// callbacks (widgets.Mu), as the UI goroutine would.
func vdo(f func()) {
	widgets.Mu.Lock()
	defer widgets.Mu.Unlock()
	f()
}
