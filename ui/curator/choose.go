package curator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// chooseFlow is one run of "Choose h and k privately…": the dialog that
// states and edits the ε it will spend, the progress while the candidates
// are scored off the UI goroutine, and the result dialog.
type chooseFlow struct {
	dialog *widgets.Dialog
	eps    *widgets.KeyEntry
	over   *widgets.KeyCheck
	// lower, shown when the choice and the release's ε do not both fit
	// in what is left of the budget (public ledger values), lowers the
	// release's ε to what the choice leaves before the choice runs, so
	// that the recommended path does not end in a budget refusal
	// (walkthrough); left is the budget left before the choice.
	lower     *widgets.KeyCheck
	lowerNote *widget.Label
	lowerBox  *fyne.Container
	left      float64
	// bandwidths, shown for learners with a bandwidth, adds b/2, b, 2b to
	// the candidates (release.ChooseOptions.Bandwidths).
	bandwidths *widgets.KeyCheck
	// parameters, shown for the svm, logistic regression and ridge, adds
	// public multiples of the learner's parameters (C, σ, the intercept)
	// to the candidates (release.ChooseOptions.Parameters).
	parameters *widgets.KeyCheck
	// mechanisms adds the other mechanisms the release can have (the
	// Bernstein release at the other noise kinds δ allows, output
	// perturbation for logistic regression, Hall et al.'s GP when δ > 0
	// and ε ≤ 1; release.ChooseOptions.Mechanisms).
	mechanisms *widgets.KeyCheck
	// cancel stops a running choice (the spend stays recorded).
	cancel   context.CancelFunc
	progress *widget.ProgressBar
	stage    *widget.Label
	// forecast states, before anything is spent, the selection noise and
	// the utility bound for the ε typed (from release.PreviewChoice, run
	// off the UI goroutine when the dialog opens).
	forecast *widget.Label
	preview  *release.ChoicePreview
	// planned receives once per finished preview (tests wait on it);
	// planGen numbers the previews so a stale one is ignored.
	planned chan struct{}
	planGen int
	result  *widgets.Dialog
	// done is closed when the run has finished and the form is updated
	// (tests wait on it).
	done chan struct{}
	res  *release.ChooseResult
	err  error
}

// chooseDefaultShare is the default ε of the private choice, as a share of
// the release's ε.
const chooseDefaultShare = 0.1

// showChooseDialog opens the private-choice dialog (UI goroutine). It says
// how much ε the choice will spend (default 10% of the release's ε,
// editable), that it is recorded in the ledger before anything is computed,
// and that the release later spends its own ε.
func (c *curator) showChooseDialog() *chooseFlow {
	req, err := c.state.request(c.ds)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			c.showStep(fe.Step)
		}
		widgets.ShowError(c.win, fmt.Errorf("not ready to choose h and k: %w", err))
		return nil
	}
	fl := &chooseFlow{done: make(chan struct{}), planned: make(chan struct{}, 4)}
	fl.eps = widgets.NewKeyEntry(false) // Enter chooses, Escape cancels
	fl.eps.SetText(formatValue(roundSig(req.Privacy.Epsilon*chooseDefaultShare, 3)))
	fl.eps.Validator = func(s string) error { _, err := parseEpsilon(s); return err }
	fl.over = widgets.NewKeyCheck("Allow exceeding the budget (recorded in the ledger)", nil)
	fl.bandwidths = widgets.NewKeyCheck("Also choose the bandwidth", func(bool) { c.planChoice(fl, req) })
	bandwidths := checkWithHint(fl.bandwidths, "among b/2, b and 2b (h then 1…3)")
	if !learnerHasBandwidth(req.Learner) {
		bandwidths.Hide()
		fl.bandwidths.Hide()
	}
	fl.parameters = widgets.NewKeyCheck("Also choose the learner's parameters", func(bool) { c.planChoice(fl, req) })
	parameters := checkWithHint(fl.parameters, parametersHint(req.Learner))
	if !learnerHasTuning(req.Learner) {
		parameters.Hide()
		fl.parameters.Hide()
	}
	fl.mechanisms = widgets.NewKeyCheck(mechanismsLabel, func(bool) { c.planChoice(fl, req) })
	mechanisms := checkWithHint(fl.mechanisms, mechanismsHint)
	fl.progress = widget.NewProgressBar()
	fl.forecast = widget.NewLabel("Working out the candidates and the selection noise (nothing is spent) …")
	fl.forecast.Wrapping = fyne.TextWrapWord
	fl.lower = widgets.NewKeyCheck("", nil)
	fl.lower.SetChecked(true)
	fl.lowerNote = widget.NewLabel("")
	fl.lowerNote.Wrapping = fyne.TextWrapWord
	fl.lowerNote.Importance = widget.WarningImportance
	fl.lowerBox = container.NewVBox(fl.lowerNote, fl.lower)
	fl.lowerBox.Hide()
	fl.eps.OnChanged = func(string) { fl.showForecast(); fl.showLower(req.Privacy.Epsilon) }
	fl.stage = widget.NewLabel("")
	fl.stage.Wrapping = fyne.TextWrapWord
	spent, _, budget, berr := c.budgetState()
	budgetText := "Budget: unknown (no dataset ledger yet)."
	if berr == nil {
		budgetText = budgetSentence(spent, budget)
		fl.left = budget - spent
		fl.showLower(req.Privacy.Epsilon)
	}
	intro := widget.NewLabel(fmt.Sprintf(
		"Compares h = 1…5 and k around k* by private validation: 30%% of the records are held out at random, each setting is "+
			"fitted on the rest and scored on them with simulated noise of your release (ε = %s), and the best score plus Laplace "+
			"noise wins. Only the choice is shown, never a score.\n\n"+
			"This spends the ε below from the dataset's budget now (recorded in the ledger before anything is computed); "+
			"the release later spends its own ε. %s", formatValue(req.Privacy.Epsilon), budgetText))
	intro.Wrapping = fyne.TextWrapWord
	content := container.NewVBox(intro,
		container.NewBorder(nil, nil, widget.NewLabel("ε spent by the choice:"), nil, fl.eps), splitNote(),
		bandwidths, parameters, mechanisms, fl.forecast, fl.lowerBox, fl.over, fl.stage, fl.progress)
	fl.progress.Hide()
	labels := []string{"Cancel", "Spend ε and choose"}
	cancelRun := func() bool {
		if fl.cancel != nil {
			fl.cancel() // chooseFinished reports it; the spend stays recorded
		}
		return true
	}
	fl.dialog = widgets.ShowDialog(c.win, "Choose h and k privately", widgets.DialogBody(fyne.NewSize(560, content.MinSize().Height+170), content),
		labels, []func() bool{cancelRun, func() bool {
			eps, err := parseEpsilon(fl.eps.Text)
			if err != nil {
				fl.stage.SetText("ε: " + err.Error())
				return false
			}
			if lowered, ok := fl.lowered(eps, req.Privacy.Epsilon); ok && fl.lower.Checked {
				// Before the choice: it scores the settings with the
				// noise of the release as it will be made.
				req.Privacy.Epsilon = lowered
				c.state.Epsilon = lowered
				delete(c.state.Typed, fieldEpsilon)
				c.refreshPages()
				c.changed()
			}
			fl.lower.Disable()
			fl.dialog.Button(labels[1]).Disable()
			fl.eps.Disable()
			fl.bandwidths.Disable()
			fl.parameters.Disable()
			fl.mechanisms.Disable()
			fl.progress.Show()
			fl.stage.SetText(fmt.Sprintf("Recording ε = %s in the ledger, then scoring the candidates …", formatValue(eps)))
			c.runChoose(fl, req, eps, fl.over.Checked, fl.options())
			return false
		}})
	if pp, ok := c.pages[stepPrivacy].(*privacyPage); ok {
		pp.chooseFlow = fl
	}
	c.planChoice(fl, req)
	return fl
}

// lowered returns the release's ε that fits beside a choice of ε eps in
// what is left of the budget (three significant digits, rounded down),
// and whether the release's ε relEps must be lowered to it: false when
// both fit, or when the choice leaves nothing (the budget check then
// speaks). The budget is a public ledger value, not data.
func (fl *chooseFlow) lowered(eps, relEps float64) (float64, bool) {
	if fl.left <= 0 || eps+relEps <= fl.left*(1+1e-12) {
		return 0, false
	}
	rest := fl.left - eps
	if rest <= 0 {
		return 0, false
	}
	p := math.Pow(10, math.Floor(math.Log10(rest))-2)
	v := math.Floor(rest/p*(1+1e-12)) * p
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	return v, v > 0
}

// showLower shows the offer to lower the release's ε when the choice's ε
// typed and the release's ε relEps do not both fit in the budget left.
func (fl *chooseFlow) showLower(relEps float64) {
	eps, err := parseEpsilon(fl.eps.Text)
	v, ok := fl.lowered(eps, relEps)
	if err != nil || !ok {
		fl.lowerBox.Hide()
		return
	}
	fl.lowerNote.SetText(fmt.Sprintf("The choice (ε = %s) and the release (ε = %s) do not both fit in the ε = %s left of "+
		"the budget: the release would then be refused. Lowering the release's ε to what the choice leaves makes both fit; "+
		"it is done before the choice, which then scores the settings with the noise of that ε.",
		formatValue(eps), formatValue(relEps), formatValue(fl.left)))
	fl.lower.Text = fmt.Sprintf("Lower the release's ε to %s", formatValue(v))
	fl.lower.Refresh()
	fl.lowerBox.Show()
}

// planChoice works out the candidates and β of the choice as the dialog
// stands (release.PreviewChoice, nothing spent) off the UI goroutine and
// shows the forecast; a newer plan supersedes an older one (UI goroutine).
func (c *curator) planChoice(fl *chooseFlow, req release.Request) {
	fl.planGen++
	gen, opt := fl.planGen, fl.options()
	fl.preview = nil
	fl.forecast.SetText("Working out the candidates and the selection noise (nothing is spent) …")
	go func() {
		pv, err := release.PreviewChoice(context.Background(), req, opt)
		widgets.Do(func() {
			defer func() { fl.planned <- struct{}{} }()
			if gen != fl.planGen {
				return
			}
			if err != nil {
				fl.forecast.SetText(fmt.Sprintf("The choice cannot be planned (nothing is spent): %v", err))
				return
			}
			fl.preview = pv
			fl.showForecast()
		})
	}()
}

// showForecast states the selection noise and the utility bound for the ε
// typed, before anything is spent (UI goroutine).
func (fl *chooseFlow) showForecast() {
	pv := fl.preview
	if pv == nil {
		return
	}
	eps, err := parseEpsilon(fl.eps.Text)
	if err != nil {
		fl.forecast.SetText("")
		return
	}
	random := pv.Selection.RandomWords(eps, pv.Gamma)
	if random != "" {
		random = " " + random
	}
	if words := pv.Selection.GeneralizedWords(eps, pv.Gamma); words != "" {
		fl.forecast.SetText(fmt.Sprintf("Before you spend: %d settings compared on %d training / %d validation records, at ε = %s. %s "+
			"Larger ε means less noise: the choice is only useful when the noise is small next to the differences between settings.%s",
			len(pv.Candidates), pv.TrainN, pv.ValidationN, formatValue(eps), words, random))
		return
	}
	fl.forecast.SetText(fmt.Sprintf(
		"Before you spend: %d settings compared on %d training / %d validation records; score sensitivity β = %.3g. "+
			"At ε = %s the selection noise is Laplace(%.3g), and with probability %g the chosen setting's %s is within "+
			"%.3g of the best (selection by report-noisy-max, one sensitivity for all). Larger ε means less noise: the choice "+
			"is only useful when this is small next to the differences between settings.%s",
		len(pv.Candidates), pv.TrainN, pv.ValidationN, pv.Beta, formatValue(eps), pv.Scale(eps), 1-pv.Gamma, release.ScoreWords(pv.ScoreKind),
		pv.UtilityBound(eps), random))
}

// runChoose runs release.ChooseSettings off the UI goroutine; widgets are
// touched only through widgets.Do.
func (c *curator) runChoose(fl *chooseFlow, req release.Request, eps float64, allowOver bool, opt release.ChooseOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	fl.cancel = cancel
	go func() {
		defer cancel()
		res, err := func() (*release.ChooseResult, error) {
			ledger, err := c.openLedger()
			if err != nil {
				return nil, err
			}
			opt.EpsilonSelect, opt.Ledger, opt.AllowOverBudget = eps, ledger, allowOver
			opt.Progress = func(done, total int) {
				widgets.Do(func() { fl.progress.SetValue(float64(done) / float64(total)) })
			}
			return release.ChooseSettings(ctx, req, opt)
		}()
		widgets.Do(func() { c.chooseFinished(fl, req, res, err) })
	}()
}

// chooseFinished fills the chosen h and k into the form and reports the
// spend (UI goroutine).
func (c *curator) chooseFinished(fl *chooseFlow, req release.Request, res *release.ChooseResult, err error) {
	defer close(fl.done)
	fl.res, fl.err = res, err
	fl.dialog.Hide()
	c.updateBudget()
	if err != nil {
		var be *ledger.BudgetError
		switch {
		case errors.As(err, &be):
			err = fmt.Errorf("nothing was chosen or spent: %w", err)
		case errors.Is(err, context.Canceled):
			err = fmt.Errorf("cancelled: nothing was chosen (%w)", err)
		}
		widgets.ShowError(c.win, fmt.Errorf("choose h and k privately: %w", err))
		return
	}
	chosen := c.applyChosenMechanism(req, res.Chosen, comparedMechanisms(res.Candidates))
	if bw := res.Chosen.Bandwidth; bw != nil {
		parts := make([]string, len(bw))
		for i, b := range bw {
			parts[i] = formatValue(b)
		}
		c.state.setParamText("bandwidth", strings.Join(parts, ", "))
		chosen += ", bandwidth = " + strings.Join(parts, ", ")
	}
	for _, name := range slices.Sorted(maps.Keys(res.Chosen.Params)) {
		text := formatValue(res.Chosen.Params[name][0])
		c.state.setParamText(name, text)
		chosen += ", " + name + " = " + text
	}
	c.refreshPages()
	c.changed()
	selection := fmt.Sprintf("Score sensitivity β = %.3g, selection noise Laplace(%.3g): with probability %g the chosen "+
		"setting's score is within %.3g of the best. When the noise is much larger than the differences between settings, "+
		"the choice is close to random.", res.Beta, res.Scale, 1-res.Gamma, res.UtilityBound)
	if words := res.Selection.GeneralizedWords(res.Epsilon, res.Gamma); words != "" {
		selection = words
	}
	if random := res.Selection.RandomWords(res.Epsilon, res.Gamma); random != "" {
		selection += " " + random
	}
	msg := fmt.Sprintf("Chosen: %s (filled into the form).\n\n"+
		"Spent ε = %s on this choice (ledger entry %s). The dataset has now spent ε %s of %s.\n\n"+
		"Compared %d settings on %d training and %d validation records. %s",
		chosen, formatValue(res.Epsilon), res.Entry.ID, fmtBudget(res.Spent), fmtBudget(res.Budget),
		len(res.Candidates), res.TrainN, res.ValidationN, selection)
	if res.Entry.OverBudget {
		msg += "\n\nThis choice exceeded the budget (allowed; recorded in the ledger)."
	}
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	fl.result = widgets.ShowDialog(c.win, "h and k chosen privately", widgets.DialogBody(fyne.NewSize(560, 260), l),
		[]string{"OK"}, []func() bool{nil})
	c.setStatus("Chose %s privately; spent ε = %s (ledger entry %s).", chosen, formatValue(res.Epsilon), res.Entry.ID)
}

// options returns the choice's options as the dialog stands (the
// bandwidth and parameter boxes; UI goroutine).
func (fl *chooseFlow) options() release.ChooseOptions {
	return release.ChooseOptions{Bandwidths: fl.bandwidths.Checked, Parameters: fl.parameters.Checked, Mechanisms: fl.mechanisms.Checked}
}

// mechanismsLabel is the mechanism box's text, mechanismsHint the
// wrapped line under it.
const (
	mechanismsLabel = "Also compare the other mechanisms this release can have"
	mechanismsHint  = "Other noise kinds, output perturbation (logistic regression), Wang et al.'s trigonometric release " +
		"(one-feature density) and Hall et al.'s GP (δ > 0, ε ≤ 1), each with the noise of its own release."
)

// checkWithHint returns the box check with hint wrapped under it: a box's
// own text does not wrap, so a long one would widen the dialog beyond the
// window (and a vertical-only scroll would cut every line on the right).
func checkWithHint(check fyne.CanvasObject, hint string) *fyne.Container {
	l := widget.NewLabel(hint)
	l.Wrapping = fyne.TextWrapWord
	l.TextStyle.Italic = true
	return container.NewVBox(check, container.NewBorder(nil, nil, widget.NewLabel("    "), nil, l))
}

// applyChosenMechanism sets the form to release the chosen candidate ch
// of a choice made for req (release.ApplyCandidate says what it means):
// the Mechanism selector, the noise kind and, for a Bernstein candidate or
// the GP's grid, h and k. It returns the choice in words (UI goroutine).
func (c *curator) applyChosenMechanism(req release.Request, ch release.Candidate, amongMechanisms bool) string {
	rel, kind := release.ApplyCandidate(req, ch)
	c.state.Mechanism = mechanismSetting(kind)
	c.state.Noise = rel.Privacy.Noise
	c.state.ChosenPrivately = true
	if !rel.KAuto {
		c.state.H, c.state.KAuto, c.state.K = rel.Privacy.H, false, rel.Privacy.K[0]
	}
	var chosen string
	switch {
	case kind == synopsis.MechanismBernstein && amongMechanisms:
		chosen = fmt.Sprintf("mechanism Bernstein, h = %d, k = %d", ch.H, ch.K) // it won against the others: say so
	case kind == synopsis.MechanismBernstein:
		chosen = fmt.Sprintf("h = %d, k = %d", ch.H, ch.K)
	case ch.KeepsK():
		chosen = fmt.Sprintf("mechanism %s, k = %d", preview.MechanismLabel(kind), ch.K)
	default:
		chosen = "mechanism " + preview.MechanismLabel(kind)
	}
	if rel.Privacy.Noise != req.Privacy.Noise {
		chosen += ", " + string(rel.Privacy.Noise) + " noise"
	}
	return chosen
}

// comparedMechanisms reports whether the candidates held other
// mechanisms than the Bernstein release (the mechanisms box).
func comparedMechanisms(cands []release.Candidate) bool {
	for _, c := range cands {
		if c.MechanismName() != synopsis.MechanismBernstein {
			return true
		}
	}
	return false
}

// learnerHasTuning reports whether the private choice can choose the
// learner's parameters besides a bandwidth (svm, logistic, ridge).
func learnerHasTuning(k learners.Kind) bool {
	return k == learners.KindSVM || k == learners.KindLogistic || k == learners.KindRidge
}

// parametersHint is the line under the parameter box for the learner.
func parametersHint(k learners.Kind) string {
	switch k {
	case learners.KindSVM:
		return "C among C/3, C, 3C and σ among σ/2, σ, 2σ (fewer h and k)"
	case learners.KindLogistic:
		return "C among C/3, C, 3C and the intercept feature among 0 and b (fewer h and k)"
	}
	return "C among C/10, C, 10C (fewer h and k)"
}

// learnerHasBandwidth reports whether the learner has a "bandwidth"
// parameter (the private choice can then also choose it).
func learnerHasBandwidth(k learners.Kind) bool {
	l, err := learners.Lookup(k)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(l.Spec().Params, func(p learners.ParamSpec) bool { return p.Name == "bandwidth" })
}
