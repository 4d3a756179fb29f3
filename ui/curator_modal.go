package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// curatorDialog is a modal dialog whose buttons the curator window (and its
// tests) hold directly: dialog.NewCustom hides its buttons, which would
// make the release flow impossible to drive from a headless test.
type curatorDialog struct {
	pop     *widget.PopUp
	title   *widget.Label
	buttons map[string]*widget.Button
}

// showCuratorDialog shows a modal dialog over w with content and buttons
// (label → action; an action returning false keeps the dialog open). The
// first button is the dismiss button, the last the default (high
// importance). An action that opens another dialog must hide this one
// first and return false: Fyne removes every overlay above a popup that is
// hidden.
func showCuratorDialog(w fyne.Window, title string, content fyne.CanvasObject, labels []string, actions []func() bool) *curatorDialog {
	d := &curatorDialog{title: widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), buttons: map[string]*widget.Button{}}
	var row []fyne.CanvasObject
	row = append(row, layout.NewSpacer())
	for i, l := range labels {
		act := actions[i]
		b := widget.NewButton(l, nil)
		b.OnTapped = func() {
			if act == nil || act() {
				d.Hide()
			}
		}
		if i == len(labels)-1 && len(labels) > 1 {
			b.Importance = widget.HighImportance
		}
		d.buttons[l] = b
		row = append(row, b)
	}
	body := container.NewBorder(d.title, container.NewHBox(row...), nil, nil, content)
	d.pop = widget.NewModalPopUp(container.NewPadded(body), w.Canvas())
	min := body.MinSize()
	d.pop.Resize(fyne.NewSize(max(min.Width+32, 480), min.Height+32))
	d.pop.Show()
	return d
}

// Hide closes the dialog.
func (d *curatorDialog) Hide() { d.pop.Hide() }

// Visible reports whether the dialog is marked visible (the headless tests
// also check that it is the top overlay, see curatorOnTop).
func (d *curatorDialog) Visible() bool { return d.pop.Visible() }

// tap presses a button by label (tests and keyboard shortcuts).
func (d *curatorDialog) button(label string) *widget.Button { return d.buttons[label] }
