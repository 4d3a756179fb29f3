package curator

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
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
	// epsErr is the rule an invalid ε breaks, or the warning that ε
	// exceeds the budget left (derived in derive).
	epsErr   *widget.Label
	budget   *widget.Label
	total    *widget.Entry
	setTotal *widget.Button
	// choose opens "Choose h and k privately…" (choose.go);
	// chooseFlow is its latest run.
	choose     *widget.Button
	chooseFlow *chooseFlow
	// target is "Error I can accept" (target.go).
	target *targetPanel
	// mech is the Mechanism selector (mechanism.go).
	mech *mechanismRow
}

// ε slider range: log10 ε from −3 to 2 (ε from 0.001 to 100).
const (
	epsLogMin = -3
	epsLogMax = 2
	kAutoText = "Automatic (least predicted error)"
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
	p.epsEntry.Validator = privacyFields[0].parse
	p.epsEntry.AlwaysShowValidationError = true
	p.reading = widget.NewLabel("")
	p.reading.Wrapping = fyne.TextWrapWord
	p.epsErr = widget.NewLabel("")
	p.epsErr.Wrapping = fyne.TextWrapWord
	p.epsErr.Importance = widget.DangerImportance
	p.epsErr.Hide()
	// The slider and the entry edit the same state field; each writes
	// the other without callbacks of its own (so neither needs fill).
	p.epsSlide.OnChanged = func(v float64) {
		if math.Abs(v-epsSliderValue(c.state.Epsilon)) < p.epsSlide.Step/2 && c.state.Typed[fieldEpsilon] == "" {
			return // the slider only followed the state
		}
		eps := roundSig(math.Pow(10, v), 3)
		c.state.Epsilon = eps
		delete(c.state.Typed, fieldEpsilon)
		p.epsEntry.SetText(formatValue(eps))
		c.changed()
	}
	p.epsEntry.OnChanged = func(s string) {
		if c.state.setTyped(fieldEpsilon, s, privacyFields[0].parse) == nil {
			c.state.Epsilon, _ = parseEpsilon(s)
			p.epsSlide.Value = epsSliderValue(c.state.Epsilon)
			p.epsSlide.Refresh()
		}
		c.changed()
	}
	var labels []string
	for _, n := range noiseChoices {
		labels = append(labels, n.label)
	}
	p.noise = widget.NewSelect(labels, func(s string) {
		for _, n := range noiseChoices {
			if n.label == s {
				c.state.Noise = n.kind
			}
		}
		c.changed()
	})
	p.delta = widget.NewEntry()
	p.delta.Validator = privacyFields[1].parse
	p.delta.AlwaysShowValidationError = true
	p.delta.OnChanged = func(s string) {
		if c.state.setTyped(fieldDelta, s, privacyFields[1].parse) == nil {
			c.state.Delta, _ = parseDelta(s)
		}
		c.changed()
	}
	deltaHelp := widget.NewLabel("δ is the probability that the ε guarantee fails. Keep it far below 1/n (e.g. 1e-6). " + privacywords.FieldDirection("δ") + ".")
	deltaHelp.Wrapping = fyne.TextWrapWord
	deltaHelp.TextStyle.Italic = true
	p.deltaRow = container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("δ"), nil, p.delta), deltaHelp)

	var hs []string
	for h := 1; h <= mechanism.MaxH; h++ {
		hs = append(hs, strconv.Itoa(h))
	}
	p.h = widget.NewSelect(hs, func(s string) {
		c.edit(func() {
			if h, err := strconv.Atoi(s); err == nil && h != c.state.H {
				c.state.H = h
				c.state.ChosenPrivately = false
			}
		})
	})
	p.kMode = widget.NewRadioGroup([]string{kAutoText, kManText}, func(s string) {
		if s == "" {
			return // a radio group deselected by a second tap keeps the mode
		}
		c.edit(func() {
			if auto := s != kManText; auto != c.state.KAuto {
				c.state.KAuto = auto
				c.state.ChosenPrivately = false
			}
		})
	})
	p.kEntry = widget.NewEntry()
	p.kEntry.Validator = privacyFields[2].parse
	p.kEntry.AlwaysShowValidationError = true
	p.kEntry.OnChanged = func(s string) {
		if c.state.setTyped(fieldK, s, privacyFields[2].parse) == nil {
			k, _ := parseK(s)
			c.edit(func() {
				if k != c.state.K {
					c.state.K = k
					c.state.ChosenPrivately = false
				}
			})
			return
		}
		c.changed()
	}
	p.kInUse = widget.NewLabel("")
	p.kInUse.Wrapping = fyne.TextWrapWord
	p.choose = widget.NewButton("Choose h and k privately…", func() { c.showChooseDialog() })
	p.target = newTargetPanel(c)
	p.budget = widget.NewLabel("")
	p.budget.Wrapping = fyne.TextWrapWord
	p.budget.TextStyle = fyne.TextStyle{Bold: true}
	p.total = widget.NewEntry()
	p.total.SetPlaceHolder("total ε for this dataset")
	p.total.Validator = func(s string) error { _, err := parseEpsilon(s); return err }
	p.total.AlwaysShowValidationError = true
	p.setTotal = widget.NewButton("Set total budget", p.setBudget)
	// An invalid total is marked as typed and cannot be set (issue 18,
	// item 1: invalid input marks itself and blocks).
	p.total.OnChanged = func(s string) {
		if _, err := parseEpsilon(s); err != nil {
			p.setTotal.Disable()
		} else {
			p.setTotal.Enable()
		}
	}

	help := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.TextStyle.Italic = true
		return l
	}
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	p.mech = newMechanismRow(c)
	p.box = widgets.VScroll(container.NewPadded(container.NewVBox(
		bold("Privacy loss ε"),
		container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(110, p.epsEntry.MinSize().Height), p.epsEntry),
			container.NewVBox(p.epsSlide, sliderDirection())),
		p.epsErr, p.reading,
		help("Smaller ε means stronger privacy and more noise. The slider is logarithmic, from 0.001 to 100; type any positive value in the box."),
		p.target.box,
		bold("Noise"), container.New(capWidth(300), p.noise),
		help("Pure ε-DP is the strongest guarantee. The (ε, δ) variants can add less noise when there are many coefficients, at the price of a small failure probability δ."),
		p.deltaRow,
		bold("Order h of the iterated Bernstein polynomial"), p.h,
		help("Higher h approximates smooth functions better (error ∝ k^−h) but amplifies noise (by up to (2^h−1)^ℓ). The tradeoff plot compares h = 1…5."),
		bold("Lattice size k (points per axis minus one)"), p.kMode,
		container.NewBorder(nil, nil, widget.NewLabel("k ="), nil, p.kEntry), p.kInUse,
		help("Larger k follows F_D more closely but spreads ε over (k+1)^ℓ noisy values. Automatic k balances the two: it takes the k with the least predicted error for a function as smooth as the learner's parameters allow (public quantities only; the preview draws it at every ε)."),
		p.choose,
		help("Recommended: chooses h and k from the data by private validation (docs/validation.md), so the choice is covered by DP; it spends its own ε from the budget, shown before you confirm. Settings picked by looking at the preview of the private data are not covered by ε."),
		bold("Mechanism"), container.New(capWidth(300), p.mech.sel), p.mech.rule, p.mech.recomm,
		help("Bernstein releases any learner; a published peer (docs/peers.md) applies to some learners and settings only. The preview recommends the one with the least simulated error at your ε and δ."),
		widget.NewSeparator(),
		bold("Privacy budget of this dataset"), p.budget,
		container.NewBorder(nil, nil, nil, p.setTotal, p.total),
		help("Every release spends its ε from the dataset's total budget (sequential composition: the ε of all releases add up). The ledger records each release before its file is written. "+
			privacywords.FieldDirection("total")+"."),
	)))
	return p
}

func (p *privacyPage) content() fyne.CanvasObject { return p.box }

// sliderDirection is the direction mark under a privacy slider: its left
// end is more private, its right end more accurate.
func sliderDirection() fyne.CanvasObject {
	l := widget.NewLabel(privacywords.DirectionPrivate)
	r := widget.NewLabel(privacywords.DirectionAccurate)
	l.SizeName, r.SizeName = theme.SizeNameCaptionText, theme.SizeNameCaptionText
	return container.NewBorder(nil, nil, l, r)
}

// refresh fills the inputs from the state (typed text that does not
// parse is shown as typed).
func (p *privacyPage) refresh() {
	s := p.c.state
	p.epsEntry.SetText(typedOr(s, fieldEpsilon, formatValue(s.Epsilon)))
	p.epsSlide.Value = epsSliderValue(s.Epsilon)
	p.epsSlide.Refresh()
	for _, n := range noiseChoices {
		if n.kind == s.Noise {
			p.noise.SetSelected(n.label)
		}
	}
	p.delta.SetText(typedOr(s, fieldDelta, formatValue(s.Delta)))
	p.h.SetSelected(strconv.Itoa(s.H))
	if s.KAuto {
		p.kMode.SetSelected(kAutoText)
	} else {
		p.kMode.SetSelected(kManText)
	}
	p.kEntry.SetText(typedOr(s, fieldK, strconv.Itoa(s.K)))
	p.derive()
}

// typedOr is the text of a privacy field: as typed if it does not parse,
// else the state's value.
func typedOr(s *curatorState, field, value string) string {
	if t, ok := s.Typed[field]; ok {
		return t
	}
	return value
}

// epsSliderValue is the slider position of ε (log10, clamped).
func epsSliderValue(eps float64) float64 {
	return math.Max(epsLogMin, math.Min(epsLogMax, math.Log10(eps)))
}

// derive updates everything the page shows that follows from the state:
// the marks, the reading of ε, δ's row, k's entry and the k in use, and
// the budget warning (called by curator.derive after every change).
func (p *privacyPage) derive() {
	c := p.c
	s := c.state
	for _, e := range []*widget.Entry{p.epsEntry, p.delta, p.kEntry} {
		e.Validate()
	}
	var problems []string
	if t, ok := s.Typed[fieldEpsilon]; ok {
		problems = append(problems, "Not used: "+privacyFields[0].parse(t).Error()+". Nothing is previewed or released until ε is a positive number.")
		p.reading.SetText("")
		p.reading.Hide()
	} else {
		p.reading.SetText(privacywords.Reading(s.Epsilon, s.Delta, s.Noise))
		p.reading.Show()
		if c.budgetKnown && s.Epsilon > c.budgetLeft()+1e-12 {
			problems = append(problems, fmt.Sprintf("ε = %s exceeds the budget left for this dataset (%s): the release will be refused unless you raise the budget below or release over it explicitly.",
				formatValue(s.Epsilon), fmtBudget(math.Max(c.budgetLeft(), 0))))
		}
	}
	p.epsErr.SetText(strings.Join(problems, "\n"))
	p.epsErr.Hidden = len(problems) == 0
	p.epsErr.Refresh()
	if s.Noise == mechanism.NoiseLaplace {
		p.deltaRow.Hide()
	} else {
		p.deltaRow.Show()
	}
	if s.KAuto {
		p.kEntry.Disable()
	} else {
		p.kEntry.Enable()
	}
	p.kInUse.SetText(kInUseText(s, c.preview.lastFor(s, c.ds)))
	p.target.derive()
	p.mech.derive(c.preview.lastFor(s, c.ds))
	if c.budgetKnown {
		p.showBudget(c.budgetSpent, c.budgetTotal)
	}
}

// kInUseText says which k the current settings use: the preview's k when
// the preview is of the current settings, else what the state asks for.
func kInUseText(s *curatorState, r *preview.Result) string {
	mode := "automatic"
	if !s.KAuto {
		mode = "chosen by you"
		if s.ChosenPrivately {
			mode = "chosen privately"
		}
		if t, ok := s.Typed[fieldK]; ok {
			return "k in use: none: " + privacyFields[2].parse(t).Error()
		}
		k := slices.Repeat([]int{s.K}, max(len(s.Features), 1))
		return fmt.Sprintf("k in use: %s (%s), %d noisy coefficients", preview.KLabel(k), mode, latticeCount(k))
	}
	if r == nil {
		return "k in use: automatic (shown once the preview has run)"
	}
	return fmt.Sprintf("k in use: %s (%s), %d noisy coefficients", preview.KLabel(r.K), mode, latticeCount(r.K))
}

// showBudget shows the dataset's spent and remaining budget.
func (p *privacyPage) showBudget(spent, budget float64) {
	left := budget - spent
	s := fmt.Sprintf("Spent ε = %s of %s; %s left. %s", fmtBudget(spent), fmtBudget(budget), fmtBudget(math.Max(left, 0)), privacywords.BudgetLeft(left))
	if _, typed := p.c.state.Typed[fieldEpsilon]; !typed && p.c.state.Epsilon > left+1e-12 {
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
		widgets.ShowError(c.win, fmt.Errorf("total budget: %w", err))
		return
	}
	if c.ds == nil {
		widgets.ShowError(c.win, errors.New("open a dataset first: the budget belongs to a dataset"))
		return
	}
	l, err := c.openLedger()
	if err != nil {
		widgets.ShowError(c.win, err)
		return
	}
	if err := l.SetBudget(c.ledgerKey(l), eps); err != nil {
		widgets.ShowError(c.win, err)
		return
	}
	c.setStatus("Total privacy budget for this dataset set to ε = %s (recorded in the ledger).", formatValue(eps))
	c.updateBudget()
}

// parseEpsilon parses an ε (a release's, a step's or a total budget's) by
// the one rule of every ε, mechanism.ValidateEpsilon.
func parseEpsilon(s string) (float64, error) {
	return parseByRule(s, "ε", mechanism.ValidateEpsilon)
}

// parseDelta parses the δ of an (ε, δ) release by mechanism's rule for δ
// with noise that has one (mechanism.ValidateDelta: δ ∈ (0,1)).
func parseDelta(s string) (float64, error) {
	return parseByRule(s, "δ", func(v float64) error { return mechanism.ValidateDelta(v, mechanism.NoiseGaussian) })
}

// parseByRule parses a number (parseNumber) and checks it by a mechanism
// rule, worded for the field symbol (ruleError).
func parseByRule(s, symbol string, rule func(float64) error) (float64, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if err := rule(v); err != nil {
		return 0, ruleError(symbol, v, err)
	}
	return v, nil
}

// parseK parses a manual k, the same on every axis: a whole number, within
// mechanism.ValidateK's limits for one axis.
func parseK(s string) (int, error) {
	v, err := parseNumber(s)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
		return 0, fmt.Errorf("k = %s: must be a whole number from 1 to %d", formatValue(v), mechanism.MaxK)
	}
	if err := mechanism.ValidateK([]int{int(v)}); err != nil {
		return 0, ruleError("k", v, err)
	}
	return int(v), nil
}

// ruleError words a mechanism rule for a form field: the field's symbol,
// the value as typed, and the rule ("ε = 0: must be > 0 and finite").
func ruleError(symbol string, v float64, err error) error {
	var pe *mechanism.ParamError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s = %s: %s", symbol, formatValue(v), strings.TrimSuffix(pe.Rule, fmt.Sprintf(" for noise %q", mechanism.NoiseGaussian)))
	}
	return err
}

// roundSig rounds x to n significant digits (slider values).
func roundSig(x float64, n int) float64 {
	if x == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	return v
}
