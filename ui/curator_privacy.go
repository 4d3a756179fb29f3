package ui

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// privacyPage sets ε (log slider + entry), δ where it applies, the noise
// kind, h and k, and shows the dataset's remaining budget.
type privacyPage struct {
	c        *curator
	box      fyne.CanvasObject
	epsSlide *widget.Slider
	epsEntry *widget.Entry
	reading  *widget.Label
	noise    *widget.Select
	deltaRow *fyne.Container
	delta    *widget.Entry
	h        *widget.Select
	kMode    *widget.RadioGroup
	kEntry   *widget.Entry
	kInUse   *widget.Label
	budget   *widget.Label
	total    *widget.Entry
	setTotal *widget.Button
	// choose opens "Choose h and k privately…" (curator_choose.go);
	// chooseFlow is its latest run.
	choose     *widget.Button
	chooseFlow *chooseFlow
}

// ε slider range: log10 ε from −3 to 2 (ε from 0.001 to 100).
const (
	epsLogMin = -3
	epsLogMax = 2
	kAutoText = "Automatic (k* of Section 4.1)"
	kManText  = "Manual"
)

var noiseChoices = []struct {
	kind  mechanism.NoiseKind
	label string
}{
	{mechanism.NoiseLaplace, "Laplace: pure ε-DP (Algorithm 1)"},
	{mechanism.NoiseLaplaceApprox, "Laplace: (ε, δ)-DP (Section 4.2)"},
	{mechanism.NoiseGaussian, "Gaussian: (ε, δ)-DP"},
}

func newPrivacyPage(c *curator) *privacyPage {
	p := &privacyPage{c: c}
	p.epsSlide = widget.NewSlider(epsLogMin, epsLogMax)
	p.epsSlide.Step = 0.01
	p.epsEntry = widget.NewEntry()
	p.epsEntry.Validator = func(s string) error { _, err := parseEpsilon(s); return err }
	p.reading = widget.NewLabel("")
	p.reading.Wrapping = fyne.TextWrapWord
	p.epsSlide.OnChanged = func(v float64) {
		if c.syncing {
			return
		}
		eps := roundSig(math.Pow(10, v), 3)
		c.state.Epsilon = eps
		c.syncing = true
		p.epsEntry.SetText(formatValue(eps))
		c.syncing = false
		p.updateReading()
		c.changed()
	}
	p.epsEntry.OnChanged = func(s string) {
		if c.syncing {
			return
		}
		eps, err := parseEpsilon(s)
		if err != nil {
			return
		}
		c.state.Epsilon = eps
		c.syncing = true
		p.epsSlide.SetValue(math.Max(epsLogMin, math.Min(epsLogMax, math.Log10(eps))))
		c.syncing = false
		p.updateReading()
		c.changed()
	}
	var labels []string
	for _, n := range noiseChoices {
		labels = append(labels, n.label)
	}
	p.noise = widget.NewSelect(labels, func(s string) {
		if c.syncing {
			return
		}
		for _, n := range noiseChoices {
			if n.label == s {
				c.state.Noise = n.kind
			}
		}
		p.updateDelta()
		p.updateReading()
		c.changed()
	})
	p.delta = widget.NewEntry()
	p.delta.Validator = func(s string) error { _, err := parseDelta(s); return err }
	p.delta.OnChanged = func(s string) {
		if c.syncing {
			return
		}
		d, err := parseDelta(s)
		if err != nil {
			return
		}
		c.state.Delta = d
		p.updateReading()
		c.changed()
	}
	deltaHelp := widget.NewLabel("δ is the probability that the ε guarantee fails. Keep it far below 1/n (e.g. 1e-6).")
	deltaHelp.Wrapping = fyne.TextWrapWord
	deltaHelp.TextStyle.Italic = true
	p.deltaRow = container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("δ"), nil, p.delta), deltaHelp)

	var hs []string
	for h := 1; h <= mechanism.MaxH; h++ {
		hs = append(hs, strconv.Itoa(h))
	}
	p.h = widget.NewSelect(hs, func(s string) {
		if c.syncing {
			return
		}
		c.state.H, _ = strconv.Atoi(s)
		c.changed()
	})
	p.kMode = widget.NewRadioGroup([]string{kAutoText, kManText}, func(s string) {
		if c.syncing {
			return
		}
		c.state.KAuto = s != kManText
		p.updateK()
		c.changed()
	})
	p.kEntry = widget.NewEntry()
	p.kEntry.Validator = func(s string) error { _, err := parseK(s); return err }
	p.kEntry.OnChanged = func(s string) {
		if c.syncing {
			return
		}
		k, err := parseK(s)
		if err != nil {
			return
		}
		c.state.K = k
		c.changed()
	}
	p.kInUse = widget.NewLabel("")
	p.choose = widget.NewButton("Choose h and k privately…", func() { c.showChooseDialog() })
	p.budget = widget.NewLabel("")
	p.budget.Wrapping = fyne.TextWrapWord
	p.budget.TextStyle = fyne.TextStyle{Bold: true}
	p.total = widget.NewEntry()
	p.total.SetPlaceHolder("total ε for this dataset")
	p.total.Validator = func(s string) error { _, err := parseEpsilon(s); return err }
	p.setTotal = widget.NewButton("Set total budget", p.setBudget)

	help := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.TextStyle.Italic = true
		return l
	}
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	p.box = container.NewVScroll(container.NewPadded(container.NewVBox(
		bold("Privacy loss ε"),
		container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(110, p.epsEntry.MinSize().Height), p.epsEntry), p.epsSlide),
		p.reading,
		help("Smaller ε means stronger privacy and more noise. The slider is logarithmic, from 0.001 to 100; type any positive value in the box."),
		bold("Noise"), p.noise,
		help("Pure ε-DP is the strongest guarantee. The (ε, δ) variants can add less noise when there are many coefficients, at the price of a small failure probability δ."),
		p.deltaRow,
		bold("Order h of the iterated Bernstein polynomial"), p.h,
		help("Higher h approximates smooth functions better (error ∝ k^−h) but amplifies noise (by up to (2^h−1)^ℓ). The tradeoff plot compares h = 1…5."),
		bold("Lattice size k (points per axis minus one)"), p.kMode,
		container.NewBorder(nil, nil, widget.NewLabel("k ="), nil, p.kEntry), p.kInUse,
		help("Larger k follows F_D more closely but spreads ε over (k+1)^ℓ noisy values. Automatic k balances the two (k* = (ε/(S·ln(1/β)))^(1/(h+ℓ)), β = 0.05)."),
		p.choose,
		help("Recommended: chooses h and k from the data by private validation (docs/validation.md), so the choice is covered by DP; it spends its own ε from the budget, shown before you confirm. Settings picked by looking at the preview of the private data are not covered by ε."),
		widget.NewSeparator(),
		bold("Privacy budget of this dataset"), p.budget,
		container.NewBorder(nil, nil, nil, p.setTotal, p.total),
		help("Every release spends its ε from the dataset's total budget (sequential composition: the ε of all releases add up). The ledger records each release before its file is written."),
	)))
	return p
}

func (p *privacyPage) content() fyne.CanvasObject { return p.box }

func (p *privacyPage) refresh() {
	s := p.c.state
	p.epsEntry.SetText(formatValue(s.Epsilon))
	p.epsSlide.SetValue(math.Max(epsLogMin, math.Min(epsLogMax, math.Log10(s.Epsilon))))
	for _, n := range noiseChoices {
		if n.kind == s.Noise {
			p.noise.SetSelected(n.label)
		}
	}
	p.delta.SetText(formatValue(s.Delta))
	p.h.SetSelected(strconv.Itoa(s.H))
	if s.KAuto {
		p.kMode.SetSelected(kAutoText)
	} else {
		p.kMode.SetSelected(kManText)
	}
	p.kEntry.SetText(strconv.Itoa(s.K))
	p.updateK()
	p.updateDelta()
	p.updateReading()
}

func (p *privacyPage) updateReading() {
	s := p.c.state
	p.reading.SetText(epsilonReading(s.Epsilon, s.Delta, s.Noise))
}

func (p *privacyPage) updateDelta() {
	if p.c.state.Noise == mechanism.NoiseLaplace {
		p.deltaRow.Hide()
	} else {
		p.deltaRow.Show()
	}
}

func (p *privacyPage) updateK() {
	if p.c.state.KAuto {
		p.kEntry.Disable()
	} else {
		p.kEntry.Enable()
	}
}

// showK displays the k the preview used.
func (p *privacyPage) showK(r *previewResult) {
	mode := "chosen by you"
	if p.c.state.KAuto {
		mode = "automatic"
	}
	p.kInUse.SetText(fmt.Sprintf("k in use: %s (%s), %d noisy coefficients", kLabel(r.K), mode, latticeCount(r.K)))
}

// updateBudget shows the dataset's spent and remaining budget.
func (p *privacyPage) updateBudget(spent, budget float64) {
	left := budget - spent
	s := fmt.Sprintf("Spent ε = %s of %s; %s left.", fmtBudget(spent), fmtBudget(budget), fmtBudget(math.Max(left, 0)))
	if p.c.state.Epsilon > left+1e-12 {
		s += fmt.Sprintf(" A release with ε = %s would exceed it.", formatValue(p.c.state.Epsilon))
	}
	p.budget.SetText(s)
	if p.total.Text == "" {
		p.total.SetText(formatValue(budget))
	}
}

// setBudget records a new total budget for the dataset in the ledger.
func (p *privacyPage) setBudget() {
	c := p.c
	eps, err := parseEpsilon(p.total.Text)
	if err != nil {
		dialog.ShowError(fmt.Errorf("total budget: %w", err), c.win)
		return
	}
	if c.ds == nil {
		dialog.ShowError(errors.New("open a dataset first: the budget belongs to a dataset"), c.win)
		return
	}
	l, err := c.openLedger()
	if err != nil {
		dialog.ShowError(err, c.win)
		return
	}
	if err := l.SetBudget(c.ledgerKey(l), eps); err != nil {
		dialog.ShowError(err, c.win)
		return
	}
	c.setStatus("Total privacy budget for this dataset set to ε = %s (recorded in the ledger).", formatValue(eps))
	c.updateBudget()
}

// parseEpsilon parses a positive, finite ε.
func parseEpsilon(s string) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if !(v > 0) {
		return 0, fmt.Errorf("ε = %s: must be > 0", formatValue(v))
	}
	return v, nil
}

// parseDelta parses δ ∈ (0, 1).
func parseDelta(s string) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if !(v > 0 && v < 1) {
		return 0, fmt.Errorf("δ = %s: must be between 0 and 1 (exclusive)", formatValue(v))
	}
	return v, nil
}

// parseK parses a manual k (1 … mechanism.MaxK).
func parseK(s string) (int, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < 1 || v > mechanism.MaxK {
		return 0, fmt.Errorf("k = %s: must be a whole number from 1 to %d", formatValue(v), mechanism.MaxK)
	}
	return int(v), nil
}

// roundSig rounds x to n significant digits (slider values).
func roundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return v
}
