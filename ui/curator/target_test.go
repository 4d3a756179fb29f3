package curator

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/study"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
)

// searchTarget types the error, taps "Find the smallest ε" and waits for
// the search.
func (f *curatorFixture) searchTarget(tp *targetPanel, text string) {
	f.t.Helper()
	f.do(func() { curatorType(tp.entry, text) })
	f.do(func() {
		if tp.find.Disabled() {
			f.t.Fatalf("Find is disabled for %q", text)
		}
		test.Tap(tp.find)
	})
	f.waitFor(tp.done, "the target search")
}

// demoKDEPrivacy loads the demo KDE, waits for its preview and shows the
// privacy page.
func (f *curatorFixture) demoKDEPrivacy() *privacyPage {
	c := f.c
	start := c.pages[stepStart].(*startPage)
	f.do(func() { test.Tap(start.demoKDE) })
	f.waitDataset()
	f.preview()
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { c.showStep(stepPrivacy) })
	return pp
}

// TestCuratorTargetError drives "Error I can accept" through the real
// widgets: an invalid error keeps Find disabled; a search on the private
// data proposes ε, h and k with the error as a number and a share of the
// public range, labelled with the preview's private-data notice; Apply
// fills the proposal into the form; on the uniform stand-in the result
// carries the stand-in's notice instead.
func TestCuratorTargetError(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	pp := f.demoKDEPrivacy()
	f.do(func() {
		pp.kMode.SetSelected(kManText) // a fixed k keeps the search short
		curatorType(pp.kEntry, "10")
	})
	f.preview()
	tp := pp.target
	for _, bad := range []string{"", "0", "-1%", "abc"} {
		f.do(func() {
			curatorType(tp.entry, bad)
			if !tp.find.Disabled() {
				t.Errorf("Find is enabled for %q", bad)
			}
		})
	}
	f.do(func() {
		if !strings.Contains(tp.hint.Text, "public range") {
			t.Errorf("hint %q does not name the public range", tp.hint.Text)
		}
	})

	f.searchTarget(tp, "10%")
	var eps float64
	var h int
	f.do(func() {
		r := tp.result.Text
		for _, want := range []string{"Smallest ε = ", "k = 10", "95% of the simulated releases have a sup-norm error of at most ",
			"of the public range", "Monte-Carlo error", "400 simulated releases per setting", "more or less likely"} {
			if !strings.Contains(r, want) {
				t.Errorf("result lacks %q:\n%s", want, r)
			}
		}
		if tp.disclosure.Text != previewPrivateNotice || tp.disclosure.Hidden {
			t.Errorf("disclosure %q, want the preview's private-data notice", tp.disclosure.Text)
		}
		if tp.apply.Hidden || tp.last == nil || !tp.last.Reached {
			t.Fatal("no proposal to apply")
		}
		p := tp.last.Proposal
		if p.Error > tp.last.Target || p.K[0] != 10 || p.Noise != mechanism.NoiseLaplace {
			t.Errorf("proposal %+v for target %g", p, tp.last.Target)
		}
		eps, h = p.Epsilon, p.H
		test.Tap(tp.apply)
		if c.state.Epsilon != eps || c.state.H != h || c.state.KAuto || c.state.K != 10 {
			t.Errorf("applied: ε = %g, h = %d, auto %v, k = %d; want ε = %g, h = %d, k = 10", c.state.Epsilon, c.state.H, c.state.KAuto, c.state.K, eps, h)
		}
		if pp.epsEntry.Text != formatValue(eps) || pp.h.Selected != formatValue(float64(h)) {
			t.Errorf("form shows ε %q, h %q", pp.epsEntry.Text, pp.h.Selected)
		}
	})
	res := f.preview()
	if res.Epsilon != eps || res.H != h {
		t.Errorf("preview after Apply at ε = %g, h = %d; want %g, %d", res.Epsilon, res.H, eps, h)
	}

	// On the uniform stand-in: the stand-in's notice, as the preview shows it.
	f.do(func() { c.preview.standIn.choice.SetSelected(previewOnUniform) })
	f.preview()
	f.searchTarget(tp, "10%")
	f.do(func() {
		if !strings.HasPrefix(tp.disclosure.Text, "Preview on a public stand-in") || tp.disclosure.Text != c.preview.standIn.notice.Text {
			t.Errorf("stand-in disclosure %q, preview shows %q", tp.disclosure.Text, c.preview.standIn.notice.Text)
		}
		// A different fit: Apply of a proposal from the private data would
		// be refused; this one is the stand-in's own.
		if tp.lastKey == "" || tp.last == nil {
			t.Error("no stand-in proposal")
		}
	})
}

// TestCuratorTargetApplyK: the proposal's k is shown and applied through
// the real widgets — a k the search tried beside the automatic one (or a
// peer's) becomes the form's manual k; a proposal at the automatic k of
// its ε leaves k automatic (the rule gives that k).
func TestCuratorTargetApplyK(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	pp := f.demoKDEPrivacy()
	tp := pp.target
	propose := func(p study.TargetPoint) {
		in, err := tp.input()
		if err != nil {
			t.Fatal(err)
		}
		tp.last = tp.reachedTarget(p)
		tp.lastKey = targetKey(in)
		tp.apply.Show()
	}
	f.do(func() {
		p := study.TargetPoint{Epsilon: 0.7, Noise: mechanism.NoiseLaplace, H: 2, K: []int{7}}
		if text := targetText(tp.reachedTarget(p)); !strings.Contains(text, "k = 7") || strings.Contains(text, "automatic") {
			t.Errorf("a searched k: %q", text)
		}
		propose(p)
		test.Tap(tp.apply)
		if c.state.KAuto || c.state.K != 7 || c.state.Epsilon != 0.7 || c.state.H != 2 || pp.kEntry.Text != "7" || pp.kMode.Selected != kManText {
			t.Errorf("applied k: auto %v, k = %d (entry %q, mode %q), ε = %g, h = %d; want k = 7 by hand", c.state.KAuto, c.state.K, pp.kEntry.Text, pp.kMode.Selected, c.state.Epsilon, c.state.H)
		}
		p = study.TargetPoint{Epsilon: 0.9, Noise: mechanism.NoiseLaplace, H: 1, K: []int{12}, KAuto: true}
		if text := targetText(tp.reachedTarget(p)); !strings.Contains(text, "k = 12 (the automatic k at this ε)") {
			t.Errorf("the automatic k: %q", text)
		}
		propose(p)
		test.Tap(tp.apply)
		if !c.state.KAuto || pp.kMode.Selected == kManText {
			t.Errorf("applied the automatic k: auto %v, mode %q", c.state.KAuto, pp.kMode.Selected)
		}
	})
}

// reachedTarget wraps a proposal as a reached search (for targetText).
func (t *targetPanel) reachedTarget(p study.TargetPoint) *preview.Target {
	return &preview.Target{TargetResult: &study.TargetResult{Reached: true, Classifier: true, Proposal: p, Search: p, Repeats: 400}}
}

// TestCuratorTargetWalkthroughFixes reproduces a curator's walk at
// 1024×700: the Apply button's text kept the privacy column wider than its
// pane; Enter in the error box did nothing; an invalid error showed only a
// red mark; after Apply, k still read "chosen privately"; and a proposal
// (and its Apply) stayed on screen after another file was opened.
func TestCuratorTargetWalkthroughFixes(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	pp := f.demoKDEPrivacy()
	tp := pp.target
	f.do(func() {
		if w := tp.apply.MinSize().Width; w > 300 {
			t.Errorf("the Apply button needs %.0f px; the privacy column of a 1024-px window has about 380", w)
		}
		for bad, rule := range map[string]string{"abc": "is not a number", "0": "must be a positive number"} {
			curatorType(tp.entry, bad)
			if !strings.Contains(tp.hint.Text, rule) {
				t.Errorf("invalid error %q: hint %q does not state the rule", bad, tp.hint.Text)
			}
		}
		pp.kMode.SetSelected(kManText) // a fixed k keeps the search short
		curatorType(pp.kEntry, "10")
	})
	f.preview()
	f.do(func() {
		curatorType(tp.entry, "0.9")
		if strings.Contains(tp.hint.Text, "must be") || strings.Contains(tp.hint.Text, "not a number") {
			t.Errorf("valid error: hint %q still states a rule", tp.hint.Text)
		}
		tp.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter searches
	})
	f.waitFor(tp.done, "the target search started by Enter")
	f.do(func() {
		if tp.last == nil || !tp.last.Reached || !tp.apply.Visible() {
			t.Fatalf("no reached proposal after Enter: %q", tp.result.Text)
		}
		if !strings.Contains(tp.result.Text, "Apply sets the mechanism, ε, noise, h and k") {
			t.Errorf("the result %q does not say what Apply sets", tp.result.Text)
		}
		c.state.ChosenPrivately = true // as after "Choose h and k privately…"
		test.Tap(tp.apply)
		if c.state.ChosenPrivately {
			t.Error("after Apply the form still says its h and k were chosen privately")
		}
	})
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	f.do(func() {
		if tp.last != nil || tp.apply.Visible() || tp.result.Visible() {
			t.Errorf("the old file's proposal is still shown after opening another: last %v, apply %v, result %q", tp.last != nil, tp.apply.Visible(), tp.result.Text)
		}
	})
	f.waitIdle()
}
