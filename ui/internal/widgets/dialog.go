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
//
// Keyboard: Enter runs the default action (the last button), Escape the
// dismiss action (the first), whether the focus is on one of its entries
// (keyEntry), one of its buttons or nowhere; Tab moves between its fields
// and buttons. When it opens, the first entry, else the default button,
// has the focus.
type curatorDialog struct {
	pop     *widget.PopUp
	title   *widget.Label
	buttons map[string]*dialogButton
	order   []*dialogButton
	canvas  fyne.Canvas
	// prevKey is the canvas's key handler before this dialog opened,
	// restored when it closes.
	prevKey func(*fyne.KeyEvent)
	hidden  bool
}

// dialogButton is a dialog button that also answers Enter (press it) and
// Escape (dismiss the dialog) while it has the focus.
type dialogButton struct {
	widget.Button
	d *curatorDialog
}

func (b *dialogButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		b.Tapped(nil)
	case fyne.KeyEscape:
		b.d.dismiss()
	default:
		b.Button.TypedKey(ev)
	}
}

// keyEntry is an entry of a curator dialog: Escape dismisses the dialog
// (a plain entry ignores it) and, single-line, Enter runs the default
// action unless OnSubmitted is set.
type keyEntry struct {
	widget.Entry
	onEscape func()
}

// keyCheck is a check box of a curator dialog: Escape dismisses the dialog
// and Enter runs its default action while the box has the focus (Space
// still toggles it); a plain check box swallows both.
type keyCheck struct {
	widget.Check
	onEscape, onEnter func()
}

// newKeyCheck returns a dialog check box with the label and change handler
// of widget.NewCheck.
func newKeyCheck(label string, changed func(bool)) *keyCheck {
	c := &keyCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

func (c *keyCheck) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyEscape && c.onEscape != nil:
		c.onEscape()
	case (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && c.onEnter != nil:
		c.onEnter()
	default:
		c.Check.TypedKey(ev)
	}
}

// newKeyEntry returns a single-line dialog entry (password: concealed).
func newKeyEntry(password bool) *keyEntry {
	e := &keyEntry{}
	e.Password = password
	e.ExtendBaseWidget(e)
	return e
}

func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(ev)
}

// showCuratorDialog shows a modal dialog over w with content and buttons
// (label → action; an action returning false keeps the dialog open). The
// first button is the dismiss button, the last the default (high
// importance). An action that opens another dialog must hide this one
// first and return false: Fyne removes every overlay above a popup that is
// hidden.
func showCuratorDialog(w fyne.Window, title string, content fyne.CanvasObject, labels []string, actions []func() bool) *curatorDialog {
	d := &curatorDialog{title: widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		buttons: map[string]*dialogButton{}, canvas: w.Canvas()}
	var row []fyne.CanvasObject
	row = append(row, layout.NewSpacer())
	for i, l := range labels {
		act := actions[i]
		b := &dialogButton{d: d}
		b.Text = l
		b.ExtendBaseWidget(b)
		b.OnTapped = func() {
			if act == nil || act() {
				d.Hide()
			}
		}
		if i == len(labels)-1 && len(labels) > 1 {
			b.Importance = widget.HighImportance
		}
		d.buttons[l] = b
		d.order = append(d.order, b)
		row = append(row, b)
	}
	body := container.NewBorder(d.title, container.NewHBox(row...), nil, nil, content)
	d.pop = widget.NewModalPopUp(container.NewPadded(body), w.Canvas())
	min := body.MinSize()
	size := w.Canvas().Size()
	d.pop.Resize(fyne.NewSize(max(min.Width+32, 480), min.Height+32).Min(fyne.NewSize(max(size.Width-16, 480), max(size.Height-16, 200))))
	var first fyne.Focusable
	for _, o := range allObjects(content) {
		if ch, ok := o.(*keyCheck); ok {
			ch.onEscape, ch.onEnter = d.dismiss, d.activate
		}
		if e, ok := o.(*keyEntry); ok {
			e.onEscape = d.dismiss
			if e.OnSubmitted == nil && !e.MultiLine {
				e.OnSubmitted = func(string) { d.activate() }
			}
			if first == nil && !e.Disabled() {
				first = e
			}
		}
	}
	d.prevKey = w.Canvas().OnTypedKey()
	w.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyReturn, fyne.KeyEnter:
			d.activate()
		case fyne.KeyEscape:
			d.dismiss()
		}
	})
	d.pop.Show()
	if first == nil && len(d.order) > 0 {
		first = d.order[len(d.order)-1]
	}
	if first != nil {
		w.Canvas().Focus(first)
	}
	return d
}

// allObjects lists o and everything inside it (containers and widgets'
// renderers), for finding a dialog's entries.
func allObjects(o fyne.CanvasObject) []fyne.CanvasObject {
	out := []fyne.CanvasObject{o}
	switch v := o.(type) {
	case *fyne.Container:
		for _, c := range v.Objects {
			out = append(out, allObjects(c)...)
		}
	case *container.Scroll:
		out = append(out, allObjects(v.Content)...)
	}
	return out
}

// activate runs the default action (the last button), if enabled.
func (d *curatorDialog) activate() {
	if len(d.order) == 0 || d.hidden {
		return
	}
	if b := d.order[len(d.order)-1]; !b.Disabled() {
		b.OnTapped()
	}
}

// dismiss runs the dismiss action (the first button), if enabled.
func (d *curatorDialog) dismiss() {
	if len(d.order) == 0 || d.hidden {
		return
	}
	if b := d.order[0]; !b.Disabled() {
		b.OnTapped()
	}
}

// Hide closes the dialog and gives the window its key handler back.
func (d *curatorDialog) Hide() {
	if !d.hidden {
		d.hidden = true
		d.canvas.SetOnTypedKey(d.prevKey)
	}
	d.pop.Hide()
}

// Visible reports whether the dialog is marked visible (the headless tests
// also check that it is the top overlay, see curatorOnTop).
func (d *curatorDialog) Visible() bool { return d.pop.Visible() }

// button returns a button by label (tests and keyboard shortcuts).
func (d *curatorDialog) button(label string) *widget.Button {
	if b := d.buttons[label]; b != nil {
		return &b.Button
	}
	return nil
}

// showCuratorMessage shows a message with one Close button (Enter and
// Escape close it).
func showCuratorMessage(w fyne.Window, title, text string) *curatorDialog {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return showCuratorDialog(w, title, l, []string{"Close"}, []func() bool{nil})
}

// showCuratorError shows an error (Enter and Escape close it).
func showCuratorError(w fyne.Window, err error) *curatorDialog {
	return showCuratorMessage(w, "Error", err.Error())
}

// showCuratorConfirm asks before an action: Enter confirms, Escape
// cancels.
func showCuratorConfirm(w fyne.Window, title, text, confirm string, ok func()) *curatorDialog {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	var d *curatorDialog
	d = showCuratorDialog(w, title, l, []string{"Cancel", confirm}, []func() bool{nil, func() bool {
		d.Hide() // first: ok may open another dialog
		ok()
		return false
	}})
	return d
}
