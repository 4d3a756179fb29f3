package curator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// openChoose loads the KDE demo, waits for its preview and opens "Choose h
// and k privately…" from the privacy page.
func (f *curatorFixture) openChoose() (*privacyPage, *chooseFlow) {
	f.t.Helper()
	c := f.c
	start := c.pages[stepStart].(*startPage)
	f.do(func() { test.Tap(start.demoKDE) })
	f.waitDataset()
	f.preview()
	return f.tapChoose()
}

// tapChoose shows the privacy page and opens "Choose privately…" there.
func (f *curatorFixture) tapChoose() (*privacyPage, *chooseFlow) {
	f.t.Helper()
	c := f.c
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() { test.Tap(pp.choose) })
	if pp.chooseFlow == nil {
		f.t.Fatal("no choose dialog")
	}
	return pp, pp.chooseFlow
}

// waitChoose waits for a private choice to finish.
func (f *curatorFixture) waitChoose(fl *chooseFlow) { f.waitFor(fl.done, "the private choice") }

// waitPlanned waits for the dialog's forecast of the choice.
func (f *curatorFixture) waitPlanned(fl *chooseFlow) {
	f.waitFor(fl.planned, "the preview of the choice")
}

// waitFor waits for a value on (or the close of) ch, at most 120 s.
func (f *curatorFixture) waitFor(ch <-chan struct{}, what string) {
	f.t.Helper()
	select {
	case <-ch:
	case <-time.After(120 * time.Second):
		f.t.Fatalf("timed out waiting for %s", what)
	}
}

// TestCuratorChooseHK drives "Choose h and k privately…" through the real
// widgets: the dialog states the ε (10% of the release's by default),
// the curator edits it, the choice runs off the UI goroutine, the chosen h
// and k land in the form and the ledger holds one validation entry.
func TestCuratorChooseHK(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	pp, fl := f.openChoose()
	if !f.onTop(fl.dialog) {
		t.Fatal("the choose dialog is not shown")
	}
	wantDefault := formatValue(roundSig(c.state.Epsilon*chooseDefaultShare, 3))
	if fl.eps.Text != wantDefault {
		t.Errorf("default ε %q, want %q (10%% of the release's ε)", fl.eps.Text, wantDefault)
	}
	f.waitPlanned(fl)
	f.do(func() { curatorType(fl.eps, "0.05") })
	f.do(func() {
		pv := fl.preview
		if pv == nil {
			t.Fatalf("no preview: %q", fl.forecast.Text)
		}
		want := fmt.Sprintf("selection noise is Laplace(%.3g)", pv.Scale(0.05))
		if !strings.Contains(fl.forecast.Text, want) || !strings.Contains(fl.forecast.Text, "Before you spend") {
			t.Errorf("forecast %q lacks %q", fl.forecast.Text, want)
		}
		if want := "the chosen setting's density score is within"; !strings.Contains(fl.forecast.Text, want) {
			t.Errorf("forecast %q lacks %q (the score named once)", fl.forecast.Text, want)
		}
	})
	if l, err := ledger.Open(c.opts.LedgerPath); err != nil {
		t.Fatal(err)
	} else if n := len(l.Entries("")); n != 0 {
		t.Fatalf("%d ledger entries after the preview, want 0", n)
	}
	f.do(func() { test.Tap(fl.dialog.Button("Spend ε and choose")) })
	f.waitChoose(fl)
	if fl.err != nil {
		t.Fatalf("choice failed: %v", fl.err)
	}
	res := fl.res
	if c.state.H != res.Chosen.H || c.state.K != res.Chosen.K || c.state.KAuto {
		t.Errorf("state h = %d, k = %d, auto %v; want the chosen %s, manual", c.state.H, c.state.K, c.state.KAuto, res.Chosen)
	}
	f.do(func() {
		if pp.h.Selected != strconv.Itoa(res.Chosen.H) || pp.kEntry.Text != strconv.Itoa(res.Chosen.K) {
			t.Errorf("form shows h = %q, k = %q; want %s", pp.h.Selected, pp.kEntry.Text, res.Chosen)
		}
	})
	if !f.onTop(fl.result) {
		t.Error("the result dialog is not shown")
	}
	l, err := ledger.Open(c.opts.LedgerPath)
	if err != nil {
		t.Fatal(err)
	}
	key := ledger.DatasetsOfFile(l, c.ds.Hash)[0] // the ledger dataset of the records
	entries := l.Entries(key)
	if len(entries) != 1 || entries[0].Kind != ledger.KindValidation || entries[0].Epsilon != 0.05 {
		t.Fatalf("ledger %+v, want one validation entry of ε 0.05", entries)
	}
	f.do(func() {
		if !strings.Contains(pp.budget.Text, "Spent ε = 0.05") {
			t.Errorf("budget line %q does not show the spend", pp.budget.Text)
		}
	})
	f.do(func() { fl.result.Hide() })

	// Over budget: refused, nothing spent, the form unchanged.
	if err := l.SetBudget(key, 0.06); err != nil {
		t.Fatal(err)
	}
	h, k := c.state.H, c.state.K
	f.do(func() { test.Tap(pp.choose) })
	fl2 := pp.chooseFlow
	f.do(func() { test.Tap(fl2.dialog.Button("Spend ε and choose")) })
	f.waitChoose(fl2)
	<-fl2.planned // the preview's goroutine ends before the fixture does
	var be *ledger.BudgetError
	if fl2.err == nil || !asBudget(fl2.err, &be) {
		t.Fatalf("over budget: err %v, want a *BudgetError", fl2.err)
	}
	if c.state.H != h || c.state.K != k {
		t.Error("a refused choice changed the form")
	}
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(l.Entries(key)); n != 2 { // the validation and the budget entry
		t.Errorf("%d ledger entries after the refusal, want 2", n)
	}
	f.waitIdle()
}

// onTop reports whether d is the top overlay, holding widgets.Mu (background
// goroutines of the dialog may update its widgets meanwhile).
func (f *curatorFixture) onTop(d *widgets.Dialog) (top bool) {
	f.do(func() { top = curatorOnTop(f.c, d) })
	return top
}

func asBudget(err error, be **ledger.BudgetError) bool { return errors.As(err, be) }

// TestCuratorChooseBandwidth: for the KDE the dialog offers the bandwidth
// too; ticking it re-plans (more candidates, each with a bandwidth) and the
// chosen bandwidth lands in the learner's form.
func TestCuratorChooseBandwidth(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	_, fl := f.openChoose()
	f.waitPlanned(fl)
	var plain int
	f.do(func() {
		if !fl.bandwidths.Visible() || fl.preview == nil {
			t.Fatalf("bandwidth option visible %v, preview %v", fl.bandwidths.Visible(), fl.preview)
		}
		plain = len(fl.preview.Candidates)
		test.Tap(fl.bandwidths)
	})
	f.waitPlanned(fl)
	f.do(func() {
		pv := fl.preview
		if pv == nil || len(pv.Candidates) <= plain || pv.Candidates[0].Bandwidth == nil {
			t.Fatalf("with bandwidths: preview %+v (%d candidates without)", pv, plain)
		}
		if want := fmt.Sprintf("%d settings compared", len(pv.Candidates)); !strings.Contains(fl.forecast.Text, want) {
			t.Errorf("forecast %q lacks %q", fl.forecast.Text, want)
		}
		curatorType(fl.eps, "0.05")
		test.Tap(fl.dialog.Button("Spend ε and choose"))
	})
	f.waitChoose(fl)
	if fl.err != nil {
		t.Fatalf("choice failed: %v", fl.err)
	}
	bw := fl.res.Chosen.Bandwidth
	if len(bw) != 1 {
		t.Fatalf("chosen %s: want a bandwidth", fl.res.Chosen)
	}
	f.do(func() {
		spec := learners.NewKDE().Spec()
		i := slices.IndexFunc(spec.Params, func(p learners.ParamSpec) bool { return p.Name == "bandwidth" })
		if got := c.state.paramText(spec.Params[i]); got != formatValue(bw[0]) {
			t.Errorf("bandwidth in the form %q, want the chosen %s", got, formatValue(bw[0]))
		}
		fl.result.Hide()
	})
	f.waitIdle()
}

// TestCuratorChooseCancel: Cancel right after "Spend ε and choose" stops
// the run: nothing is chosen, the form is unchanged, and a spend is either
// not yet recorded or reported as kept.
func TestCuratorChooseCancel(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	_, fl := f.openChoose()
	f.waitPlanned(fl)
	h, k := c.state.H, c.state.K
	f.do(func() {
		test.Tap(fl.dialog.Button("Spend ε and choose"))
		test.Tap(fl.dialog.Button("Cancel"))
	})
	f.waitChoose(fl)
	if !errors.Is(fl.err, context.Canceled) {
		t.Fatalf("cancelled choice: err %v, want context.Canceled", fl.err)
	}
	if c.state.H != h || c.state.K != k {
		t.Error("a cancelled choice changed the form")
	}
	l, err := ledger.Open(c.opts.LedgerPath)
	if err != nil {
		t.Fatal(err)
	}
	// Normally the cancel lands while the request is prepared: nothing is
	// spent. On a loaded machine the run may already have recorded its
	// spend; then the spend must stay recorded and the error say so.
	switch n := len(l.Entries("")); {
	case n == 1 && strings.Contains(fl.err.Error(), "ledger keeps the spend"):
	case n != 0:
		t.Errorf("%d ledger entries after a cancelled choice (err %v), want 0, or 1 with the spend reported kept", n, fl.err)
	}
	f.waitIdle()
}

// TestCuratorChooseParameters: for the SVM demo the dialog offers the
// learner's parameters (the bandwidth box stays hidden); ticking the box
// re-plans with C and σ in the candidates, and the chosen C and σ land in
// the learner's form, together with h and k. The form's σ before the
// choice is the data-independent default 0.2·√ℓ (ℓ = 2: 0.283).
func TestCuratorChooseParameters(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	f.preview()
	spec := learners.NewSVM().Spec()
	param := func(name string) learners.ParamSpec {
		return spec.Params[slices.IndexFunc(spec.Params, func(p learners.ParamSpec) bool { return p.Name == name })]
	}
	f.do(func() {
		if got := c.state.paramText(param("sigma")); got != "0.283" {
			t.Errorf("σ in the form %q, want the data-independent default 0.283", got)
		}
	})
	_, fl := f.tapChoose()
	f.waitPlanned(fl)
	var plain int
	f.do(func() {
		if !fl.parameters.Visible() || fl.bandwidths.Visible() || fl.preview == nil {
			t.Fatalf("parameter box visible %v, bandwidth box visible %v, preview %v", fl.parameters.Visible(), fl.bandwidths.Visible(), fl.preview)
		}
		plain = len(fl.preview.Candidates)
		test.Tap(fl.parameters)
	})
	f.waitPlanned(fl)
	f.do(func() {
		pv := fl.preview
		if pv == nil || pv.Candidates[0].Params["C"] == nil || pv.Candidates[0].Params["sigma"] == nil {
			t.Fatalf("with parameters: preview %+v (%d candidates without)", pv, plain)
		}
		curatorType(fl.eps, "0.5")
		test.Tap(fl.dialog.Button("Spend ε and choose"))
	})
	f.waitChoose(fl)
	if fl.err != nil {
		t.Fatalf("choice failed: %v", fl.err)
	}
	ch := fl.res.Chosen
	f.do(func() {
		for _, name := range []string{"C", "sigma"} {
			if got, want := c.state.paramText(param(name)), formatValue(ch.Params[name][0]); got != want {
				t.Errorf("%s in the form %q, want the chosen %s", name, got, want)
			}
		}
		if c.state.H != ch.H || c.state.K != ch.K || c.state.KAuto {
			t.Errorf("form h = %d, k = %d (auto %v); chosen %s", c.state.H, c.state.K, c.state.KAuto, ch)
		}
		fl.result.Hide()
	})
	f.waitIdle()
}

// TestCuratorChooseFitsBudget: with the release's ε equal to what is left
// of the budget (the defaults: budget 1, ε 1), the recommended private
// choice says before spending that the two do not fit and, as offered by
// default, lowers the release's ε to what the choice leaves, so that the
// release that follows fits (walkthrough: it was refused as over budget).
func TestCuratorChooseFitsBudget(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	f.do(func() { c.showStep(stepPrivacy) })
	pp := c.pages[stepPrivacy].(*privacyPage)
	var left float64
	f.do(func() {
		spent, _, budget, err := c.budgetState()
		if err != nil {
			t.Fatal(err)
		}
		left = budget - spent
		curatorType(pp.epsEntry, formatValue(left))
	})
	f.do(func() { test.Tap(pp.choose) })
	fl := pp.chooseFlow
	if fl == nil {
		t.Fatal("no choose dialog")
	}
	choice, _ := parseEpsilon(fl.eps.Text)
	want := left - choice
	f.do(func() {
		if !fl.lowerBox.Visible() || !fl.lower.Checked || !strings.Contains(fl.lowerNote.Text, "do not both fit") ||
			!strings.Contains(fl.lower.Text, formatValue(want)) {
			t.Errorf("no offer to lower the release's ε to %s: shown %v, %q / %q", formatValue(want), fl.lowerBox.Visible(), fl.lowerNote.Text, fl.lower.Text)
		}
	})
	f.waitPlanned(fl)
	f.do(func() { test.Tap(fl.dialog.Button("Spend ε and choose")) })
	f.waitChoose(fl)
	if fl.err != nil {
		t.Fatalf("choice failed: %v", fl.err)
	}
	f.do(func() {
		spent, _, budget, err := c.budgetState()
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.state.Epsilon-want) > 1e-9 || pp.epsEntry.Text != formatValue(want) || spent+c.state.Epsilon > budget+1e-9 {
			t.Errorf("after the choice: release ε %v (entry %q), spent %v of %v; want ε %v that fits",
				c.state.Epsilon, pp.epsEntry.Text, spent, budget, want)
		}
	})
}
