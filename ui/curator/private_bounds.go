package curator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// privateBoundsFlow is one run of "Estimate privately…" for a column: the
// dialog that states the ε it will spend before spending it, the estimate
// off the UI goroutine, and the bounds filled into the form.
type privateBoundsFlow struct {
	col                   string
	dialog                *widgets.Dialog
	lo, hi, qlo, qhi, eps *widgets.KeyEntry
	over                  *widgets.KeyCheck
	forecast, stage       *widget.Label
	// done is closed when the run has finished and the form is updated
	// (tests wait on it).
	done chan struct{}
	res  *release.PrivateBoundsResult
	err  error
}

// privateBoundsInputs are the dialog's parsed entries.
type privateBoundsInputs struct {
	rng dataset.Bounds
	q   [2]float64
	eps float64
}

// parse reads the entries; the error names the entry and the rule.
func (fl *privateBoundsFlow) parse() (privateBoundsInputs, error) {
	var in privateBoundsInputs
	var err error
	if in.rng, err = parseBounds(&columnSetting{Lo: fl.lo.Text, Hi: fl.hi.Text}); err != nil {
		return in, fmt.Errorf("public range: %w", err)
	}
	for i, e := range []*widgets.KeyEntry{fl.qlo, fl.qhi} {
		v, err := parseNumber(e.Text)
		if err != nil {
			return in, fmt.Errorf("percentile: %w", err)
		}
		in.q[i] = v / 100
	}
	if !(in.q[0] > 0 && in.q[0] < in.q[1] && in.q[1] < 1) {
		return in, errors.New("percentiles: need 0 < lower < upper < 100")
	}
	if in.eps, err = parseEpsilon(fl.eps.Text); err != nil {
		return in, fmt.Errorf("ε: %w", err)
	}
	return in, nil
}

// showPrivateBoundsDialog opens "Estimate privately…" for col (UI
// goroutine). It states, before anything is spent, the ε it will spend
// (default release.DefaultBoundsShare of the dataset's budget, editable)
// and that it is recorded in the ledger first.
func (c *curator) showPrivateBoundsDialog(col string) *privateBoundsFlow {
	if c.ds == nil {
		widgets.ShowMessage(c.win, "No dataset", "Load a dataset on the Data step first.")
		return nil
	}
	fl := &privateBoundsFlow{col: col, done: make(chan struct{})}
	spent, _, budget, berr := c.budgetState()
	budgetText := "Budget: unknown (the ledger cannot be read)."
	defEps := release.DefaultBoundsShare
	if berr == nil {
		budgetText = budgetSentence(spent, budget)
		defEps = release.DefaultBoundsShare * budget
	}
	fl.lo, fl.hi, fl.qlo, fl.qhi, fl.eps = widgets.NewKeyEntry(false), widgets.NewKeyEntry(false), widgets.NewKeyEntry(false), widgets.NewKeyEntry(false), widgets.NewKeyEntry(false)
	fl.lo.SetPlaceHolder("e.g. 0")
	fl.hi.SetPlaceHolder("e.g. 10000000")
	if st := c.state.Bounds[col]; st != nil {
		if _, err := parseBounds(st); err == nil {
			fl.lo.SetText(st.Lo)
			fl.hi.SetText(st.Hi)
		}
	}
	fl.qlo.SetText(formatValue(release.DefaultBoundsQuantiles[0] * 100))
	fl.qhi.SetText(formatValue(release.DefaultBoundsQuantiles[1] * 100))
	fl.eps.SetText(formatValue(roundSig(defEps, 3)))
	fl.over = widgets.NewKeyCheck("Allow exceeding the budget (recorded in the ledger)", nil)
	fl.forecast = widget.NewLabel("")
	fl.forecast.Wrapping = fyne.TextWrapWord
	fl.stage = widget.NewLabel("")
	fl.stage.Wrapping = fyne.TextWrapWord
	for _, e := range []*widgets.KeyEntry{fl.lo, fl.hi, fl.qlo, fl.qhi, fl.eps} {
		e.OnChanged = func(string) { fl.showForecast(c.ds.Rows) }
	}
	intro := widget.NewLabel(fmt.Sprintf(
		"Estimates the bounds of %q as two percentiles of its values, with a differentially private quantile "+
			"(the exponential mechanism over the wide public range you give; docs/sensitivity.md). Give a range you know "+
			"without looking at the data, as wide as needed (an order of magnitude is fine); values outside it are clipped.\n\n"+
			"This spends the ε below from the dataset's budget now (recorded in the ledger as its own entry, kind "+
			"\"bounds\", before anything is computed), half for each end; the synopsis records the bounds as "+
			"estimated privately with that ε. %s", col, budgetText))
	intro.Wrapping = fyne.TextWrapWord
	form := container.NewVBox(intro,
		container.NewGridWithColumns(2,
			container.NewBorder(nil, nil, widget.NewLabel("public range from"), nil, fl.lo),
			container.NewBorder(nil, nil, widget.NewLabel("to"), nil, fl.hi)),
		container.NewGridWithColumns(2,
			container.NewBorder(nil, nil, widget.NewLabel("lower percentile"), nil, fl.qlo),
			container.NewBorder(nil, nil, widget.NewLabel("upper percentile"), nil, fl.qhi)),
		container.NewBorder(nil, nil, widget.NewLabel("ε spent on these bounds:"), nil, fl.eps), splitNote(),
		fl.forecast, fl.over, fl.stage)
	labels := []string{"Cancel", "Spend ε and estimate"}
	fl.dialog = widgets.ShowDialog(c.win, "Estimate the bounds of "+col+" privately",
		widgets.DialogBody(fyne.NewSize(580, form.MinSize().Height+160), form),
		labels, []func() bool{nil, func() bool {
			in, err := fl.parse()
			if err != nil {
				fl.stage.SetText(err.Error())
				return false
			}
			fl.dialog.Button(labels[1]).Disable()
			fl.dialog.Button(labels[0]).Disable()
			fl.stage.SetText(fmt.Sprintf("Recording ε = %s in the ledger, then estimating …", formatValue(in.eps)))
			c.runPrivateBounds(fl, in, fl.over.Checked)
			return false
		}})
	fl.showForecast(c.ds.Rows)
	return fl
}

// showForecast states, before anything is spent, what the ε typed buys:
// the ε per end and the penalty (ε/2)·min(q, 1−q)·n that decides whether
// an estimate lands among the data or in the empty part of the range
// (docs/sensitivity.md, "Privately estimated bounds"). n is public.
func (fl *privateBoundsFlow) showForecast(n int) {
	in, err := fl.parse()
	if err != nil {
		fl.forecast.SetText(err.Error())
		return
	}
	each := in.eps / 2
	q := min(in.q[0], 1-in.q[1])
	margin := each / 2 * q * float64(n)
	fl.forecast.SetText(fmt.Sprintf(
		"Before you spend: ε %s per end on n = %d records. An end is reliable when ε/2 × %s%% × n = %.3g is "+
			"well above ln(range width ÷ width of the data near that percentile) — %.3g if that is a millionth of the range. "+
			"When it is not, the estimate may land anywhere in the public range: raise ε, narrow the range or move the percentiles inward.",
		formatValue(roundSig(each, 3)), n, formatValue(q*100), margin, math.Log(1e6)))
}

// runPrivateBounds runs release.EstimatePrivateBounds off the UI
// goroutine; widgets are touched only through widgets.Do.
func (c *curator) runPrivateBounds(fl *privateBoundsFlow, in privateBoundsInputs, allowOver bool) {
	ds := c.ds
	// Charged to the ledger datasets of the release's records (its features
	// and label), as the release will be.
	idCols := slices.Clone(c.state.Features)
	if c.state.Label != "" {
		if _, err := ds.Column(c.state.Label); err == nil {
			idCols = append(idCols, c.state.Label)
		}
	}
	if !slices.Contains(idCols, fl.col) {
		idCols = append(idCols, fl.col)
	}
	// A binary label is identified by its declared classes, as the
	// release's identity does.
	var classes *dataset.Classes
	if cl, err := c.state.classes(); err == nil && c.state.spec().Label == learners.LabelBinary {
		classes = &cl
	}
	go func() {
		res, err := func() (*release.PrivateBoundsResult, error) {
			ledger, err := c.openLedger()
			if err != nil {
				return nil, err
			}
			return release.EstimatePrivateBounds(context.Background(), release.PrivateBoundsRequest{
				Dataset: ds, Ranges: map[string]dataset.Bounds{fl.col: in.rng}, Quantiles: in.q,
				Epsilon: in.eps, Ledger: ledger, AllowOverBudget: allowOver, Columns: idCols, Label: c.state.Label, Classes: classes,
			})
		}()
		widgets.Do(func() { c.privateBoundsFinished(fl, res, err) })
	}()
}

// privateBoundsFinished fills the estimates into the form, marked as
// estimated privately, and reports the spend (UI goroutine).
func (c *curator) privateBoundsFinished(fl *privateBoundsFlow, res *release.PrivateBoundsResult, err error) {
	defer close(fl.done)
	fl.res, fl.err = res, err
	if err := c.spendEnded(fl.dialog, err, "nothing was estimated or spent"); err != nil {
		widgets.ShowError(c.win, fmt.Errorf("estimate the bounds of %s privately: %w", fl.col, err))
		return
	}
	b, pv := res.Bounds[fl.col], res.Provenance[fl.col]
	b = roundPrivateBounds(b, pv.LoEstimate, pv.HiEstimate)
	if bp, ok := c.pages[stepBounds].(*boundsPage); ok {
		bp.fill(fl.col, b, synopsis.EndPrivate, pv.LoEstimate, pv.HiEstimate)
	} else {
		c.state.bound(fl.col).setEnds(fmtBound(b.Lo), fmtBound(b.Hi), synopsis.EndPrivate, pv.LoEstimate, pv.HiEstimate)
		c.changed()
	}
	c.setStatus("Estimated the bounds of %s privately: [%s, %s]; spent ε = %s (ledger entry %s).",
		fl.col, fmtBound(b.Lo), fmtBound(b.Hi), formatValue(res.Entry.Epsilon), res.Entry.ID)
}

// spendEnded closes the dialog of a run that may have spent ε and shows
// the budget as the ledger now has it; a refusal by the budget is
// reworded to say that nothing was spent (UI goroutine).
func (c *curator) spendEnded(d *widgets.Dialog, err error, nothingSpent string) error {
	d.Hide()
	c.updateBudget()
	if be := (*ledger.BudgetError)(nil); errors.As(err, &be) {
		return fmt.Errorf("%s: %w", nothingSpent, err)
	}
	return err
}

// roundPrivateBounds rounds privately estimated bounds outward to four
// significant digits of their width, each end kept within its public
// search range (a post-processing of the estimate: ε is unaffected), so
// the form shows 17.25 rather than 17.249913402816733.
func roundPrivateBounds(b dataset.Bounds, loEst, hiEst *synopsis.PrivateEnd) dataset.Bounds {
	w := b.Hi - b.Lo
	if !(w > 0) || math.IsInf(w, 0) {
		return b
	}
	decimals := 3 - int(math.Floor(math.Log10(w)))
	round := func(x float64, f func(float64) float64, est *synopsis.PrivateEnd) float64 {
		scale := math.Pow(10, float64(decimals))
		r, err := strconv.ParseFloat(strconv.FormatFloat(f(x*scale)/scale, 'f', max(decimals, 0), 64), 64)
		if err != nil || math.IsInf(r, 0) {
			return x
		}
		if est != nil && (r < est.RangeLo || r > est.RangeHi) {
			return x
		}
		return r
	}
	out := dataset.Bounds{Lo: round(b.Lo, math.Floor, loEst), Hi: round(b.Hi, math.Ceil, hiEst)}
	if out.Validate() != nil {
		return b
	}
	return out
}
