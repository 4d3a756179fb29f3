package curator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/study"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// Accuracy first (issue 19 item 3): on the privacy page the curator types
// the error it can accept and "Find the smallest ε" proposes ε with the
// noise kind, h and k that reach it (preview.Engine.FindEpsilon, off the
// UI goroutine), on the data the preview runs on — the private data or a
// public stand-in — labelled with the preview's own disclosure; the
// published peers that apply are candidates beside the Bernstein settings
// (built at the k of every ε tried). The proposal names its k, the one
// with the least simulated error at its ε (the automatic k there, or
// another the search minimised over; the curator's manual k stays).
// "Apply" fills the proposal into the form, the Mechanism selector and k
// included.

// targetPanel is the "Error I can accept" part of the privacy page.
type targetPanel struct {
	c     *curator
	box   fyne.CanvasObject
	entry *widget.Entry
	hint  *widget.Label
	find  *widget.Button
	// result shows the proposal (or why there is none) and disclosure the
	// preview's notice of the data it ran on, as the preview shows it.
	result     *widget.Label
	disclosure *widget.Label
	apply      *widget.Button
	// cancel stops the running search (nil when none runs); gen numbers
	// the searches so a stale one is ignored.
	cancel context.CancelFunc
	gen    int
	// last is the latest proposal and lastKey the fit it was found for
	// (targetKey); Apply refuses when the settings have moved on.
	last    *preview.Target
	lastKey string
	// done receives once per finished search (tests wait on it).
	done chan struct{}
}

const (
	targetFindText   = "Find the smallest ε"
	targetCancelText = "Cancel the search"
)

func newTargetPanel(c *curator) *targetPanel {
	t := &targetPanel{c: c, done: make(chan struct{}, 4)}
	t.entry = widget.NewEntry()
	t.entry.SetPlaceHolder("e.g. 0.5 or 5%")
	t.entry.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return nil // empty: nothing to search
		}
		_, _, err := parseTargetError(s)
		return err
	}
	t.entry.OnChanged = func(string) { t.derive() }
	t.entry.OnSubmitted = func(string) { // Enter searches, as the button does
		if !t.find.Disabled() && t.cancel == nil {
			t.findOrCancel()
		}
	}
	t.hint = widget.NewLabel("")
	t.hint.Wrapping = fyne.TextWrapWord
	t.hint.TextStyle.Italic = true
	t.find = widget.NewButton(targetFindText, t.findOrCancel)
	t.result = widget.NewLabel("")
	t.result.Wrapping = fyne.TextWrapWord
	t.result.Hide() // until a search starts: an empty line left a gap under the hint
	t.disclosure = widget.NewLabel("")
	t.disclosure.Wrapping = fyne.TextWrapWord
	t.disclosure.Hide()
	// A short text: a button's does not wrap, and the long one widened the
	// privacy column beyond its pane (a walkthrough at 1024×700); the
	// result says what Apply sets.
	t.apply = widget.NewButton("Apply the proposal", t.applyProposal)
	t.apply.Hide()
	t.box = container.NewVBox(
		widget.NewLabelWithStyle("Error I can accept", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewBorder(nil, nil, nil, t.find, t.entry), t.hint,
		t.result, t.disclosure, t.apply,
	)
	t.derive()
	return t
}

// parseTargetError reads the error typed: a positive number, or a
// percentage ("5%") of the public range (a classifier's records).
func parseTargetError(s string) (v float64, share bool, err error) {
	text := strings.TrimSpace(s)
	share = strings.HasSuffix(text, "%")
	v, err = parseNumber(strings.TrimSuffix(text, "%"))
	if err != nil {
		return 0, false, err
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, false, fmt.Errorf("error %s: must be a positive number, or a percentage such as 5%%", formatValue(v))
	}
	if share {
		v /= 100
	}
	return v, share, nil
}

// derive updates the hint (the units of the preview's plots) and the Find
// button (UI goroutine).
func (t *targetPanel) derive() {
	t.entry.Validate()
	r := t.c.preview.lastFor(t.c.state, t.c.ds)
	switch {
	case r != nil && r.Classifier:
		t.hint.SetText("The share of the records on which the released classifier may disagree with the non-private one in 95% of releases (0.05 or 5%).")
	case r != nil:
		unit := r.UnitName
		if unit == "" {
			unit = "the function's units"
		}
		t.hint.SetText(fmt.Sprintf("The sup-norm error that 95%% of releases stay within, in the function plot's units (%s; public range %s), or a percentage of that range such as 5%%.", unit, r.RangeText))
	default:
		t.hint.SetText("The sup-norm error that 95% of releases stay within (a classifier: the share of records on which it may disagree with the non-private one), in the function plot's units or as a percentage such as 5%.")
	}
	_, _, err := parseTargetError(t.entry.Text)
	if err != nil && strings.TrimSpace(t.entry.Text) != "" {
		// The rule in words, not only the entry's red mark.
		t.hint.SetText(err.Error() + ". " + t.hint.Text)
		t.hint.Importance = widget.DangerImportance
	} else {
		t.hint.Importance = widget.MediumImportance
	}
	t.hint.Refresh()
	if t.cancel == nil && (err != nil || strings.TrimSpace(t.entry.Text) == "") {
		t.find.Disable()
	} else {
		t.find.Enable()
	}
}

// targetKey identifies what a proposal depends on beyond ε, noise and h:
// the fit (data or stand-in, columns, bounds, learner, parameters) and k.
func targetKey(in preview.Input) string {
	r := in.Request
	return fmt.Sprintf("%s|auto=%v|k=%v|standin=%s", preview.FitKey(r), r.KAuto, r.Privacy.K, in.StandIn)
}

// input is the search's input: the current settings on the preview's
// data (UI goroutine).
func (t *targetPanel) input() (preview.Input, error) {
	c := t.c
	req, err := c.state.request(c.ds)
	if err != nil {
		return preview.Input{}, err
	}
	req, label, err := c.preview.applyStandIn(req)
	if err != nil {
		return preview.Input{}, err
	}
	return preview.Input{Request: req, StandIn: label}, nil
}

// findOrCancel starts a search, or cancels the running one (UI goroutine).
func (t *targetPanel) findOrCancel() {
	if t.cancel != nil {
		t.cancel()
		return
	}
	c := t.c
	target, share, err := parseTargetError(t.entry.Text)
	if err != nil {
		widgets.ShowError(c.win, fmt.Errorf("error I can accept: %w", err))
		return
	}
	in, err := t.input()
	if err != nil {
		widgets.ShowError(c.win, fmt.Errorf("not ready to search ε: %w", err))
		return
	}
	t.gen++
	gen, key := t.gen, targetKey(in)
	// The disclosure of the data the preview runs on, exactly as the
	// preview shows it.
	notice := c.preview.standIn.notice
	text, importance := notice.Text, notice.Importance
	ctx, cancel := context.WithCancel(ctxBackground)
	t.cancel = cancel
	t.find.SetText(targetCancelText)
	t.find.Enable()
	t.apply.Hide()
	t.result.SetText("Searching … (simulated releases; nothing is released or spent)")
	t.result.Show()
	progress := func(done, total int) {
		widgets.Do(func() {
			if gen == t.gen && t.cancel != nil {
				t.result.SetText(fmt.Sprintf("Searching … %d%% (simulated releases; nothing is released or spent)", 100*done/max(total, 1)))
			}
		})
	}
	go func() {
		res, err := c.engine.FindEpsilon(ctx, in, target, share, progress)
		cancel()
		widgets.Do(func() { t.finished(gen, key, res, err, text, importance) })
	}()
}

// finished shows a search's outcome (UI goroutine).
func (t *targetPanel) finished(gen int, key string, res *preview.Target, err error, notice string, importance widget.Importance) {
	defer func() {
		select {
		case t.done <- struct{}{}:
		default:
		}
	}()
	if gen != t.gen {
		return
	}
	t.cancel = nil
	t.find.SetText(targetFindText)
	t.derive()
	t.disclosure.SetText(notice)
	t.disclosure.Importance = importance
	t.disclosure.Show()
	t.disclosure.Refresh()
	switch {
	case errors.Is(err, context.Canceled):
		t.result.SetText("Search cancelled.")
		return
	case err != nil:
		t.result.SetText("The search could not run: " + err.Error())
		return
	}
	t.result.SetText(targetText(res))
	t.last, t.lastKey = res, key
	if res.Reached {
		t.apply.Show()
	} else {
		t.apply.Hide()
	}
}

// targetText words a search's outcome: the proposal with its error as a
// number and as a share of the public range, and what ε means.
func targetText(res *preview.Target) string {
	p := res.Proposal
	setting := fmt.Sprintf("Bernstein, %s, h = %d, k = %s", noiseText(p.Noise, p.Delta), p.H, kWords(p))
	if p.Mechanism != "" {
		setting = fmt.Sprintf("%s, %s, k = %s", preview.MechanismLabel(p.Mechanism), noiseText(p.Noise, p.Delta), preview.KLabel(p.K))
	}
	measure := "sup-norm error"
	if res.Classifier {
		measure = "disagreement with the non-private classifier"
	}
	how := fmt.Sprintf("%d simulated releases per setting (seeded simulation noise), re-checked with independent draws.", res.Repeats)
	if !res.Reached {
		return fmt.Sprintf("Not reachable within ε ≤ %s: the best reachable error is %s (95%% of simulated releases) at ε = %s, %s. "+
			"What would help: a larger error, more records, a larger bandwidth or fewer features, or (ε, δ) noise.\n%s",
			formatValue(res.EpsMax), res.ErrorText(p.Error), formatValue(p.Epsilon), setting, how)
	}
	return fmt.Sprintf("Smallest ε = %s with %s.\n95%% of the simulated releases have a %s of at most %s (Monte-Carlo error ±%s of this 95%% quantile; target %s).\n%s\n%s\nApply sets the mechanism, ε, noise, h and k in the form.",
		formatValue(p.Epsilon), setting, measure, res.ErrorText(p.Error), mcText(res, p), res.ErrorText(res.Target), how,
		privacywords.Reading(p.Epsilon, p.Delta, p.Noise))
}

// kWords writes a Bernstein proposal's k and where it comes from.
func kWords(p study.TargetPoint) string {
	if p.KAuto {
		return preview.KLabel(p.K) + " (the automatic k at this ε)"
	}
	return preview.KLabel(p.K)
}

// mcText writes the Monte-Carlo error of a proposal's quantile.
func mcText(res *preview.Target, p study.TargetPoint) string {
	if res.Classifier {
		return fmt.Sprintf("%.2g", p.MCError())
	}
	return fmt.Sprintf("%.2g", res.Units.Plot(p.MCError()))
}

// noiseText names a noise kind as the privacy page's choices do.
func noiseText(kind mechanism.NoiseKind, delta float64) string {
	for _, n := range noiseChoices {
		if n.kind == kind {
			if delta > 0 {
				return fmt.Sprintf("%s, δ = %s", n.label, formatValue(delta))
			}
			return n.label
		}
	}
	return string(kind)
}

// reset forgets the proposal and stops a running search (UI goroutine):
// a new dataset's Privacy step must not show, or offer to apply, the old
// one's (a walkthrough saw a demo's proposal, in its units, under another
// file's classifier).
func (t *targetPanel) reset() {
	if t.cancel != nil {
		t.cancel()
		t.cancel = nil
	}
	t.gen++ // a search still finishing is ignored
	t.last, t.lastKey = nil, ""
	t.find.SetText(targetFindText)
	t.result.SetText("")
	t.result.Hide()
	t.disclosure.Hide()
	t.apply.Hide()
	t.derive()
}

// applyProposal fills the proposal into the form (UI goroutine): the
// mechanism (Bernstein or the proposed peer), ε, the noise kind (and δ),
// h for Bernstein and k: automatic when the proposal's k is the automatic
// k at its ε (the rule gives it), else the proposal's k (the k with the
// least simulated error, a peer's grid or moments, the curator's own).
func (t *targetPanel) applyProposal() {
	c := t.c
	if t.last == nil || !t.last.Reached {
		return
	}
	in, err := t.input()
	if err != nil || targetKey(in) != t.lastKey {
		widgets.ShowError(c.win, errors.New("the data, learner or k changed since the search: search again"))
		return
	}
	p := t.last.Proposal
	s := c.state
	s.Epsilon, s.Noise = p.Epsilon, p.Noise
	s.Mechanism = mechanismSetting(kindOrBernstein(p.Mechanism))
	if p.Mechanism == "" {
		s.H = p.H
	}
	switch {
	case p.KAuto:
		s.KAuto = true
	case len(p.K) > 0:
		s.KAuto, s.K = false, p.K[0] // the search's k is the same on every axis
	}
	s.ChosenPrivately = false // the search ran on the preview's data, not under ε
	delete(s.Typed, fieldK)
	delete(s.Typed, fieldEpsilon)
	if p.Delta > 0 {
		s.Delta = p.Delta
		delete(s.Typed, fieldDelta)
	}
	c.refreshPages()
	c.changed()
	if p.Mechanism != "" {
		c.setStatus("Applied the proposal: %s at ε = %s, k = %s (%s).", preview.MechanismLabel(p.Mechanism), formatValue(p.Epsilon), preview.KLabel(p.K), p.Noise)
		return
	}
	c.setStatus("Applied the proposal: Bernstein at ε = %s, h = %d, k = %s (%s).", formatValue(p.Epsilon), p.H, preview.KLabel(p.K), p.Noise)
}
