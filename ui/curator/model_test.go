package curator

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// newIrisFixture is a curator with an iris-shaped table open at step.
func newIrisFixture(t *testing.T, step string) *curatorFixture {
	t.Helper()
	f := newCuratorFixture(t)
	f.loadCSV(irisLike(t, f.dir))
	f.do(func() { f.c.showStep(step) })
	return f
}

// loadCSV opens path as a new dataset (File ▸ Open) and waits for it.
func (f *curatorFixture) loadCSV(path string) {
	f.t.Helper()
	f.do(func() { f.c.openPath(path) })
	f.waitDataset()
	f.waitIdle()
}

// typeBounds types public bounds for every used column.
func (f *curatorFixture) typeBounds(lo, hi string) {
	f.do(func() { f.c.showStep(stepBounds) })
	bp := f.c.pages[stepBounds].(*boundsPage)
	for _, col := range f.c.state.usedColumns() {
		ed := bp.editors[col]
		f.do(func() { curatorType(ed.lo, lo) })
		f.do(func() { curatorType(ed.hi, hi) })
	}
	f.waitIdle()
}

// TestCuratorInvalidPrivacyBlocks (issue 18 item 1): ε = 0, −1 or nothing
// typed after a valid 1e9 is kept as typed, marked with its rule, and
// blocks the preview, the summary and the release — nothing shows or uses
// ε = 1e9 any more; the same for a manual k = 0 and δ = 2.
func TestCuratorInvalidPrivacyBlocks(t *testing.T) {
	f := newIrisFixture(t, stepBounds)
	c := f.c
	f.typeBounds("0", "10")
	f.preview()
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	rp := c.pages[stepRelease].(*releasePage)
	// ε = 1e9 is read at once, under the UI lock the preview worker also
	// takes: its preview (the largest automatic lattice) need not finish,
	// the next value cancels it.
	var eps1e9 float64
	var disabled1e9 bool
	f.do(func() {
		curatorType(pp.epsEntry, "1e9")
		eps1e9, disabled1e9 = c.state.Epsilon, rp.release.Disabled()
	})
	if eps1e9 != 1e9 || disabled1e9 {
		t.Fatalf("ε = 1e9: state %v, release disabled %v", eps1e9, disabled1e9)
	}
	for _, bad := range []string{"0", "-1", ""} {
		f.typeIn(pp.epsEntry, bad)
		f.waitIdle()
		if pp.epsEntry.Text != bad {
			t.Errorf("ε field shows %q, want %q as typed", pp.epsEntry.Text, bad)
		}
		if m := f.mark(pp.epsEntry); m != "error" {
			t.Errorf("ε = %q: mark %q, want error", bad, m)
		}
		if pp.epsErr.Hidden || !strings.Contains(pp.epsErr.Text, "Not used") {
			t.Errorf("ε = %q: message %q", bad, pp.epsErr.Text)
		}
		for what, text := range map[string]string{"reading": pp.reading.Text, "summary": rp.summary.Text,
			"preview": c.preview.tradeoff.msg.Text + c.preview.info.Text} {
			if strings.Contains(text, "1e+09") || strings.Contains(text, "ε = 1000000000") {
				t.Errorf("ε = %q: the %s still shows the last valid ε: %q", bad, what, text)
			}
		}
		if !strings.Contains(rp.summary.Text, "ε INVALID") {
			t.Errorf("ε = %q: summary %q does not say ε is invalid", bad, rp.summary.Text)
		}
		if !rp.release.Disabled() || !strings.Contains(rp.notReady.Text, "ε") || rp.goToStep != stepPrivacy {
			t.Errorf("ε = %q: release disabled %v, reason %q, link %q", bad, rp.release.Disabled(), rp.notReady.Text, rp.goToStep)
		}
		if _, err := c.state.request(c.ds); err == nil {
			t.Errorf("ε = %q: the release request is built", bad)
		}
		if !strings.Contains(c.preview.tradeoff.msg.Text, "ε") {
			t.Errorf("ε = %q: preview message %q does not name ε", bad, c.preview.tradeoff.msg.Text)
		}
	}
	// Ctrl+R says why and goes to the step.
	f.shortcut(fyne.KeyR)
	if txt := f.overlay(); !strings.Contains(txt, "Not ready to release") || !strings.Contains(txt, "Privacy step") {
		t.Errorf("Ctrl+R with an invalid ε: %q", txt)
	}
	f.pressKey(fyne.KeyEscape)
	f.do(func() { curatorType(pp.epsEntry, "0.5") })
	f.waitIdle() // the preview worker updates the labels read below
	if _, err := c.state.request(c.ds); err != nil || rp.release.Disabled() {
		t.Fatalf("ε = 0.5: %v, release disabled %v", err, rp.release.Disabled())
	}

	// Manual k = 0.
	f.do(func() { pp.kMode.SetSelected(kManText) })
	f.waitIdle() // the preview worker updates the labels read below
	f.do(func() { curatorType(pp.kEntry, "0") })
	f.waitIdle() // the preview worker updates the labels read below
	if !strings.Contains(pp.kInUse.Text, "none") || strings.Contains(pp.kInUse.Text, "20") {
		t.Errorf("k = 0: %q", pp.kInUse.Text)
	}
	if !rp.release.Disabled() {
		t.Error("k = 0 does not block the release")
	}
	f.do(func() { curatorType(pp.kEntry, "7") })
	f.waitIdle() // the preview worker updates the labels read below
	if !strings.Contains(pp.kInUse.Text, "7") || rp.release.Disabled() {
		t.Errorf("k = 7: %q, release disabled %v", pp.kInUse.Text, rp.release.Disabled())
	}
	// δ = 2 under Gaussian noise.
	f.do(func() { pp.noise.SetSelected(noiseChoices[2].label) })
	f.waitIdle() // the preview worker updates the labels read below
	f.do(func() { curatorType(pp.delta, "2") })
	f.waitIdle() // the preview worker updates the labels read below
	if !rp.release.Disabled() || !strings.Contains(rp.summary.Text, "δ INVALID") {
		t.Errorf("δ = 2: release disabled %v, summary %q", rp.release.Disabled(), rp.summary.Text)
	}
	// The invalid δ does not matter under pure Laplace noise.
	f.do(func() { pp.noise.SetSelected(noiseChoices[0].label) })
	f.waitIdle() // the preview worker updates the labels read below
	if rp.release.Disabled() {
		t.Errorf("δ is not used by pure Laplace noise, yet the release is blocked: %q", rp.notReady.Text)
	}
	f.waitIdle()
}

// TestCuratorEpsilonOverBudgetWarns: ε above the budget left is said next
// to ε as it is typed.
func TestCuratorEpsilonOverBudgetWarns(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.waitIdle()
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { curatorType(pp.epsEntry, "0.5") })
	if !pp.epsErr.Hidden {
		t.Errorf("ε = 0.5 of a budget of 1: warning %q", pp.epsErr.Text)
	}
	f.do(func() { curatorType(pp.epsEntry, "3") })
	if pp.epsErr.Hidden || !strings.Contains(pp.epsErr.Text, "exceeds the budget left") {
		t.Errorf("ε = 3 of a budget of 1: warning %q (hidden %v)", pp.epsErr.Text, pp.epsErr.Hidden)
	}
	f.waitIdle()
}

// TestCuratorBoundsMarkFollowsMessage (issue 18 item 2): a bounds field is
// marked by the rule its row's message states, whatever the other field
// holds.
func TestCuratorBoundsMarkFollowsMessage(t *testing.T) {
	f := newIrisFixture(t, stepBounds)
	ed := f.c.pages[stepBounds].(*boundsPage).editors["sepal_length_cm"]
	f.typeIn(ed.hi, "kg/m2")
	if m := f.mark(ed.hi); m != "error" {
		t.Errorf("upper field \"kg/m2\" with the lower empty: mark %q, want error", m)
	}
	if !strings.Contains(ed.clipped.Text, "upper bound") || !strings.Contains(ed.clipped.Text, "lower bound") {
		t.Errorf("row message %q does not name both fields' rules", ed.clipped.Text)
	}
	f.typeIn(ed.lo, "10")
	if m := f.mark(ed.hi); m != "error" {
		t.Errorf("upper field \"kg/m2\" with the lower filled: mark %q, want error", m)
	}
	if m := f.mark(ed.lo); m != "ok" {
		t.Errorf("lower field \"10\": mark %q, want ok", m)
	}
	if !strings.Contains(ed.clipped.Text, "upper bound") || strings.Contains(ed.clipped.Text, "lower bound") {
		t.Errorf("row message %q, want only the upper field's rule", ed.clipped.Text)
	}
	// A crossed pair marks both fields, as the message says.
	f.typeIn(ed.hi, "5")
	if f.mark(ed.lo) != "error" || f.mark(ed.hi) != "error" || ed.clipped.Text == "" {
		t.Errorf("crossed bounds 10..5: marks %q/%q, message %q", f.mark(ed.lo), f.mark(ed.hi), ed.clipped.Text)
	}
	f.typeIn(ed.hi, "20")
	if f.mark(ed.lo) != "ok" || f.mark(ed.hi) != "ok" || strings.Contains(ed.clipped.Text, "bound") {
		t.Errorf("bounds 10..20: marks %q/%q, message %q", f.mark(ed.lo), f.mark(ed.hi), ed.clipped.Text)
	}
	f.waitIdle()
}

// diabetesLike and cancerLike write two tables with different columns.
func diabetesLike(t *testing.T, dir string) string {
	path := filepath.Join(dir, "diabetes.csv")
	writeCSV(t, path, []string{"age", "sex", "bmi", "bp", "target"}, 416, func(i int) []float64 {
		x := float64(i%97) / 97
		return []float64{20 + 60*x, float64(i % 2), 18 + 20*x*x, 70 + 50*x, 25 + 300*x}
	})
	return path
}

func cancerLike(t *testing.T, dir string) string {
	path := filepath.Join(dir, "cancer.csv")
	writeCSV(t, path, []string{"mean_radius", "mean_texture", "mean_area", "label"}, 569, func(i int) []float64 {
		x := float64(i%89) / 89
		return []float64{6 + 22*x, 9 + 30*x, 140 + 2400*x*x, float64(i % 2)}
	})
	return path
}

// newBMIFixture is a curator with a diabetes-shaped table open, its bmi
// column the one feature, bounded to [10, 60].
func newBMIFixture(t *testing.T) *curatorFixture {
	t.Helper()
	f := newCuratorFixture(t)
	f.loadCSV(diabetesLike(t, f.dir))
	dp := f.c.pages[stepData].(*dataPage)
	f.do(func() { dp.features.SetSelected([]string{"bmi"}) })
	f.typeBounds("10", "60")
	return f
}

// TestCuratorSecondCSV (issue 18 item 4): a second CSV opened after a
// first asks about unsaved changes like Ctrl+N, then gets its own columns,
// no error, no stale title or history; the learner and ε are kept.
func TestCuratorSecondCSV(t *testing.T) {
	f := newBMIFixture(t)
	c := f.c
	dp := c.pages[stepData].(*dataPage)
	f.do(func() {
		c.showStep(stepRelease)
		rp := c.pages[stepRelease].(*releasePage)
		curatorType(rp.title, "Diabetes BMI density")
		c.state.History = []releaseRecord{{Path: "/old/diabetes.synopsis", Epsilon: 0.5}}
		c.showStep(stepPrivacy)
		curatorType(c.pages[stepPrivacy].(*privacyPage).epsEntry, "0.7")
	})
	f.waitIdle()
	if !c.dirty {
		t.Fatal("edits did not mark the project unsaved")
	}
	f.do(func() { curatorType(dp.filter, "bm") })
	second := cancerLike(t, f.dir)
	f.shortcut(fyne.KeyO)
	f.selectAll()
	f.typeKeys(second)
	f.pressKey(fyne.KeyReturn)
	if !strings.Contains(f.overlay(), "Discard the unsaved changes") {
		t.Fatalf("no unsaved-changes question; overlay %q", f.overlay())
	}
	f.pressKey(fyne.KeyEscape)
	if !strings.HasSuffix(c.ds.Path, "diabetes.csv") {
		t.Fatal("Escape on the question opened the file anyway")
	}
	f.shortcut(fyne.KeyO)
	f.selectAll()
	f.typeKeys(second)
	f.pressKey(fyne.KeyReturn)
	f.pressKey(fyne.KeyReturn) // Discard and open
	f.pressKey(fyne.KeyReturn) // the import step: open with the detected layout
	f.waitDataset()
	f.waitIdle()
	if !strings.HasSuffix(c.ds.Path, "cancer.csv") {
		t.Fatalf("dataset %q after confirming", c.ds.Path)
	}
	if dp.errs.Visible() && dp.errs.Text != "" {
		t.Errorf("data page error: %q", dp.errs.Text)
	}
	if len(dp.features.Options) != 4 || dp.features.Options[0] != "mean_radius" {
		t.Errorf("feature options %v, want the new file's columns", dp.features.Options)
	}
	for _, col := range c.state.Features {
		if _, err := c.ds.Column(col); err != nil {
			t.Errorf("feature %q is not a column of the new file", col)
		}
	}
	if strings.Contains(dp.colErrs.Text, "bmi") {
		t.Errorf("column errors mention the old column: %q", dp.colErrs.Text)
	}
	rp := c.pages[stepRelease].(*releasePage)
	if c.state.Title != "" || rp.title.Text != "" || len(c.state.History) != 0 {
		t.Errorf("stale title %q / %q or history %v", c.state.Title, rp.title.Text, c.state.History)
	}
	f.do(func() { c.showStep(stepRelease) })
	if strings.Contains(rp.summary.Text, "bmi") || !strings.Contains(rp.out.Text, filepath.Dir(second)) {
		t.Errorf("release page after the new file: summary %q, out %q", rp.summary.Text, rp.out.Text)
	}
	if c.state.Epsilon != 0.7 {
		t.Errorf("ε = %v, want the kept 0.7", c.state.Epsilon)
	}
	if c.dirty {
		t.Error("a freshly opened dataset is marked unsaved")
	}
}

// TestCuratorLearnerShowsCurrentSensitivity (issue 18 item 5): after
// switching learner or dataset, the Learner step names the current
// learner and n, never the previous one's sensitivity.
func TestCuratorLearnerShowsCurrentSensitivity(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.loadCSV(diabetesLike(t, f.dir))
	f.typeBounds("0", "400")
	f.preview()
	lp := c.pages[stepLearner].(*learnerPage)
	if !strings.Contains(lp.sens.Text, "Kernel density") || !strings.Contains(lp.sens.Text, "n = 416") {
		t.Fatalf("KDE on 416 rows: %q", lp.sens.Text)
	}
	kde := lp.sens.Text
	// Switch to a regression learner with the keyboard: its S is not KDE's.
	f.do(func() { c.showStep(stepLearner) })
	var reg string
	for _, l := range learners.All() {
		if l.Spec().Label == learners.LabelReal {
			reg = l.Spec().Title
			break
		}
	}
	f.do(func() { lp.choose.SetSelected(reg) })
	if lp.sens.Text == kde || strings.Contains(lp.sens.Text, "Kernel density") || !strings.Contains(lp.sens.Text, reg) {
		t.Errorf("after switching to %s: %q", reg, lp.sens.Text)
	}
	f.waitIdle()
	// Another file: n is the new file's.
	f.do(func() { c.dirty = false })
	f.loadCSV(cancerLike(t, f.dir))
	if strings.Contains(lp.sens.Text, "416") {
		t.Errorf("after opening a 569-row file: %q", lp.sens.Text)
	}
	f.typeBounds("0", "3000")
	f.do(func() {
		if c.state.spec().Label == learners.LabelBinary {
			c.state.Negative, c.state.Positive = "0.000", "1.000"
			c.changed()
		}
	})
	f.preview()
	if !strings.Contains(lp.sens.Text, "n = 569") {
		t.Errorf("on the 569-row file: %q", lp.sens.Text)
	}
}

// TestCuratorUnitReachesAxis (issue 18 item 6): editing a unit alone
// relabels the preview's axis.
func TestCuratorUnitReachesAxis(t *testing.T) {
	f := newBMIFixture(t)
	c := f.c
	res := f.preview()
	if res.Function == nil || res.Function.XLabel != "bmi" {
		t.Fatalf("axis label %q before the unit", res.Function.XLabel)
	}
	ed := c.pages[stepBounds].(*boundsPage).editors["bmi"]
	f.do(func() { c.win.Canvas().Focus(ed.unit) })
	f.typeKeys("kg/m2")
	res = f.preview()
	if res.Function.XLabel != "bmi (kg/m2)" {
		t.Errorf("axis label %q after typing the unit, want \"bmi (kg/m2)\"", res.Function.XLabel)
	}
}

// longColumns writes a CSV with n columns of long names.
func longColumns(t *testing.T, dir string, n int) string {
	path := filepath.Join(dir, fmt.Sprintf("wide%d.csv", n))
	header := make([]string, n)
	for j := range header {
		header[j] = fmt.Sprintf("measurement_%02d_of_the_patient_cohort_baseline_visit_in_standard_units", j)
	}
	writeCSV(t, path, header, 200, func(i int) []float64 {
		row := make([]float64, n)
		for j := range row {
			row[j] = math.Mod(float64(i*(j+3))*0.37, 10)
		}
		return row
	})
	return path
}

// TestCuratorWindowFitsSmallScreens (issue 18 item 7): the window's size
// never depends on the data: with 40 long-named columns every step fits
// 1024×700, the feature list scrolls and filters, and the window opens
// within 1024×700.
func TestCuratorWindowFitsSmallScreens(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	limit := fyne.NewSize(1024, 700-40) // the title bar
	if s := widgets.WindowSize; s.Width > limit.Width || s.Height > limit.Height {
		t.Errorf("default window size %v does not fit %v", s, limit)
	}
	f.loadCSV(longColumns(t, f.dir, 40))
	f.do(func() {
		c.state.Features = c.ds.Columns[:12]
		c.refreshPages()
		c.changed() // the preview adds a slice slider per axis from the third
	})
	f.waitIdle()
	for _, step := range wizardSteps {
		f.do(func() { c.showStep(step) })
		var min, left, right fyne.Size
		f.do(func() {
			min = c.win.Content().MinSize()
			left, right = c.split.Leading.MinSize(), c.split.Trailing.MinSize()
		})
		if min.Width > limit.Width || min.Height > limit.Height {
			t.Errorf("step %s: the window needs %v, more than %v", step, min, limit)
		}
		// At the default size and split, neither side is squeezed below
		// its minimum (which would clip it under the other).
		half := widgets.WindowSize.Width * float32(c.split.Offset)
		if left.Width > half || right.Width > widgets.WindowSize.Width-half {
			t.Errorf("step %s: the steps need %v and the preview %v of a %v window split in half", step, left.Width, right.Width, widgets.WindowSize.Width)
		}
	}
	f.waitIdle()
	// At 1024×660 no step is wider than its pane (nothing clipped or
	// overlapping), nor the preview.
	f.do(func() { c.win.Resize(limit) })
	f.stepsFit(limit)
	f.do(func() { c.showStep(stepData) })
	dp := c.pages[stepData].(*dataPage)
	var scroll *container.Scroll
	f.do(func() {
		for _, o := range test.LaidOutObjects(c.win.Content()) {
			if s, ok := o.(*container.Scroll); ok && s.Content == dp.features {
				scroll = s
			}
		}
	})
	if scroll == nil {
		t.Fatal("the feature list is not in a scroll container")
	}
	if len(dp.features.Options) != 40 {
		t.Fatalf("%d feature options, want 40", len(dp.features.Options))
	}
	// The filter narrows the list; chosen columns it hides stay chosen.
	f.do(func() { curatorType(dp.filter, "measurement_3") })
	if len(dp.features.Options) != 10 {
		t.Errorf("filter \"measurement_3\": %d options, want 10", len(dp.features.Options))
	}
	var box *widget.Check
	f.do(func() {
		for _, o := range test.LaidOutObjects(dp.features) {
			if ch, ok := o.(*widget.Check); ok && strings.HasPrefix(ch.Text, "measurement_39") {
				box = ch
			}
		}
	})
	if box == nil {
		t.Fatal("no checkbox for the 40th column after filtering")
	}
	f.do(func() { test.Tap(box) })
	if len(c.state.Features) != 13 || c.state.Features[0] != c.ds.Columns[0] {
		t.Errorf("features after ticking under a filter: %d, first %q", len(c.state.Features), c.state.Features[0])
	}
	f.waitIdle()
}

// TestCuratorFeatureList200Columns: the list works for 200 columns.
func TestCuratorFeatureList200Columns(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.loadCSV(longColumns(t, f.dir, 200))
	dp := c.pages[stepData].(*dataPage)
	var min fyne.Size
	f.do(func() { min = c.win.Content().MinSize() })
	if min.Width > 1024 || min.Height > 660 {
		t.Errorf("200 columns: the window needs %v", min)
	}
	f.do(func() { curatorType(dp.filter, "measurement_199") })
	if len(dp.features.Options) != 1 {
		t.Errorf("filter: %v", dp.features.Options)
	}
	f.waitIdle()
}

// TestCuratorSummaryMissingBounds (issue 18 item 9): the summary says the
// bounds are missing and the page links to the step.
func TestCuratorSummaryMissingBounds(t *testing.T) {
	f := newIrisFixture(t, stepRelease)
	c := f.c
	rp := c.pages[stepRelease].(*releasePage)
	if strings.Contains(rp.summary.Text, "[, ]") || !strings.Contains(rp.summary.Text, "sepal_length_cm: bounds MISSING — set them on the Bounds step") {
		t.Errorf("summary %q", rp.summary.Text)
	}
	if rp.goTo.Hidden || rp.goToStep != stepBounds {
		t.Fatalf("no link to the Bounds step (hidden %v, step %q)", rp.goTo.Hidden, rp.goToStep)
	}
	f.do(func() { test.Tap(rp.goTo) })
	if c.current != stepBounds {
		t.Errorf("the link opened %q", c.current)
	}
	f.waitIdle()
}

// TestDefaultHOneHome (issue 18 item 13): the app's default h is the
// command line's (release.DefaultH).
func TestDefaultHOneHome(t *testing.T) {
	if s := newCuratorState(); s.H != release.DefaultH {
		t.Errorf("new project h = %d, want release.DefaultH = %d", s.H, release.DefaultH)
	}
	if s := newCuratorState().forNewDataset(); s.H != release.DefaultH {
		t.Errorf("new dataset h = %d", s.H)
	}
}

// TestRoundPrivateBounds: private estimates are rounded outward to four
// significant digits of the width and stay within the search range.
func TestRoundPrivateBounds(t *testing.T) {
	est := &synopsis.PrivateEnd{Quantile: 0.01, Epsilon: 0.1, RangeLo: -100, RangeHi: 100}
	for _, tc := range []struct {
		in, want dataset.Bounds
	}{
		{dataset.Bounds{Lo: 17.249913402816733, Hi: 44.80012339}, dataset.Bounds{Lo: 17.24, Hi: 44.81}},
		{dataset.Bounds{Lo: -6.382716, Hi: 1.0000001}, dataset.Bounds{Lo: -6.383, Hi: 1.001}},
		{dataset.Bounds{Lo: 0.0123456, Hi: 0.0234567}, dataset.Bounds{Lo: 0.01234, Hi: 0.02346}},
		{dataset.Bounds{Lo: -100, Hi: 99.99991}, dataset.Bounds{Lo: -100, Hi: 100}},
	} {
		got := roundPrivateBounds(tc.in, est, est)
		if got != tc.want {
			t.Errorf("roundPrivateBounds(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if got.Lo > tc.in.Lo || got.Hi < tc.in.Hi {
			t.Errorf("roundPrivateBounds(%v) = %v narrows the bounds", tc.in, got)
		}
	}
}

// TestApproxText: rounding noise of the noiseless approximation reads as
// negligible; otherwise it is in the plot's units with its share of the
// public range (whose unit, the same, is not written again).
func TestApproxText(t *testing.T) {
	r := &preview.Result{Units: study.Units{Scale: 2, Range: [2]float64{0, 1}}, UnitName: "per cm", RangeText: "0 to 2 per cm"}
	for _, tc := range []struct {
		approx, total float64
		want          string
	}{
		{5.551e-17, 0.3, "negligible"},
		{0, 0, "negligible"},
		{0.01234, 0.3, "0.0247 per cm (1.2% of the public range 0 to 2)"},
		{2e-7, 0.01, "negligible"},
		{2e-5, 0.01, "4e-05 per cm (0.002% of the public range 0 to 2)"},
		{0.5, 0.6, "1 per cm (50% of the public range 0 to 2)"},
	} {
		if got := approxText(r, tc.approx, tc.total); got != tc.want {
			t.Errorf("approxText(%g, %g) = %q, want %q", tc.approx, tc.total, got, tc.want)
		}
	}
}

// TestCuratorTotalBudgetMarkedAsTyped: the total-budget field is marked
// while typed and its button cannot set an invalid total (issue 18, item 1,
// as for ε, δ and k).
func TestCuratorTotalBudgetMarkedAsTyped(t *testing.T) {
	f := newIrisFixture(t, stepPrivacy)
	pp := f.c.pages[stepPrivacy].(*privacyPage)
	for _, tc := range []struct {
		text, mark string
		enabled    bool
	}{{"abc", "error", false}, {"0", "error", false}, {"-2", "error", false}, {"", "error", false}, {"2", "ok", true}, {"0.5", "ok", true}} {
		f.typeIn(pp.total, tc.text)
		if m := f.mark(pp.total); m != tc.mark {
			t.Errorf("total %q: mark %q, want %q", tc.text, m, tc.mark)
		}
		if got := !pp.setTotal.Disabled(); got != tc.enabled {
			t.Errorf("total %q: Set enabled %v, want %v", tc.text, got, tc.enabled)
		}
	}
}

// TestCuratorSaveWithInvalidFieldSaysSo: saving while ε's typed text is
// invalid keeps the project marked unsaved and says that the file holds
// the last valid ε (what the window shows is not what was saved).
func TestCuratorSaveWithInvalidFieldSaysSo(t *testing.T) {
	f := newIrisFixture(t, stepPrivacy)
	c := f.c
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.typeIn(pp.epsEntry, "0.5")
	f.typeIn(pp.epsEntry, "-1")
	path := filepath.Join(f.dir, "p.bernstein")
	var ok bool
	f.do(func() { ok = c.writeProject(path, false) })
	if !ok {
		t.Fatal("save failed")
	}
	if !c.dirty || !strings.Contains(c.win.Title(), " * ") {
		t.Errorf("after saving with an invalid ε: dirty %v, title %q; want still unsaved", c.dirty, c.win.Title())
	}
	if st := c.status.Text; !strings.Contains(st, "invalid") || !strings.Contains(st, "last valid value") {
		t.Errorf("status %q does not say the invalid ε was not saved", st)
	}
	w, err := project.LoadWorkspace(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Privacy.Epsilon != 0.5 {
		t.Errorf("saved ε = %v, want the last valid 0.5", w.Privacy.Epsilon)
	}
	f.typeIn(pp.epsEntry, "0.25")
	f.do(func() { ok = c.writeProject(path, true) })
	if !ok || c.dirty || !strings.HasPrefix(c.status.Text, "Saved ") || strings.Contains(c.status.Text, "invalid") {
		t.Errorf("after fixing ε and saving: ok %v dirty %v status %q", ok, c.dirty, c.status.Text)
	}
}

// TestCuratorSecondFileKeepsLearner is the walkthrough's reproduction: a
// second file whose label column has no conventional name switched the
// learner back to a density, and h and k chosen privately on the first
// file were kept for the second, shown as "chosen by you". The learner is
// kept (the Data step asks for the label); a private choice's h and k
// return to the defaults; while in force they are shown as chosen
// privately.
func TestCuratorSecondFileKeepsLearner(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "second.csv")
	var b strings.Builder
	b.WriteString("radius,texture,diagnosis\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d,%s\n", 10+i%7, 20+i%5, []string{"benign", "malignant"}[i%2])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(func() {
		c.state.Learner = learners.KindLogistic
		c.state.H, c.state.KAuto, c.state.K, c.state.ChosenPrivately = 3, false, 4, true
		if got := kInUseText(c.state, nil); !strings.Contains(got, "chosen privately") {
			t.Errorf("k in use after a private choice: %q", got)
		}
		c.loadDataset(path, true)
	})
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if c.state.Learner != learners.KindLogistic {
			t.Errorf("learner %v after opening a second file, want logistic kept", c.state.Learner)
		}
		if c.state.H != release.DefaultH || !c.state.KAuto || c.state.ChosenPrivately {
			t.Errorf("after a new file: h = %d, automatic k %v, chosen privately %v; want the defaults", c.state.H, c.state.KAuto, c.state.ChosenPrivately)
		}
		if got := kInUseText(c.state, nil); strings.Contains(got, "chosen") {
			t.Errorf("k in use on the new file: %q", got)
		}
	})
}

// TestCuratorScrollsBackToMessages is the walkthrough's reproduction of
// panes that looked empty: the preview kept a long result's scroll offset
// when it shrank to a message, the filtered column list kept its offset
// when the match was at the top, and a new file's pages opened at the old
// file's offsets.
func TestCuratorScrollsBackToMessages(t *testing.T) {
	f := newBMIFixture(t)
	c := f.c
	f.preview()
	down := fyne.NewPos(0, 400)
	f.do(func() {
		c.preview.box.Offset = down
		c.showStep(stepPrivacy)
		curatorType(c.pages[stepPrivacy].(*privacyPage).epsEntry, "-1")
	})
	f.waitIdle()
	f.do(func() {
		if c.preview.box.Offset.Y != 0 {
			t.Errorf("the preview shows a message at scroll offset %v", c.preview.box.Offset)
		}
		curatorType(c.pages[stepPrivacy].(*privacyPage).epsEntry, "1")
	})
	f.waitIdle()
	dp := c.pages[stepData].(*dataPage)
	f.do(func() {
		dp.featureList.Offset = down
		curatorType(dp.filter, "bm")
		if dp.featureList.Offset.Y != 0 {
			t.Errorf("the filtered column list is at offset %v", dp.featureList.Offset)
		}
		c.preview.box.Offset = down
		dp.featureList.Offset = down
	})
	second := cancerLike(t, f.dir)
	f.do(func() { c.loadDataset(second, true) })
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if c.preview.box.Offset.Y != 0 || dp.featureList.Offset.Y != 0 {
			t.Errorf("a new file opens at the old offsets: preview %v, columns %v", c.preview.box.Offset, dp.featureList.Offset)
		}
	})
}

// TestCuratorClassifierPagesFitSmallScreens: with a classifier's class form
// shown, no step is wider than its pane at 1024×660 (the screenshot helper
// found the class form's long check-box text widening the Data step past
// its split, scrolling "Open CSV…" out of view).
func TestCuratorClassifierPagesFitSmallScreens(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.loadCSV(cancerLike(t, f.dir))
	f.do(func() { c.win.Resize(fyne.NewSize(1024, 660)) })
	f.waitIdle()
	if !c.pages[stepData].(*dataPage).classes.box.Visible() {
		t.Fatalf("no class form: learner %s, label %q", c.state.Learner, c.state.Label)
	}
	f.stepsFit(fyne.NewSize(1024, 660))
}

// stepsFit checks, in a window of size (already resized to it), that no
// step is wider than the scroll showing it, nor the preview than its pane,
// and that nothing on a step overflows (overflows: past its right edge,
// under its scroll bar, or a button cut).
func (f *curatorFixture) stepsFit(size fyne.Size) {
	f.t.Helper()
	c := f.c
	for _, step := range wizardSteps {
		var pageMin, pageSize, prevMin, prevSize fyne.Size
		var problems []string
		f.do(func() {
			c.showStep(step)
			c.win.Content().Refresh()
			test.LaidOutObjects(c.win.Content())
			// The page box sits in a horizontal scroll: compare with what
			// the scroll shows, not the box (which grows to its minimum).
			pageMin, pageSize = c.pageBox.MinSize(), c.pageScroll.Size()
			prevMin, prevSize = c.preview.content().MinSize(), c.preview.content().Size()
			problems = overflows(c.pageBox.Objects[0])
		})
		for _, p := range problems {
			f.t.Errorf("step %s at %v: %s", step, size, p)
		}
		if pageMin.Width > pageSize.Width+0.5 {
			f.t.Errorf("step %s at %v: the page needs %v of its %v", step, size, pageMin.Width, pageSize.Width)
		}
		if prevMin.Width > prevSize.Width+0.5 {
			f.t.Errorf("step %s at %v: the preview needs %v of its %v", step, size, prevMin.Width, prevSize.Width)
		}
	}
}
