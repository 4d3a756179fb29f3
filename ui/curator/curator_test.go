package curator

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// curatorFixture is a curator window of a headless test app with its own
// config directory, ledger and key path, and channels fed by the window's
// test hooks.
type curatorFixture struct {
	t        *testing.T
	c        *curator
	dir      string
	datasets chan error
	releases chan curatorReleaseOutcome
	viewed   chan string
}

type curatorReleaseOutcome struct {
	res *release.Result
	err error
}

func newCuratorFixture(t *testing.T) *curatorFixture {
	t.Helper()
	a := test.NewTempApp(t)
	dir := t.TempDir()
	// Building the window lays out text while the preview worker, already
	// started, may run its callbacks on its own goroutine (the headless
	// driver's fyne.Do): hold widgets.Mu as every other widget action does.
	widgets.Mu.Lock()
	c, err := newCurator(a, Options{
		ConfigDir:  filepath.Join(dir, "config"),
		LedgerPath: filepath.Join(dir, "config", "ledger.jsonl"),
		KeyPath:    filepath.Join(dir, "config", "curator_ed25519"),
		Version:    "test",
	})
	widgets.Mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	f := &curatorFixture{t: t, c: c, dir: dir, datasets: make(chan error, 4),
		releases: make(chan curatorReleaseOutcome, 4), viewed: make(chan string, 4)}
	c.onDatasetReady = func(err error) { f.datasets <- err }
	c.onReleaseDone = func(res *release.Result, err error) { f.releases <- curatorReleaseOutcome{res, err} }
	c.openViewer = func(path string) { f.viewed <- path }
	// Resizing lays the window out, which the preview worker (woken by
	// the plots' new size) may be updating: under widgets.Mu like any widget
	// action.
	f.do(func() {
		c.win.Resize(fyne.NewSize(1280, 800))
		c.win.Show()
	})
	t.Cleanup(func() {
		f.waitIdle()
		c.shutdown()
	})
	return f
}

// do runs a widget action the way the UI goroutine would: serialised with
// the window's background callbacks (see widgets.Mu).
func (f *curatorFixture) do(fn func()) {
	widgets.Mu.Lock()
	defer widgets.Mu.Unlock()
	fn()
}

// waitDataset waits for a dataset load to finish.
func (f *curatorFixture) waitDataset() {
	f.t.Helper()
	select {
	case err := <-f.datasets:
		if err != nil {
			f.t.Fatalf("dataset: %v", err)
		}
	case <-time.After(120 * time.Second):
		f.t.Fatal("timed out waiting for the dataset")
	}
}

// waitIdle waits until every scheduled preview job has finished and
// returns the state of the preview panel.
func (f *curatorFixture) waitIdle() {
	f.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for !f.c.preview.idle() {
		if time.Now().After(deadline) {
			f.t.Fatal("timed out waiting for the preview")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// preview waits for the preview and returns its last result, failing the
// test if it ended in an error.
func (f *curatorFixture) preview() *preview.Result {
	f.t.Helper()
	f.waitIdle()
	p := f.c.preview
	if p.tradeoff.img.Image == nil {
		f.t.Fatalf("no tradeoff plot; message %q, stage %q", p.tradeoff.msg.Text, p.stage.Text)
	}
	if p.function.img.Image == nil {
		f.t.Fatalf("no function plot; stage %q", p.stage.Text)
	}
	return p.last
}

// curatorOnTop reports whether the dialog is what the curator sees: shown
// and inside the top overlay of the window (Fyne removes every overlay
// above a hidden popup, so "marked visible" is not enough).
func curatorOnTop(c *curator, d *widgets.Dialog) bool {
	if d == nil || !d.Visible() {
		return false
	}
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		return false
	}
	for _, o := range test.LaidOutObjects(top) {
		if o == d.Pop {
			return true
		}
	}
	return top == d.Pop
}

// curatorType replaces an entry's text by typing, as the curator would.
func curatorType(e interface {
	fyne.Focusable
	SetText(string)
}, s string) {
	e.SetText("")
	test.Type(e, s)
}

// demoKDEWithKey loads the KDE demo, waits for its preview and writes the
// curator key with passphrase pass.
func (f *curatorFixture) demoKDEWithKey(pass string) {
	f.t.Helper()
	f.do(func() { test.Tap(f.c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	if _, err := keys.WriteKeyPair(f.c.opts.KeyPath, []byte(pass), "curator", false); err != nil {
		f.t.Fatal(err)
	}
}

// waitRelease waits for a release to finish.
func (f *curatorFixture) waitRelease() curatorReleaseOutcome {
	f.t.Helper()
	select {
	case o := <-f.releases:
		return o
	case <-time.After(120 * time.Second):
		f.t.Fatal("timed out waiting for the release")
	}
	return curatorReleaseOutcome{}
}

// TestCuratorFlowKDE drives the whole flow through the real widgets: demo
// data → KDE → preview finishes → release (creating the key on first use)
// → the written file verifies with the curator's allowed_signers line and
// evaluates; the ledger holds the spend.
func TestCuratorFlowKDE(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	start := c.pages[stepStart].(*startPage)
	f.do(func() { test.Tap(start.demoKDE) })
	f.waitDataset()
	res := f.preview()
	if c.ds == nil || c.ds.Rows != 5000 {
		t.Fatalf("demo dataset not loaded: %+v", c.ds)
	}
	if res.Dim != 1 || res.Function == nil || res.Tradeoff == nil {
		t.Fatalf("preview for ℓ = 1: dim %d, function %v, tradeoff %v", res.Dim, res.Function != nil, res.Tradeoff != nil)
	}
	if len(res.Tradeoff.Curves) < 6 {
		t.Fatalf("tradeoff plot has %d curves, want ≥ 6 (h = 1…5 and the baseline)", len(res.Tradeoff.Curves))
	}
	if !(res.MarkerErr > 0) {
		t.Errorf("marker error %v, want > 0", res.MarkerErr)
	}
	lp := c.pages[stepLearner].(*learnerPage)
	if !strings.Contains(lp.sens.Text, "Sensitivity S(F) of Kernel density estimate =") || !strings.Contains(lp.sens.Text, "n = 5000") {
		t.Errorf("learner page shows %q, want the sensitivity", lp.sens.Text)
	}

	// Privacy: type ε = 0.5; the preview follows.
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { curatorType(pp.epsEntry, "0.5") })
	res = f.preview()
	if res.Epsilon != 0.5 || c.state.Epsilon != 0.5 {
		t.Fatalf("ε = %v in the preview, %v in the state; want 0.5", res.Epsilon, c.state.Epsilon)
	}
	if !strings.Contains(pp.reading.Text, "1.65×") {
		t.Errorf("plain-language reading %q does not give e^0.5 ≈ 1.65", pp.reading.Text)
	}

	// Release: the key is created on first use.
	out := filepath.Join(f.dir, "kde.synopsis")
	fl := openReleaseDialog(t, f, out)
	// A wrong passphrase spends nothing.
	f.do(func() { curatorType(fl.pass, "wrong") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	if o := f.waitRelease(); !errors.Is(o.err, keys.ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v, want ErrWrongPassphrase", o.err)
	}
	if spent, _, _, _ := c.budgetState(); spent != 0 {
		t.Fatalf("ε spent %v after a wrong passphrase, want 0", spent)
	}
	f.do(func() { curatorType(fl.pass, "correct horse") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	o := f.waitRelease()
	if o.err != nil {
		t.Fatalf("release: %v", o.err)
	}
	if o.res.Path != out || o.res.Spent != 0.5 || o.res.Total != 0.5 {
		t.Fatalf("release result %+v", o.res)
	}
	if !f.onTop(fl.result) {
		t.Fatal("no result dialog")
	}
	f.do(func() { test.Tap(fl.result.Button("Open in viewer")) })
	if got := <-f.viewed; got != out {
		t.Errorf("viewer opened %q, want %q", got, out)
	}

	// The written file verifies against the curator's allowed_signers line
	// and evaluates.
	trust, err := keys.LoadAllowedSigners(c.opts.KeyPath + keys.AllowedSignersSuffix)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(out, trust)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Trusted {
		t.Error("the release is not trusted by the curator's own allowed_signers line")
	}
	if v.File.Mechanism.Epsilon != 0.5 || v.File.Learner.Kind != string(learners.KindKDE) || v.File.Learner.N != 5000 {
		t.Errorf("synopsis metadata: ε %v, learner %q, n %d", v.File.Mechanism.Epsilon, v.File.Learner.Kind, v.File.Learner.N)
	}
	val, std, err := v.EvalData([]float64{0.75})
	if err != nil || math.IsNaN(val) || !(std > 0) {
		t.Fatalf("EvalData(0.75) = %v ± %v, %v", val, std, err)
	}
	if spent, _, budget, _ := c.budgetState(); spent != 0.5 || budget != ledger.DefaultBudget {
		t.Errorf("ledger: spent %v of %v, want 0.5 of %v", spent, budget, ledger.DefaultBudget)
	}
	if len(c.state.History) != 1 || c.state.History[0].Path != out || c.state.History[0].LedgerID == "" {
		t.Errorf("release history %+v", c.state.History)
	}
	if !strings.Contains(c.budget.Text, "ε spent 0.5 of 1") {
		t.Errorf("status bar %q does not show the spend", c.budget.Text)
	}
}

// TestCuratorBudgetRefusal: a release that would exceed the dataset's
// budget is refused; nothing is written and nothing is spent. Ticking the
// over-budget box releases and the ledger records it.
func TestCuratorBudgetRefusal(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.demoKDEWithKey("pw") // the key flow is tested above
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { curatorType(pp.total, "0.3") })
	f.do(func() { test.Tap(pp.setTotal) })
	if _, _, budget, _ := c.budgetState(); budget != 0.3 {
		t.Fatalf("budget %v after setting 0.3", budget)
	}
	f.waitIdle()
	rp := c.pages[stepRelease].(*releasePage)
	out := filepath.Join(f.dir, "over.synopsis")
	f.do(func() { curatorType(rp.out, out) })
	f.do(func() { test.Tap(rp.release) }) // ε = 1 > 0.3
	fl := c.release
	f.waitIdentity(fl)
	if fl.overBudge.Hidden {
		t.Error("the over-budget option is hidden although the release exceeds the budget")
	}
	f.do(func() { curatorType(fl.pass, "pw") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	o := f.waitRelease()
	var be *ledger.BudgetError
	if !errors.As(o.err, &be) {
		t.Fatalf("release over budget: %v, want a *ledger.BudgetError", o.err)
	}
	if !strings.Contains(fl.stage.Text, "Refused") {
		t.Errorf("dialog says %q, want the refusal", fl.stage.Text)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused release wrote %s (%v)", out, err)
	}
	if spent, _, _, _ := c.budgetState(); spent != 0 {
		t.Errorf("a refused release spent ε = %v", spent)
	}
	// Explicit override: recorded as over budget.
	f.do(func() { test.Tap(fl.overBudge) })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	o = f.waitRelease()
	if o.err != nil || !o.res.OverBudget {
		t.Fatalf("release with the override: %+v, %v", o.res, o.err)
	}
	l, _ := c.openLedger()
	es := l.Entries(c.ds.Hash)
	if len(es) == 0 || !es[len(es)-1].OverBudget {
		t.Errorf("ledger does not record the over-budget release: %+v", es)
	}
}

// TestCuratorAcknowledgementGate: "Suggest from data" is disabled until the
// curator acknowledges the leak; afterwards the bounds are the data's
// min/max, marked as from the data, and the acknowledgement reaches the
// request (and so the synopsis) and the project file. Unticking it makes
// the preview refuse the data-derived bounds.
func TestCuratorAcknowledgementGate(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	bp, ed := f.openBounds()
	if !ed.suggest.Disabled() {
		t.Fatal("Suggest from data is enabled before the acknowledgement")
	}
	test.Tap(ed.suggest) // a disabled button does nothing
	if c.state.Bounds["x"].fromData() || ed.lo.Text != "0" {
		t.Fatalf("bounds changed without the acknowledgement: %+v", c.state.Bounds["x"])
	}
	f.do(func() { test.Tap(bp.ack) })
	if !c.state.AckDataBounds || c.state.AckTime.IsZero() {
		t.Fatal("acknowledgement not recorded")
	}
	if ed.suggest.Disabled() {
		t.Fatal("Suggest from data still disabled after the acknowledgement")
	}
	f.do(func() { test.Tap(ed.suggest) })
	want, _ := c.ds.SuggestBounds("x")
	if got, _ := parseBounds(c.state.Bounds["x"]); got != want || !c.state.Bounds["x"].fromData() {
		t.Fatalf("suggested bounds %+v (from data %v), want %+v", got, c.state.Bounds["x"].fromData(), want)
	}
	req, err := c.state.request(c.ds)
	if err != nil || !req.AcknowledgedDataBounds || !req.BoundsFromData["x"] {
		t.Fatalf("request: %v, ack %v, from data %v", err, req.AcknowledgedDataBounds, req.BoundsFromData)
	}
	f.preview()
	w, err := c.state.toWorkspace(c.ds)
	if err != nil || len(w.Bounds) != 1 || !w.Bounds[0].FromData || w.Bounds[0].AcknowledgedAt == nil {
		t.Fatalf("workspace bounds %+v, %v", w.Bounds, err)
	}
	// Withdrawing the acknowledgement: release.Prepare refuses.
	f.do(func() { test.Tap(bp.ack) })
	f.waitIdle()
	if msg := c.preview.tradeoff.msg.Text; !strings.Contains(msg, "acknowledge") {
		t.Errorf("preview message %q, want a refusal of data-derived bounds", msg)
	}
}

// TestCuratorTwoClassPreview: the 2-D demo with an SVM gives heatmaps with
// the decision boundary.
func TestCuratorTwoClassPreview(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	res := f.preview()
	if res.Dim != 2 || res.Heatmaps == nil || !res.Heatmaps.Boundary || len(res.Heatmaps.Maps) != 2 {
		t.Fatalf("2-D preview: dim %d, heatmaps %+v", res.Dim, res.Heatmaps != nil)
	}
	if c.state.Learner != learners.KindSVM || c.state.Label != "label" {
		t.Fatalf("demo settings: learner %q, label %q", c.state.Learner, c.state.Label)
	}
}

// TestCuratorProjectRoundTrip saves and reopens a project, and reports a
// changed CSV.
func TestCuratorProjectRoundTrip(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	c.state.Epsilon, c.state.H, c.state.Noise, c.state.Delta = 0.25, 2, mechanism.NoiseGaussian, 1e-7
	c.state.setParamText("bandwidth", "0.04")
	path := filepath.Join(f.dir, "p.bernstein")
	if !c.writeProject(path, false) {
		t.Fatal("save failed")
	}
	if c.dirty || !strings.HasPrefix(c.win.Title(), "p — ") {
		t.Errorf("after save: dirty %v, title %q", c.dirty, c.win.Title())
	}
	c.changed()
	if !strings.HasPrefix(c.win.Title(), "p * — ") {
		t.Errorf("unsaved marker missing: %q", c.win.Title())
	}
	f.waitIdle()
	w, err := project.LoadWorkspace(path)
	if err != nil {
		t.Fatal(err)
	}
	s := stateFromWorkspace(w)
	if s.Epsilon != 0.25 || s.H != 2 || s.Noise != mechanism.NoiseGaussian || s.Delta != 1e-7 || s.paramText(learners.NewKDE().Spec().Params[0]) != "0.04" || s.Features[0] != "x" {
		t.Fatalf("reloaded state %+v", s)
	}
	if got := c.recentProjects(); len(got) == 0 || filepath.Base(got[0]) != "p.bernstein" {
		t.Errorf("recent projects %v", got)
	}

	// Reopen after the CSV changed: the window says so.
	f.do(func() { c.dirty = false })
	csv, err := os.ReadFile(c.state.CSVPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.state.CSVPath, append(csv, []byte("0.5\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.openProject(path) })
	f.waitDataset()
	f.waitIdle()
	if txt := curatorOverlayText(c); !strings.Contains(txt, "The CSV file changed") {
		t.Errorf("no changed-dataset message on reopening; overlay text %q", txt)
	}
	if c.ds.Rows != 5001 || c.state.Epsilon != 0.25 {
		t.Errorf("reopened project: %d rows, ε = %v", c.ds.Rows, c.state.Epsilon)
	}
}

// curatorOverlayText collects the text of the labels in the top overlay.
func curatorOverlayText(c *curator) string {
	top := c.win.Canvas().Overlays().Top()
	if top == nil {
		return ""
	}
	var b strings.Builder
	for _, o := range test.LaidOutObjects(top) {
		switch w := o.(type) {
		case *widget.Label:
			b.WriteString(w.Text + "\n")
		case *widget.RichText:
			b.WriteString(w.String() + "\n")
		}
	}
	return b.String()
}

// TestCuratorSlice3D: for ℓ = 3 the function plot is a 2-D slice with a
// slider for the third axis; moving it recomputes the slice.
func TestCuratorSlice3D(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	var b strings.Builder
	b.WriteString("a,b,c\n")
	for i := 0; i < 300; i++ {
		x := float64(i) / 300
		fmt.Fprintf(&b, "%g,%g,%g\n", x, math.Mod(x*7, 1), math.Mod(x*13, 1))
	}
	path := filepath.Join(f.dir, "three.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f.do(func() {
		c.state.Features = []string{"a", "b", "c"}
		for _, col := range c.state.Features {
			c.state.bound(col).Lo, c.state.bound(col).Hi = "0", "1"
		}
		c.state.KAuto, c.state.K = false, 6
		c.loadDataset(path, false)
	})
	f.waitDataset()
	res := f.preview()
	if res.Dim != 3 || res.Heatmaps == nil || !strings.Contains(res.Heatmaps.Maps[0].Title, "c = 0.5") {
		t.Fatalf("3-D preview: dim %d, heatmaps %v", res.Dim, res.Heatmaps != nil)
	}
	if len(c.preview.sliders.Objects) != 1 {
		t.Fatalf("%d slice sliders for ℓ = 3, want 1", len(c.preview.sliders.Objects))
	}
	var slider *widget.Slider
	for _, o := range test.LaidOutObjects(c.preview.sliders) {
		if s, ok := o.(*widget.Slider); ok {
			slider = s
		}
	}
	if slider == nil {
		t.Fatal("no slider widget")
	}
	f.do(func() {
		slider.SetValue(0.25)
		slider.OnChangeEnded(0.25)
	})
	res = f.preview()
	if !strings.Contains(res.Heatmaps.Maps[0].Title, "c = 0.25") {
		t.Errorf("slice title %q after moving the slider to 0.25", res.Heatmaps.Maps[0].Title)
	}
}

// TestCuratorOpenDemoCSV: opening the bundled demo CSV directly (make run:
// bernstein --open kde-mixture.csv) applies the demo's settings, so the
// preview is ready without further input; any other CSV gets default
// columns and waits for public bounds.
func TestCuratorOpenDemoCSV(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	paths, err := dataset.WriteDemoData(filepath.Join(f.dir, "demo"), false)
	if err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(paths[0], true) })
	f.waitDataset()
	res := f.preview()
	if res.Dim != 1 || c.state.KAuto || c.state.K != 20 {
		t.Fatalf("demo settings not applied: dim %d, k auto %v, k %d", res.Dim, c.state.KAuto, c.state.K)
	}
	other := filepath.Join(f.dir, "other.csv")
	if err := os.WriteFile(other, []byte("u,v\n1,2\n3,4\n5,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(other, true) })
	f.waitDataset()
	f.waitIdle()
	if got := c.state.Features; len(got) != 2 || got[0] != "u" {
		t.Errorf("default features %v, want [u v]", got)
	}
	if msg := c.preview.tradeoff.msg.Text; !strings.Contains(msg, "bounds of u") {
		t.Errorf("preview message %q, want a request for the bounds of u", msg)
	}
}
