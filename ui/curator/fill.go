package curator

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// fillHelp explains the fill value beside each column's bounds.
const fillHelp = "Missing or non-numeric values are replaced by this public value (empty: the midpoint of the bounds); " +
	"every row is kept, so the number of records stays public. The synopsis records the rule, never which rows or how many."

// fillRow is the public fill value editor of one column (st.Fill): a
// number within the bounds, or empty for the midpoint, and its help.
// release.Prepare validates it against the bounds.
func fillRow(c *curator, st *columnSetting) (*widget.Entry, *widget.Label) {
	e := widget.NewEntry()
	e.SetPlaceHolder("midpoint of the bounds")
	e.SetText(st.Fill)
	e.Validator = func(s string) error {
		if s == "" {
			return nil
		}
		_, err := parseNumber(s)
		return err
	}
	e.OnChanged = func(s string) {
		st.Fill = s
		c.changed()
	}
	help := widget.NewLabel(fillHelp)
	help.Wrapping = fyne.TextWrapWord
	help.TextStyle.Italic = true
	return e, help
}
