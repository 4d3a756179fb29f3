package ui

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project"
)

// chooseFlow is one run of "Choose h and k privately…": the dialog that
// states and edits the ε it will spend, the progress while the candidates
// are scored off the UI goroutine, and the result dialog.
type chooseFlow struct {
	dialog   *curatorDialog
	eps      *widget.Entry
	over     *widget.Check
	progress *widget.ProgressBar
	stage    *widget.Label
	// forecast states, before anything is spent, the selection noise and
	// the utility bound for the ε typed (from project.PreviewChoice, run
	// off the UI goroutine when the dialog opens).
	forecast *widget.Label
	preview  *project.ChoicePreview
	// planned is closed when the preview has finished (tests wait on it).
	planned chan struct{}
	result  *curatorDialog
	// done is closed when the run has finished and the form is updated
	// (tests wait on it).
	done chan struct{}
	res  *project.ChooseResult
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
		dialog.ShowError(fmt.Errorf("not ready to choose h and k: %w", err), c.win)
		return nil
	}
	fl := &chooseFlow{done: make(chan struct{}), planned: make(chan struct{})}
	fl.eps = widget.NewEntry()
	fl.eps.SetText(formatValue(roundSig(req.Privacy.Epsilon*chooseDefaultShare, 3)))
	fl.eps.Validator = func(s string) error { _, err := parseEpsilon(s); return err }
	fl.over = widget.NewCheck("Allow exceeding the budget (recorded in the ledger)", nil)
	fl.progress = widget.NewProgressBar()
	fl.forecast = widget.NewLabel("Working out the candidates and the selection noise (nothing is spent) …")
	fl.forecast.Wrapping = fyne.TextWrapWord
	fl.eps.OnChanged = func(string) { fl.showForecast() }
	fl.stage = widget.NewLabel("")
	fl.stage.Wrapping = fyne.TextWrapWord
	spent, _, budget, berr := c.budgetState()
	budgetText := "Budget: unknown (no dataset ledger yet)."
	if berr == nil {
		budgetText = fmt.Sprintf("Budget of this dataset: ε %s spent of %s.", fmtBudget(spent), fmtBudget(budget))
	}
	intro := widget.NewLabel(fmt.Sprintf(
		"Compares h = 1…5 and k around k* by private validation: 30%% of the records are held out at random, each setting is "+
			"fitted on the rest and scored on them with simulated noise of your release (ε = %s), and the best score plus Laplace "+
			"noise wins. Only the choice is shown, never a score.\n\n"+
			"This spends the ε below from the dataset's budget now (recorded in the ledger before anything is computed); "+
			"the release later spends its own ε. %s", formatValue(req.Privacy.Epsilon), budgetText))
	intro.Wrapping = fyne.TextWrapWord
	content := container.NewVBox(intro,
		container.NewBorder(nil, nil, widget.NewLabel("ε spent by the choice:"), nil, fl.eps),
		fl.forecast, fl.over, fl.stage, fl.progress)
	fl.progress.Hide()
	labels := []string{"Cancel", "Spend ε and choose"}
	fl.dialog = showCuratorDialog(c.win, "Choose h and k privately", container.NewGridWrap(fyne.NewSize(560, content.MinSize().Height+170), content),
		labels, []func() bool{nil, func() bool {
			eps, err := parseEpsilon(fl.eps.Text)
			if err != nil {
				fl.stage.SetText("ε: " + err.Error())
				return false
			}
			fl.dialog.button(labels[1]).Disable()
			fl.eps.Disable()
			fl.progress.Show()
			fl.stage.SetText(fmt.Sprintf("Recording ε = %s in the ledger, then scoring the candidates …", formatValue(eps)))
			c.runChoose(fl, req, eps, fl.over.Checked)
			return false
		}})
	if pp, ok := c.pages[stepPrivacy].(*privacyPage); ok {
		pp.chooseFlow = fl
	}
	go func() {
		pv, err := project.PreviewChoice(context.Background(), req, project.ChooseOptions{})
		uiDo(func() {
			defer close(fl.planned)
			if err != nil {
				fl.forecast.SetText(fmt.Sprintf("The choice cannot be planned (nothing is spent): %v", err))
				return
			}
			fl.preview = pv
			fl.showForecast()
		})
	}()
	return fl
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
	fl.forecast.SetText(fmt.Sprintf(
		"Before you spend: %d settings compared on %d training / %d validation records; score sensitivity β = %.3g. "+
			"At ε = %s the selection noise is Laplace(%.3g), and with probability %g the chosen setting's %s score is within "+
			"%.3g of the best. Larger ε means less noise: the choice is only useful when this is small next to the "+
			"differences between settings.",
		len(pv.Candidates), pv.TrainN, pv.ValidationN, pv.Beta, formatValue(eps), pv.Scale(eps), 1-pv.Gamma, pv.ScoreKind,
		pv.UtilityBound(eps)))
}

// runChoose runs project.ChooseSettings off the UI goroutine; widgets are
// touched only through uiDo.
func (c *curator) runChoose(fl *chooseFlow, req project.ReleaseRequest, eps float64, allowOver bool) {
	go func() {
		res, err := func() (*project.ChooseResult, error) {
			ledger, err := c.openLedger()
			if err != nil {
				return nil, err
			}
			return project.ChooseSettings(context.Background(), req, project.ChooseOptions{
				EpsilonSelect: eps, Ledger: ledger, AllowOverBudget: allowOver,
				Progress: func(done, total int) {
					uiDo(func() { fl.progress.SetValue(float64(done) / float64(total)) })
				},
			})
		}()
		uiDo(func() { c.chooseFinished(fl, res, err) })
	}()
}

// chooseFinished fills the chosen h and k into the form and reports the
// spend (UI goroutine).
func (c *curator) chooseFinished(fl *chooseFlow, res *project.ChooseResult, err error) {
	defer close(fl.done)
	fl.res, fl.err = res, err
	fl.dialog.Hide()
	c.updateBudget()
	if err != nil {
		var be *project.BudgetError
		if errors.As(err, &be) {
			err = fmt.Errorf("nothing was chosen or spent: %w", err)
		}
		dialog.ShowError(fmt.Errorf("choose h and k privately: %w", err), c.win)
		return
	}
	c.state.H = res.Chosen.H
	c.state.KAuto = false
	c.state.K = res.Chosen.K
	c.refreshPages()
	c.changed()
	msg := fmt.Sprintf("Chosen: h = %d, k = %d (filled into the form).\n\n"+
		"Spent ε = %s on this choice (ledger entry %s). The dataset has now spent ε %s of %s.\n\n"+
		"Compared %d settings on %d training and %d validation records. Score sensitivity β = %.3g, selection noise "+
		"Laplace(%.3g): with probability %g the chosen setting's score is within %.3g of the best. When the noise is "+
		"much larger than the differences between settings, the choice is close to random.",
		res.Chosen.H, res.Chosen.K, formatValue(res.Epsilon), res.Entry.ID, fmtBudget(res.Spent), fmtBudget(res.Budget),
		len(res.Candidates), res.TrainN, res.ValidationN, res.Beta, res.Scale, 1-res.Gamma, res.UtilityBound)
	if res.Entry.OverBudget {
		msg += "\n\nThis choice exceeded the budget (allowed; recorded in the ledger)."
	}
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	fl.result = showCuratorDialog(c.win, "h and k chosen privately", container.NewGridWrap(fyne.NewSize(560, 260), l),
		[]string{"OK"}, []func() bool{nil})
	c.setStatus("Chose h = %d, k = %d privately; spent ε = %s (ledger entry %s).", res.Chosen.H, res.Chosen.K, formatValue(res.Epsilon), res.Entry.ID)
}
