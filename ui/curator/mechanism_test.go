package curator

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
)

// openReleaseDialog creates the curator key on first use and leaves the
// release dialog of the current settings on top.
func openReleaseDialog(t *testing.T, f *curatorFixture, out string) *releaseFlow {
	t.Helper()
	c := f.c
	rp := c.pages[stepRelease].(*releasePage)
	f.do(func() { curatorType(rp.out, out) })
	f.do(func() { test.Tap(rp.release) })
	fl := c.release
	if fl == nil || !f.onTop(fl.keyDlg) {
		t.Fatal("no key-creation dialog on first release")
	}
	f.do(func() { curatorType(fl.principal, "curator@example.org") })
	f.do(func() { curatorType(fl.keyPass, "correct horse") })
	f.do(func() { curatorType(fl.keyPass2, "correct horse") })
	f.do(func() { test.Tap(fl.keyDlg.Button("Create key")) })
	if !f.onTop(fl.keyInfo) {
		t.Fatal("the public key and allowed_signers line are not shown after creating the key")
	}
	f.do(func() { test.Tap(fl.keyInfo.Button("Continue")) })
	fl = c.release
	f.waitIdentity(fl)
	if !f.onTop(fl.dlg) {
		t.Fatal("no release dialog after the key was created")
	}
	return fl
}

// kdeGaussianAt opens the KDE demo and sets Gaussian noise at ε = eps on
// the Privacy step.
func kdeGaussianAt(t *testing.T, eps string) (*curatorFixture, *privacyPage) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { pp.noise.SetSelected(noiseChoices[2].label) })
	f.do(func() { curatorType(pp.epsEntry, eps) })
	return f, pp
}

// TestCuratorMechanismPeerRelease chooses a published peer in the
// Mechanism selector, releases it through the dialog and checks the
// written synopsis's mechanism.name, the summary and the project file.
func TestCuratorMechanismPeerRelease(t *testing.T) {
	// Gaussian noise at ε = 0.5, δ = 1e-6: Hall et al.'s GP applies to
	// the KDE (ε ≤ 1, δ in (0, 1)).
	f, pp := kdeGaussianAt(t, "0.5")
	c := f.c
	res := f.preview()
	rec := res.Recommendation
	if rec == nil {
		t.Fatal("the preview has no recommendation")
	}
	t.Logf("recommendation: %+v; %s", rec, rec.Text(res))
	gp := preview.MechanismLabel(synopsis.MechanismGP)
	if !slices.Contains(pp.mech.sel.Options, gp) || !slices.Contains(pp.mech.sel.Options, "Bernstein") {
		t.Fatalf("Mechanism options %q, want Bernstein and %q", pp.mech.sel.Options, gp)
	}
	if r := rec.Check(synopsis.MechanismGP); r != "" {
		t.Fatalf("GP refused at ε = 0.5, δ = 1e-6: %s", r)
	}
	f.do(func() { pp.mech.sel.SetSelected(gp) })
	if c.state.Mechanism != synopsis.MechanismGP {
		t.Fatalf("state mechanism %q after choosing %q", c.state.Mechanism, gp)
	}
	f.preview()

	// The project file keeps the choice; Bernstein is omitted.
	w, err := c.state.toWorkspace(c.ds)
	if err != nil || w.Privacy.Mechanism != synopsis.MechanismGP {
		t.Fatalf("project file mechanism %q (%v)", w.Privacy.Mechanism, err)
	}
	if got := stateFromWorkspace(w).Mechanism; got != synopsis.MechanismGP {
		t.Errorf("reloaded mechanism %q", got)
	}

	out := filepath.Join(f.dir, "gp.synopsis")
	fl := openReleaseDialog(t, f, out)
	if txt := f.overlay(); !strings.Contains(txt, "Mechanism: "+gp) {
		t.Errorf("release dialog does not name the mechanism: %q", txt)
	}
	f.do(func() { curatorType(fl.pass, "correct horse") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	if o := f.waitRelease(); o.err != nil {
		t.Fatalf("release: %v", o.err)
	}
	trust, err := keys.LoadAllowedSigners(c.opts.KeyPath + keys.AllowedSignersSuffix)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(out, trust)
	if err != nil {
		t.Fatal(err)
	}
	if v.File.Mechanism.Name != synopsis.MechanismGP || v.File.Mechanism.Epsilon != 0.5 {
		t.Errorf("written mechanism %+v, want %s at ε = 0.5", v.File.Mechanism, synopsis.MechanismGP)
	}
}

// TestCuratorRecommendation: the recommendation names a mechanism whose
// error the same preview simulated, the least of the releasable ones, and
// the preview shows it as a line.
func TestCuratorRecommendation(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	res := f.preview() // pure Laplace, ε = 1
	rec := res.Recommendation
	if rec == nil || len(rec.Mechanisms) < 2 {
		t.Fatalf("recommendation %+v, want Bernstein and at least one peer", rec)
	}
	if rec.Mechanisms[0].Kind != synopsis.MechanismBernstein || rec.Mechanisms[0].Err != res.Error95.Error {
		t.Errorf("Bernstein's entry %+v, want the error at 95 %% beside the plot, %v", rec.Mechanisms[0], res.Error95.Error)
	}
	var best *preview.MechanismError
	simulated := 0
	for i, m := range rec.Mechanisms {
		if m.Refused == "" && !math.IsNaN(m.Err) {
			simulated++
			if best == nil || m.Err < best.Err {
				best = &rec.Mechanisms[i]
			}
		}
		if m.Kind == synopsis.MechanismGP && m.Refused == "" {
			t.Errorf("GP releasable under pure Laplace noise (δ = 0): %+v", m)
		}
	}
	if best == nil || rec.Best != best.Kind {
		t.Fatalf("recommended %q, want the least simulated error among %+v", rec.Best, rec.Mechanisms)
	}
	if simulated < 2 {
		t.Errorf("only %d mechanisms simulated at ε = 1: %+v", simulated, rec.Mechanisms)
	}
	want := "Recommended at ε = 1: " + preview.MechanismLabel(rec.Best)
	if !c.preview.recommend.Visible() || !strings.HasPrefix(c.preview.recommend.Text, want) {
		t.Errorf("preview line %q (visible %v), want it to start %q", c.preview.recommend.Text, c.preview.recommend.Visible(), want)
	}
}

// TestCuratorMechanismRefusedBeforeSpend: GP at ε = 2 breaks Hall et
// al.'s ε ≤ 1: the selector is marked with the rule, the release is
// blocked and nothing is spent or written.
func TestCuratorMechanismRefusedBeforeSpend(t *testing.T) {
	f, pp := kdeGaussianAt(t, "2")
	c := f.c
	f.preview()
	f.do(func() { pp.mech.selectKind(synopsis.MechanismGP) })
	f.preview()
	if !pp.mech.rule.Visible() || !strings.Contains(pp.mech.rule.Text, "ε ≤ 1") {
		t.Errorf("selector rule %q (visible %v), want GP's ε ≤ 1", pp.mech.rule.Text, pp.mech.rule.Visible())
	}
	rp := c.pages[stepRelease].(*releasePage)
	if !rp.release.Disabled() || !strings.Contains(rp.notReady.Text, "ε ≤ 1") || rp.goToStep != stepPrivacy {
		t.Errorf("release disabled %v, reason %q, link %q", rp.release.Disabled(), rp.notReady.Text, rp.goToStep)
	}
	f.shortcut(fyne.KeyR)
	if txt := f.overlay(); !strings.Contains(txt, "Not ready to release") || !strings.Contains(txt, "ε ≤ 1") {
		t.Errorf("Ctrl+R with GP at ε = 2: %q", txt)
	}
	if spent, _, _, _ := c.budgetState(); spent != 0 {
		t.Errorf("ε spent %v, want 0", spent)
	}
	if _, err := os.Stat(c.opts.KeyPath); err == nil {
		t.Errorf("a key was created although the release was refused")
	}
}

// openMechanismList taps the Mechanism selector as the curator would and
// returns the entries of the list it opens (their text as drawn), then
// closes it.
func openMechanismList(f *curatorFixture, pp *privacyPage) (entries []string) {
	f.do(func() {
		test.Tap(pp.mech.sel)
		top := f.c.win.Canvas().Overlays().Top()
		if top == nil {
			f.t.Fatal("the Mechanism selector opened no list")
		}
		for _, o := range test.LaidOutObjects(top) {
			if tx, ok := o.(*canvas.Text); ok && tx.Text != "" {
				entries = append(entries, tx.Text)
			}
		}
		f.c.win.Canvas().Overlays().Remove(top)
	})
	return entries
}

// TestCuratorMechanismListMarksRefused: the open Mechanism list marks a
// peer the current settings refuse, with the release's rule in a few
// words (release.RequestError.Need), before the curator picks it — at
// once from the public settings and after the preview from its
// recommendation — and a marked entry can still be picked (its full rule
// then shows under the selector).
func TestCuratorMechanismListMarksRefused(t *testing.T) {
	f, pp := kdeGaussianAt(t, "0.5")
	c := f.c
	gp, trig := preview.MechanismLabel(synopsis.MechanismGP), preview.MechanismLabel(synopsis.MechanismTrig)
	gpNeedsDelta, trigNeedsPure := gp+" — needs δ > 0 (Gaussian noise)", trig+" — needs δ = 0 (pure ε-DP)"
	check := func(what string, want, notWant []string) {
		t.Helper()
		list := openMechanismList(f, pp)
		for _, w := range want {
			if !slices.Contains(list, w) {
				t.Errorf("%s: the open list %q has no entry %q", what, list, w)
			}
		}
		for _, w := range notWant {
			if slices.Contains(list, w) {
				t.Errorf("%s: the open list %q has entry %q", what, list, w)
			}
		}
	}
	// Gaussian noise, δ = 1e-6, before any preview of it: the trig is
	// marked, the GP is not.
	f.do(func() {
		if c.preview.lastFor(c.state, c.ds) != nil {
			t.Fatal("a preview of these settings exists already")
		}
	})
	check("Gaussian, before the preview", []string{"Bernstein", gp, trigNeedsPure}, []string{trig})
	f.preview()
	check("Gaussian, after the preview", []string{"Bernstein", gp, trigNeedsPure}, []string{trig})

	// Pure Laplace noise (δ = 0): the GP is marked in the same UI event.
	f.do(func() { pp.noise.SetSelected(noiseChoices[0].label) })
	check("Laplace, before the preview", []string{"Bernstein", trig, gpNeedsDelta}, []string{gp})
	f.preview()
	check("Laplace, after the preview", []string{"Bernstein", trig, gpNeedsDelta}, []string{gp})

	// The marked entry can be picked: the state follows and the full rule
	// shows under the selector.
	f.do(func() { pp.mech.sel.SetSelected(gpNeedsDelta) })
	if c.state.Mechanism != synopsis.MechanismGP {
		t.Fatalf("state mechanism %q after picking %q", c.state.Mechanism, gpNeedsDelta)
	}
	f.do(func() {
		if pp.mech.sel.Selected != gpNeedsDelta || !pp.mech.rule.Visible() || !strings.Contains(pp.mech.rule.Text, "needs Gaussian noise with δ in (0, 1)") {
			t.Errorf("selected %q, rule %q (visible %v)", pp.mech.sel.Selected, pp.mech.rule.Text, pp.mech.rule.Visible())
		}
	})
}
