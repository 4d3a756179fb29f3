package viewer

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// viewerQueryTab evaluates the release at one point typed by the analyst
// in data units. Each field is validated against its feature's public
// bounds as it is typed; the release is evaluated (it takes microseconds)
// whenever every field is valid, and on Evaluate.
type viewerQueryTab struct {
	r       *viewerRelease
	onPoint func(viewerPoint) // e.g. mark the point on the plot; may be nil
	clampOn func() bool       // show the value clamped to the public output range

	entries []*widget.Entry
	form    *widget.Form
	value   *widget.Label
	band    *widget.Label
	std     *widget.Label
	class   *widget.Label
	status  *widget.Label
	content fyne.CanvasObject

	last *viewerPoint // last result, for tests
}

func newViewerQueryTab(r *viewerRelease, onPoint func(viewerPoint), clampOn func() bool) *viewerQueryTab {
	t := &viewerQueryTab{r: r, onPoint: onPoint, clampOn: clampOn}
	t.form = widget.NewForm()
	for _, f := range r.Features {
		e := widget.NewEntry()
		// The mark follows the rule of the message below: an invalid value
		// is never shown with a tick, also while it is typed (issue 18
		// item 2; by default Fyne keeps the last valid state until the
		// field loses focus).
		e.AlwaysShowValidationError = true
		e.SetText(viewerNum(f.Lo/2 + f.Hi/2))
		e.Validator = func(s string) error { _, err := viewerParseInput(f, s); return err }
		e.OnChanged = func(string) { t.evaluate() }
		e.OnSubmitted = func(string) { t.evaluate() }
		t.entries = append(t.entries, e)
		t.form.AppendItem(&widget.FormItem{Text: f.label(), Widget: e,
			HintText: fmt.Sprintf("public bounds [%s, %s]%s", viewerNum(f.Lo), viewerNum(f.Hi), viewerUnitSuffix(f.Unit))})
	}
	t.form.SubmitText = "Evaluate"
	t.form.OnSubmit = t.evaluate

	t.value = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.value.Selectable = true
	t.band = widget.NewLabel("")
	t.band.Selectable = true
	t.std = widget.NewLabel("")
	t.std.Selectable = true
	t.class = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	t.status = widget.NewLabel("")
	t.status.Wrapping = fyne.TextWrapWord
	res := widget.NewForm(
		widget.NewFormItem(r.outputLabel(), t.value),
		widget.NewFormItem("± 2 noise std", t.band),
		widget.NewFormItem("Noise std", t.std),
	)
	if r.classifier() {
		res.Append("Class", t.class)
	}
	note := widget.NewLabel("The noise standard deviation is public: it depends only on the query point and the release parameters, not on the data. " +
		"It describes the privacy noise only, not how well the learner fits the data.")
	note.Wrapping = fyne.TextWrapWord
	t.content = container.NewVScroll(container.NewVBox(
		widget.NewLabelWithStyle("Query point (data units)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		t.form,
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Released value", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		res,
		t.status,
		note,
	))
	return t
}

// texts returns what is typed in the fields.
func (t *viewerQueryTab) texts() []string {
	s := make([]string, len(t.entries))
	for i, e := range t.entries {
		s[i] = e.Text
	}
	return s
}

// evaluate evaluates the typed point if every field is valid; otherwise it
// clears the result and says which fields are wrong.
func (t *viewerQueryTab) evaluate() {
	res, errs, err := viewerEvalPoint(t.r, t.texts())
	if err != nil {
		t.last = nil
		t.value.SetText("—")
		t.band.SetText("")
		t.std.SetText("")
		t.class.SetText("")
		msg := err.Error()
		for _, e := range errs {
			if e != nil {
				msg += "\n• " + e.Error()
			}
		}
		t.status.SetText(msg)
		return
	}
	t.last = &res
	value, msg := viewerNum(res.Value), ""
	if c, moved := t.r.clamp(res.Value); moved {
		if t.clampOn != nil && t.clampOn() {
			value = fmt.Sprintf("%s (clamped; released %s)", viewerNum(c), viewerNum(res.Value))
			msg = fmt.Sprintf("The released value %s lies outside the public output range %s and is shown clamped.", viewerNum(res.Value), t.r.rangeText())
		} else {
			msg = fmt.Sprintf("The released value %s lies outside the public output range %s: the privacy noise can carry values there. Tick \"%s\" to show it clamped.", viewerNum(res.Value), t.r.rangeText(), viewerClampLabel)
		}
	}
	t.value.SetText(value)
	t.band.SetText(fmt.Sprintf("[%s, %s]", viewerNum(res.lo2()), viewerNum(res.hi2())))
	t.std.SetText(viewerNum(res.NoiseStd))
	t.class.SetText(res.Class)
	t.status.SetText(msg)
	if t.onPoint != nil {
		shown := res
		if t.clampOn != nil && t.clampOn() {
			shown.Value, _ = t.r.clamp(res.Value) // marked where the plot draws it
		}
		t.onPoint(shown)
	}
}
