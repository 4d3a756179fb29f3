package curator

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
)

// TestCuratorError95BesideThePlot: beside the tradeoff plot the preview
// shows the error at 95% at the curator's setting — the measure of
// "Error I can accept" — in the plot's units (named once) and as a share
// of the public range for a density, as a share of the records for a
// classifier. Its
// releases are the marker's: the mean of their errors is the mean
// sup-norm error (to 1e-9 relative; only the summation order differs) and,
// for a classifier, one minus the mean agreement (to 1e-12).
func TestCuratorError95BesideThePlot(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	res := f.preview()
	q := res.Error95
	if math.Abs(q.Mean-res.MarkerErr) > 1e-9*res.MarkerErr || !(q.Low <= q.Error && q.Error <= q.High) || !(q.Error > 0) {
		t.Errorf("error at 95 %% %+v, marker's mean %g", q, res.MarkerErr)
	}
	f.do(func() {
		l := c.preview.error95
		want := "Error at 95% at your setting: " + res.ErrorText(q.Error)
		if !l.Visible() || !strings.HasPrefix(l.Text, want) || !strings.Contains(l.Text, "of the public range") ||
			!strings.Contains(l.Text, res.UnitName) {
			t.Errorf("beside the plot: %q (visible %v), want it to start %q in %q", l.Text, l.Visible(), want, res.UnitName)
		}
		// The unit once, and one way of writing a percentage in the window
		// (walkthrough: "per unit of x" four times, "95 %" beside "95%").
		if n := strings.Count(l.Text, res.UnitName); n != 1 {
			t.Errorf("beside the plot: %q names %q %d times, want once", l.Text, res.UnitName, n)
		}
		for _, txt := range []string{l.Text, c.preview.recommend.Text} {
			if strings.Contains(txt, "95 %") {
				t.Errorf("%q writes 95 %% with a space: the window writes 95%%", txt)
			}
		}
	})

	f = newCuratorFixture(t)
	c = f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	res = f.preview()
	q = res.Error95
	if !res.Classifier || math.Abs(q.Mean-(1-res.Agreement)) > 1e-12 || q.Error < 0 || q.Error > 1 {
		t.Errorf("classifier: disagreement at 95 %% %+v, mean agreement %g", q, res.Agreement)
	}
	f.do(func() {
		l := c.preview.error95
		want := "Disagreement with the non-private classifier at 95% at your setting: " + res.Error95Text(q.Error)
		if !l.Visible() || !strings.HasPrefix(l.Text, want) || !strings.Contains(l.Text, "of the records") {
			t.Errorf("beside the plot: %q, want it to start %q", l.Text, want)
		}
	})
}

// TestCuratorMechanismMarkedBeforePreview: the selector marks a refused
// peer from the public settings at once — inside the same UI event, when
// no preview of the new settings can exist — with the release's rule in
// the window's words (no command-line flags), and the release is blocked.
func TestCuratorMechanismMarkedBeforePreview(t *testing.T) {
	f, pp := kdeGaussianAt(t, "0.7")
	c := f.c
	gp, trig := synopsis.MechanismGP, synopsis.MechanismTrig
	check := func(what, want string) {
		t.Helper()
		if c.preview.lastFor(c.state, c.ds) != nil {
			t.Fatalf("%s: a preview of these settings exists already", what)
		}
		r := pp.mech.rule
		if !r.Visible() || !strings.Contains(r.Text, want) || strings.Contains(r.Text, "--") {
			t.Errorf("%s: selector rule %q (visible %v), want %q and no command-line flag", what, r.Text, r.Visible(), want)
		}
		if _, err := c.readyRequest(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: the release is not blocked by the rule: %v", what, err)
		}
	}
	for _, s := range []struct {
		what, mech string
		noise      int // index in noiseChoices: 0 pure Laplace (δ = 0), 2 Gaussian
		eps, want  string
	}{
		{"GP at δ = 0", gp, 0, "0.7", "needs Gaussian noise with δ in (0, 1)"},
		{"GP at ε = 2", gp, 2, "2", "ε ≤ 1"},
		{"trig at δ > 0", trig, 2, "0.6", "pure ε-DP Laplace noise (δ = 0)"},
	} {
		// One UI event: no preview of the new settings can have come in.
		f.do(func() {
			pp.noise.SetSelected(noiseChoices[s.noise].label)
			curatorType(pp.epsEntry, s.eps)
			pp.mech.selectKind(s.mech)
			check(s.what, s.want)
		})
	}
	f.do(func() {
		pp.noise.SetSelected(noiseChoices[0].label)
		curatorType(pp.epsEntry, "0.8")
		if pp.mech.rule.Visible() {
			t.Errorf("trig under pure noise marked refused: %q", pp.mech.rule.Text)
		}
	})
}

// TestCuratorTargetAppliesMechanism: with Gaussian noise the target
// search has Hall et al.'s GP among its candidates; for an error the GP
// reaches below ε = 1 (1.2 × its error at 95 % at ε = 0.5, which the
// preview's recommendation simulated) and Bernstein does not reach
// there (its error at 95 % at ε = 0.5 is more than twice the target's),
// the search proposes the GP, says so, and Apply sets the Mechanism
// selector, ε and the noise.
func TestCuratorTargetAppliesMechanism(t *testing.T) {
	f, pp := kdeGaussianAt(t, "0.5")
	c := f.c
	f.do(func() {
		pp.kMode.SetSelected(kManText) // a fixed k keeps the search short
		curatorType(pp.kEntry, "10")
	})
	res := f.preview()
	var gpErr, bernErr float64
	for _, m := range res.Recommendation.Mechanisms {
		switch m.Kind {
		case synopsis.MechanismGP:
			gpErr = m.Err
		case synopsis.MechanismBernstein:
			bernErr = m.Err
		}
	}
	target := 1.2 * gpErr
	if !(gpErr > 0) || !(bernErr > 2*target) {
		t.Fatalf("errors at 95 %% at ε = 0.5: GP %g, Bernstein %g: want the GP well below (Figure 1)", gpErr, bernErr)
	}
	tp := pp.target
	f.searchTarget(tp, strconv.FormatFloat(res.Units.Plot(target), 'g', 6, 64))
	gpLabel := preview.MechanismLabel(synopsis.MechanismGP)
	f.do(func() {
		if tp.last == nil || !tp.last.Reached {
			t.Fatalf("no proposal: %q", tp.result.Text)
		}
		p := tp.last.Proposal
		if p.Mechanism != synopsis.MechanismGP || p.Epsilon > 1 || p.Noise != mechanism.NoiseGaussian || p.Error > tp.last.Target {
			t.Fatalf("proposal %+v for target %g, want Hall et al.'s GP at ε ≤ 1", p, tp.last.Target)
		}
		if !strings.Contains(tp.result.Text, "Smallest ε = "+formatValue(p.Epsilon)+" with "+gpLabel) {
			t.Errorf("result does not name the GP: %q", tp.result.Text)
		}
		test.Tap(tp.apply)
		if c.state.Mechanism != synopsis.MechanismGP || pp.mech.sel.Selected != gpLabel ||
			c.state.Epsilon != p.Epsilon || c.state.Noise != mechanism.NoiseGaussian {
			t.Errorf("applied: mechanism %q (selector %q), ε = %g, noise %s; want %s at ε = %g", c.state.Mechanism,
				pp.mech.sel.Selected, c.state.Epsilon, c.state.Noise, gpLabel, p.Epsilon)
		}
		if pp.mech.rule.Visible() {
			t.Errorf("the applied proposal is refused: %q", pp.mech.rule.Text)
		}
	})
}
