package viewer

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// viewerDetailsTab is the read-only metadata panel: every public fact the
// file states about the release, as selectable labels (copyable, never
// editable).
type viewerDetailsTab struct {
	content fyne.CanvasObject
	rows    []viewerDetailRow // for tests
}

func newViewerDetailsTab(d *viewerDoc) *viewerDetailsTab {
	t := &viewerDetailsTab{rows: viewerDetailRows(d.Verified)}
	form := widget.NewForm()
	for _, r := range t.rows {
		l := widget.NewLabel(r.Value)
		l.Wrapping = fyne.TextWrapWord
		l.Selectable = true
		if r.Warn {
			l.Importance = widget.WarningImportance
			l.TextStyle = fyne.TextStyle{Bold: true}
		}
		form.Append(r.Label, l)
	}
	form.Append("File", selectableLabel(d.Path))
	form.Append("Signing key", selectableLabel(d.Verified.Fingerprint))

	rows := viewerFeatureRows(d.Verified.File)
	grid := container.NewGridWithColumns(len(rows[0]))
	for i, row := range rows {
		for _, cell := range row {
			l := widget.NewLabel(cell)
			l.Selectable = i > 0
			if i == 0 {
				l.TextStyle = fyne.TextStyle{Bold: true}
			} else if cell == "YES" {
				l.Importance = widget.WarningImportance
			}
			grid.Add(l)
		}
	}
	bounds := widget.NewLabel("Queries must lie within these public bounds: the release is defined only on the box they span, and values are in these units.")
	bounds.Wrapping = fyne.TextWrapWord
	t.content = container.NewVScroll(container.NewVBox(
		form,
		widget.NewSeparator(),
		widget.NewLabelWithStyle("Features and public bounds", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		bounds,
		grid,
	))
	return t
}

func selectableLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Selectable = true
	l.Wrapping = fyne.TextWrapBreak
	return l
}
