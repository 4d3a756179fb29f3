package curator

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// boundsPage edits the public bounds of every used column.
type boundsPage struct {
	c    *curator
	box  fyne.CanvasObject
	rows *fyne.Container
	ack  *widget.Check
	// ackEnds names the column ends now taken from the data.
	ackEnds *widget.Label
	// confirm is the curator's confirmation of the bounds; only then are
	// the private clip counts shown (confirmed). Any edit withdraws it.
	confirm   *widget.Check
	confirmed bool
	// Per column, for tests and live updates.
	editors map[string]*boundsEditor
	// privateFlow is the last "Estimate privately…" dialog (tests).
	privateFlow *privateBoundsFlow
}

// boundsEditor is one column's row.
type boundsEditor struct {
	lo, hi, unit *widget.Entry
	clipped      *widget.Label
	fromData     *widget.Label
	suggest      *widget.Button
	estimate     *widget.Button
}

const boundsExplanation = `**Why public bounds?** The privacy guarantee assumes every value lies in a range fixed *before* looking at the data. Values outside the bounds are clipped to them. If the bounds were taken from the data (its minimum and maximum), they would reveal those values — often a real person's — and that leak is **not** covered by ε.

Choose bounds from domain knowledge: ages 0–120, a percentage 0–100, a sensor's range from its datasheet.`

func newBoundsPage(c *curator) *boundsPage {
	p := &boundsPage{c: c, editors: map[string]*boundsEditor{}}
	expl := widget.NewRichTextFromMarkdown(boundsExplanation)
	expl.Wrapping = fyne.TextWrapWord
	ackText := widget.NewLabel("\"Suggest from data\" reveals each column's minimum and maximum outside the ε guarantee. It stays disabled until you accept that leak; your acceptance is recorded in the project file and in the published synopsis.")
	ackText.Wrapping = fyne.TextWrapWord
	p.ack = widget.NewCheck("I accept this leak", func(b bool) {
		c.edit(func() {
			c.state.AckDataBounds = b
			if b {
				c.state.AckTime = time.Now().UTC()
			} else {
				c.state.AckTime = time.Time{}
			}
			p.updateSuggestButtons()
		})
	})
	p.ackEnds = widget.NewLabel("")
	p.ackEnds.Wrapping = fyne.TextWrapWord
	p.ackEnds.Importance = widget.WarningImportance
	p.confirm = widget.NewCheck("These are my bounds", func(b bool) {
		p.confirmed = b
		for col, e := range p.editors {
			p.updateRow(col, e)
		}
		c.preview.showSummary()
	})
	confirmWhy := widget.NewLabel(clipCountsWhy)
	confirmWhy.Wrapping = fyne.TextWrapWord
	p.rows = container.NewVBox()
	p.box = widgets.VScroll(container.NewPadded(container.NewVBox(
		widget.NewLabelWithStyle("Public bounds", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		expl, p.rows, widget.NewSeparator(), confirmWhy, p.confirm, widget.NewSeparator(), ackText, p.ack, p.ackEnds,
	)))
	return p
}

func (p *boundsPage) content() fyne.CanvasObject { return p.box }

func (p *boundsPage) refresh() {
	c := p.c
	p.ack.SetChecked(c.state.AckDataBounds)
	p.updateAckEnds()
	p.rows.Objects = nil
	p.editors = map[string]*boundsEditor{}
	cols := c.state.usedColumns()
	if len(cols) == 0 {
		p.rows.Add(widget.NewLabel("Choose feature columns on the Data step first."))
	}
	spec := c.state.spec()
	for _, col := range cols {
		p.rows.Add(p.editorFor(col, spec.Label == learners.LabelReal && col == c.state.Label))
	}
	if spec.Label == learners.LabelBinary && c.state.Label != "" {
		l := widget.NewLabel(fmt.Sprintf("The label %q of a classifier needs no bounds: its two values become the classes −1 and +1.", c.state.Label))
		l.Wrapping = fyne.TextWrapWord
		p.rows.Add(l)
	}
	p.rows.Refresh()
	p.updateSuggestButtons()
}

// editorFor builds the bounds row of one column.
func (p *boundsPage) editorFor(col string, isLabel bool) fyne.CanvasObject {
	c := p.c
	st := c.state.bound(col)
	e := &boundsEditor{lo: widget.NewEntry(), hi: widget.NewEntry(), unit: widget.NewEntry(),
		clipped: widget.NewLabel(""), fromData: widget.NewLabel("")}
	p.editors[col] = e
	e.lo.SetPlaceHolder("lower bound")
	e.hi.SetPlaceHolder("upper bound")
	e.unit.SetPlaceHolder("e.g. years (optional)")
	e.lo.SetText(st.Lo)
	e.hi.SetText(st.Hi)
	e.unit.SetText(st.Unit)
	e.fromData.Importance = widget.WarningImportance
	e.fromData.Wrapping = fyne.TextWrapWord
	e.clipped.Wrapping = fyne.TextWrapWord
	e.clipped.TextStyle.Italic = true
	// Each field's mark is its own rule from boundsErrs, the rule the
	// row's message (updateRow) lists; an edit re-marks the other field.
	e.lo.Validator = func(s string) error {
		_, loErr, _ := boundsErrs(&columnSetting{Lo: s, Hi: e.hi.Text})
		return loErr
	}
	e.hi.Validator = func(s string) error {
		_, _, hiErr := boundsErrs(&columnSetting{Lo: e.lo.Text, Hi: s})
		return hiErr
	}
	e.lo.AlwaysShowValidationError = true
	e.hi.AlwaysShowValidationError = true
	// An edit of one end: a different number typed by hand is no longer
	// the data's minimum or maximum (or the private estimate).
	onEdit := func(text string, field *string, end *endSetting) {
		if *field == text {
			return // the entry only followed the state
		}
		*field = text
		end.edited(text)
		p.unconfirm()
		c.changed()
	}
	e.lo.OnChanged = func(s string) { onEdit(s, &st.Lo, &st.LoEnd) }
	e.hi.OnChanged = func(s string) { onEdit(s, &st.Hi, &st.HiEnd) }
	e.unit.OnChanged = func(s string) {
		st.Unit = s
		c.changed()
	}
	e.suggest = widget.NewButton("Suggest from data", func() { p.suggest(col) })
	e.estimate = widget.NewButton("Estimate privately…", func() { p.privateFlow = p.c.showPrivateBoundsDialog(col) })
	p.updateRow(col, e)
	title := col
	if isLabel {
		title += " (label: mapped to [−1, 1])"
	}
	fill, fillHelpText := fillRow(c, st)
	// One form layout: the labels in one column, every field aligned.
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("from"), e.lo, widget.NewLabel("to"), e.hi,
		widget.NewLabel("unit"), e.unit, widget.NewLabel("fill"), fill)
	// The buttons sit on their own row, at their natural height: beside a
	// wrapping label they were stretched to its height in a narrow pane.
	// The column's name wraps: a long name must not widen the window.
	name := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Wrapping = fyne.TextWrapBreak
	return widget.NewCard("", "", container.NewVBox(name, form, fillHelpText,
		buttonRow(e.suggest, e.estimate), e.fromData, e.clipped))
}

// derive re-marks every bounds field and its row's message from the state.
func (p *boundsPage) derive() {
	for col, e := range p.editors {
		e.lo.Validate()
		e.hi.Validate()
		p.updateRow(col, e)
	}
	p.updateAckEnds()
}

// updateRow refreshes the clip count and the from-data marker of a column.
func (p *boundsPage) updateRow(col string, e *boundsEditor) {
	c := p.c
	st := c.state.bound(col)
	e.fromData.SetText(st.provenanceText())
	b, err := parseBounds(st)
	if err != nil {
		e.clipped.SetText(err.Error())
		return
	}
	if c.ds == nil || !p.confirmed {
		e.clipped.SetText("")
		return
	}
	below, above, err := countClipped(c.ds.Data[col], b.Lo, b.Hi)
	if err != nil || c.ds.Data[col] == nil {
		e.clipped.SetText("")
		return
	}
	e.clipped.SetText(fmt.Sprintf("%d values below and %d above these bounds would be clipped (curator only, never published).", below, above))
}

// countClipped counts values below lo and above hi.
func countClipped(v []float64, lo, hi float64) (below, above int, err error) {
	if !(lo < hi) {
		return 0, 0, fmt.Errorf("bounds [%g, %g] are empty", lo, hi)
	}
	for _, x := range v {
		switch {
		case x < lo:
			below++
		case x > hi:
			above++
		}
	}
	return below, above, nil
}

// updateSuggestButtons enables "Suggest from data" only after the
// acknowledgement.
func (p *boundsPage) updateSuggestButtons() {
	for _, e := range p.editors {
		if p.c.state.AckDataBounds {
			e.suggest.Enable()
		} else {
			e.suggest.Disable()
		}
	}
}

// suggest fills a column's bounds with the data's min and max — only after
// the acknowledgement, which the caller's button state enforces and this
// re-checks.
func (p *boundsPage) suggest(col string) {
	c := p.c
	if !c.state.AckDataBounds {
		widgets.ShowMessage(c.win, "Acknowledgement needed", "Tick the acknowledgement below first: bounds from the data leak its minimum and maximum.")
		return
	}
	if c.ds == nil {
		return
	}
	b, err := c.ds.SuggestBounds(col)
	if err != nil {
		widgets.ShowError(c.win, err)
		return
	}
	p.fill(col, b, synopsis.EndFromData, nil, nil)
}

// fill sets both ends of col from one source (the data or a private
// estimate) and refreshes its row; the bounds need confirming again.
func (p *boundsPage) fill(col string, b dataset.Bounds, src synopsis.EndSource, loEst, hiEst *synopsis.PrivateEnd) {
	c := p.c
	st := c.state.bound(col)
	st.setEnds(fmtBound(b.Lo), fmtBound(b.Hi), src, loEst, hiEst)
	if e := p.editors[col]; e != nil {
		e.lo.SetText(st.Lo) // onEdit sees the state already holds it
		e.hi.SetText(st.Hi)
	}
	p.unconfirm()
	c.changed()
}

// clipCountsWhy says why the clip counts wait for the confirmation.
const clipCountsWhy = "How many values the bounds clip is shown only after you confirm them: " +
	"adjusting bounds until those private counts look right would fit them to the data, which ε does not cover."

// unconfirm withdraws the confirmation after an edit, hiding the counts.
func (p *boundsPage) unconfirm() {
	if !p.confirmed {
		return
	}
	p.confirmed = false
	p.confirm.SetChecked(false)
}

// updateAckEnds names the column ends currently taken from the data next
// to the acknowledgement.
func (p *boundsPage) updateAckEnds() {
	ends := p.c.state.dataEnds()
	if len(ends) == 0 {
		p.ackEnds.SetText("")
		return
	}
	p.ackEnds.SetText("Taken from the data (named in the synopsis): " + strings.Join(ends, ", ") + ".")
}

func fmtBound(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// buttonRow lays buttons side by side when there is room and under each
// other when the pane is narrow: its minimum width is one button's.
func buttonRow(buttons ...*widget.Button) fyne.CanvasObject {
	var cell fyne.Size
	objs := make([]fyne.CanvasObject, len(buttons))
	for i, b := range buttons {
		cell = cell.Max(b.MinSize())
		objs[i] = b
	}
	return container.New(layout.NewGridWrapLayout(cell), objs...)
}
