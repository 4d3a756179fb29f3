package curator

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// learnerPage chooses the learner; its parameter form is generated from
// the learner's Spec (defaults, ranges, help) and validated as the curator
// types, and it shows the resulting sensitivity S(F).
type learnerPage struct {
	c      *curator
	box    fyne.CanvasObject
	choose *widget.Select
	desc   *widget.Label
	dims   *widget.Label
	form   *fyne.Container
	sens   *widget.Label
	// entries holds the current form's fields by parameter name (tests).
	entries map[string]*widget.Entry
	selects map[string]*widget.Select
	titles  map[string]learners.Kind
}

func newLearnerPage(c *curator) *learnerPage {
	p := &learnerPage{c: c, titles: map[string]learners.Kind{}}
	var opts []string
	for _, l := range learners.All() {
		s := l.Spec()
		opts = append(opts, s.Title)
		p.titles[s.Title] = s.Kind
	}
	p.choose = widget.NewSelect(opts, func(title string) {
		if c.state.Learner == p.titles[title] {
			return // the select only followed the state
		}
		c.state.Learner = p.titles[title]
		p.buildForm()
		if dp, ok := c.pages[stepData].(*dataPage); ok {
			dp.refreshColumns()
		}
		c.changed()
	})
	p.desc = widget.NewLabel("")
	p.desc.Wrapping = fyne.TextWrapWord
	p.dims = widget.NewLabel("")
	p.dims.TextStyle.Italic = true
	p.dims.Wrapping = fyne.TextWrapWord
	p.form = container.NewVBox()
	p.sens = widget.NewLabel("Sensitivity S(F): shown once the preview has fitted the learner.")
	p.sens.Wrapping = fyne.TextWrapWord
	p.sens.TextStyle = fyne.TextStyle{Bold: true}
	p.box = widgets.VScroll(container.NewPadded(container.NewVBox(
		widget.NewLabelWithStyle("Learner", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.choose, p.desc, p.dims, widget.NewSeparator(),
		widget.NewLabelWithStyle("Parameters", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.form, widget.NewSeparator(), p.sens,
	)))
	return p
}

func (p *learnerPage) content() fyne.CanvasObject { return p.box }

func (p *learnerPage) refresh() {
	spec := p.c.state.spec()
	p.choose.SetSelected(spec.Title)
	p.buildForm()
}

// buildForm generates the parameter form of the current learner.
func (p *learnerPage) buildForm() {
	c := p.c
	spec := c.state.spec()
	p.desc.SetText(spec.Description)
	label := map[learners.LabelKind]string{
		learners.LabelNone: "no label", learners.LabelReal: "a real-valued label", learners.LabelBinary: "a two-class label",
	}[spec.Label]
	p.dims.SetText(fmt.Sprintf("Needs %s and %s feature column(s). Output: %s — %s", label, dimRange(spec.MinDim, spec.MaxDim), spec.Output.Name, spec.Output.Meaning))
	p.form.Objects = nil
	p.entries = map[string]*widget.Entry{}
	p.selects = map[string]*widget.Select{}
	dim := max(len(c.state.Features), 1)
	for _, ps := range spec.Params {
		ps := ps
		var field fyne.CanvasObject
		if len(ps.Choices) > 0 {
			names := make([]string, len(ps.Choices))
			for i, v := range ps.Choices {
				names[i] = formatValue(v)
				if i < len(ps.ChoiceLabels) {
					names[i] = ps.ChoiceLabels[i]
				}
			}
			sel := widget.NewSelect(names, func(s string) {
				c.edit(func() {
					for i, n := range names {
						if n == s {
							c.state.setParamText(ps.Name, formatValue(ps.Choices[i]))
						}
					}
				})
			})
			cur := c.state.paramText(ps)
			for i, v := range ps.Choices {
				if formatValue(v) == strings.TrimSpace(cur) {
					sel.SetSelected(names[i])
				}
			}
			p.selects[ps.Name] = sel
			field = sel
		} else {
			e := widget.NewEntry()
			e.SetText(c.state.paramText(ps))
			e.Validator = func(s string) error {
				_, err := parseParam(ps, s, dim)
				return err
			}
			e.AlwaysShowValidationError = true
			e.OnChanged = func(s string) {
				c.state.setParamText(ps.Name, s)
				c.changed()
			}
			p.entries[ps.Name] = e
			field = e
		}
		help := widget.NewLabel(paramHelp(ps))
		help.Wrapping = fyne.TextWrapWord
		help.TextStyle.Italic = true
		p.form.Add(container.NewVBox(
			container.NewBorder(nil, nil, widget.NewLabelWithStyle(ps.Label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, field),
			help))
	}
	if len(spec.Params) == 0 {
		p.form.Add(widget.NewLabel("This learner has no parameters."))
	}
	p.form.Refresh()
}

// paramHelp is the help line of a parameter: its help text, range and
// default.
func paramHelp(ps learners.ParamSpec) string {
	var b strings.Builder
	b.WriteString(ps.Help)
	if len(ps.Choices) == 0 {
		lo := "from " + formatValue(ps.Min)
		if ps.MinExclusive {
			lo = "above " + formatValue(ps.Min)
		}
		fmt.Fprintf(&b, " Valid: %s to %s", lo, formatValue(ps.Max))
		if ps.Integer {
			b.WriteString(", whole numbers")
		}
		b.WriteString(".")
	}
	if ps.AutoRule != "" {
		fmt.Fprintf(&b, " Default: %s, from the number of records, features and ε (never from the values).", ps.AutoRule)
	} else {
		fmt.Fprintf(&b, " Default: %s.", formatValue(ps.Default))
	}
	if ps.PerAxis {
		b.WriteString(" One value for all features, or one per feature separated by commas.")
	}
	return strings.TrimSpace(b.String())
}

func dimRange(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// derive shows S(F) of the current learner: from the preview when it was
// computed for the current settings, else what it waits for (never the
// number of another learner or dataset).
func (p *learnerPage) derive() {
	c := p.c
	title := c.state.spec().Title
	if r := c.preview.lastFor(c.state, c.ds); r != nil {
		s := fmt.Sprintf("Sensitivity S(F) of %s = %.4g (n = %d records)", title, r.Sensitivity, r.N)
		if r.SensNote != "" {
			s += "\n" + r.SensNote
		}
		p.sens.SetText(s)
		return
	}
	if _, err := c.state.request(c.ds); err != nil {
		p.sens.SetText(fmt.Sprintf("Sensitivity S(F) of %s: shown once the settings are complete (%v).", title, err))
		return
	}
	p.sens.SetText(fmt.Sprintf("Sensitivity S(F) of %s for n = %d records: computing in the preview …", title, c.ds.Rows))
}
