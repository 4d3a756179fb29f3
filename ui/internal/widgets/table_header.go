package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// AlignTableHeader aligns the header label l of a table's cell id with the
// cells it heads, for a table whose cells are leading-aligned labels: a
// column's name starts where its values start, a row's number stays
// centred in the header column. Fyne's default header centres the text,
// so a name sat off its values whenever the column was wider than the
// name (the import step's and the Data step's tables). Call it from the
// table's UpdateHeader.
func AlignTableHeader(l *widget.Label, id widget.TableCellID) {
	if id.Row < 0 {
		l.Alignment = fyne.TextAlignLeading
	} else {
		l.Alignment = fyne.TextAlignCenter
	}
}
