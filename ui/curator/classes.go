package curator

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// classes returns the declared classes of a binary label (validated).
func (s *curatorState) classes() (dataset.Classes, error) {
	c := dataset.Classes{Negative: strings.TrimSpace(s.Negative), Positive: strings.TrimSpace(s.Positive)}
	if c.Negative == "" || c.Positive == "" {
		return c, errors.New("declare the two label values (type them, or tick \"Offer the values found\" to pick them), the positive class second")
	}
	return c, c.Validate()
}

// classForm is the declaration of a binary label's two values: typed, or,
// once the curator asks to see them (show), picked from the values of the
// label column in the preview rows; and the fill class for any other
// value. The declaration, never the data, becomes the synopsis's
// class_labels; a declaration made after seeing the data's values is
// recorded as such (curatorState.ClassesFromData).
type classForm struct {
	box                *fyne.Container
	negative, positive *widget.SelectEntry
	fill               *widget.Select
	// show offers the label column's values in both lists; ticking it
	// marks the declaration as read from the data.
	show  *widget.Check
	picks []string // the values offered in both lists (none until show)
}

const fillNegative, fillPositive = "become the negative class", "become the positive class"

func newClassForm(c *curator) *classForm {
	f := &classForm{}
	changed := func() {
		c.edit(func() {
			c.state.Negative, c.state.Positive = f.negative.Text, f.positive.Text
			if dp, ok := c.pages[stepData].(*dataPage); ok {
				dp.refreshColumns() // the declaration's errors
			}
		})
	}
	f.negative = widget.NewSelectEntry(nil)
	f.negative.SetPlaceHolder("value of class −1, e.g. 0 or no")
	f.negative.OnChanged = func(string) { changed() }
	f.positive = widget.NewSelectEntry(nil)
	f.positive.SetPlaceHolder("value of class +1, e.g. 1 or yes")
	f.positive.OnChanged = func(string) { changed() }
	f.fill = widget.NewSelect([]string{fillNegative, fillPositive}, func(s string) {
		c.edit(func() { c.state.FillPositive = s == fillPositive })
	})
	f.show = widget.NewCheck("Offer the values found in the label column", func(on bool) {
		c.edit(func() {
			c.state.ClassesFromData = on
			f.offer(c)
		})
	})
	help := widget.NewLabel("Declare the two label values like bounds, from what you know of the data's domain: they are public and recorded in the synopsis. " +
		"Classes picked from the values found in the column are recorded as read from the data, which ε does not cover. " +
		"Any other or missing value in the label column is replaced by the fill class; every row is kept.")
	help.Wrapping = fyne.TextWrapWord
	help.TextStyle.Italic = true
	// One form layout: the three fields start at the same x.
	f.box = container.NewVBox(
		container.New(layout.NewFormLayout(),
			widget.NewLabel("Negative class (−1):"), f.negative,
			widget.NewLabel("Positive class (+1):"), f.positive,
			widget.NewLabel("Other or missing values:"), f.fill),
		f.show, help)
	return f
}

// offer fills both lists with the label column's values once the curator
// asked for them, else empties them.
func (f *classForm) offer(c *curator) {
	f.picks = nil
	if c.state.ClassesFromData {
		f.picks = previewValues(c.ds, c.state.Label, 20)
	}
	f.negative.SetOptions(f.picks)
	f.positive.SetOptions(f.picks)
}

// refresh shows the state's declaration and, if the curator asked for
// them, offers the label column's values seen in the preview rows.
func (f *classForm) refresh(c *curator) {
	f.show.SetChecked(c.state.ClassesFromData)
	f.offer(c)
	if f.negative.Text != c.state.Negative {
		f.negative.SetText(c.state.Negative)
	}
	if f.positive.Text != c.state.Positive {
		f.positive.SetText(c.state.Positive)
	}
	if c.state.FillPositive {
		f.fill.SetSelected(fillPositive)
	} else {
		f.fill.SetSelected(fillNegative)
	}
}

// previewValues returns up to limit distinct trimmed values of column col
// in the preview rows (the first dataset.PreviewRows rows), sorted.
func previewValues(ds *dataset.Table, col string, limit int) []string {
	if ds == nil || col == "" {
		return nil
	}
	j := slices.Index(ds.Columns, col)
	if j < 0 {
		return nil
	}
	var out []string
	for _, row := range ds.Preview {
		if j >= len(row) {
			continue
		}
		v := strings.TrimSpace(row[j])
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
			if len(out) == limit {
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// invalidSummary tells the curator, and only the curator, how many values
// of each column are missing or not numbers: the release replaces them by
// the public fill rules and keeps every row. The counts are private.
func invalidSummary(ds *dataset.Table) string {
	var parts []string
	for _, col := range ds.Columns {
		if n := ds.Invalid[col]; n > 0 && n < ds.Rows {
			parts = append(parts, fmt.Sprintf("%s: %d", col, n))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " — private, for your eyes only: missing or non-numeric values (filled by the public fill rules, rows kept) in " + strings.Join(parts, ", ")
}
