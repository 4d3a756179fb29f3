package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"
)

// Dialog is a modal dialog whose buttons the curator window (and its
// tests) hold directly: dialog.NewCustom hides its buttons, which would
// make the release flow impossible to drive from a headless test.
//
// Keyboard: Enter runs the default action (the last button), Escape the
// dismiss action (the first), whether the focus is on one of its entries
// (KeyEntry), one of its buttons or nowhere; Tab moves between its fields
// and buttons. When it opens, the first entry, else the default button,
// has the focus.
type Dialog struct {
	Pop     *widget.PopUp // the popup (callers resize it; tests walk it)
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
	d *Dialog
}

func (b *dialogButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		b.Tapped(nil)
	case fyne.KeyEscape:
		b.d.Dismiss()
	default:
		b.Button.TypedKey(ev)
	}
}

// KeyEntry is an entry of a curator dialog: Escape dismisses the dialog
// (a plain entry ignores it) and, single-line, Enter runs the default
// action unless OnSubmitted is set.
type KeyEntry struct {
	widget.Entry
	onEscape func()
}

// KeyCheck is a check box of a curator dialog: Escape dismisses the dialog
// and Enter runs its default action while the box has the focus (Space
// still toggles it); a plain check box swallows both.
type KeyCheck struct {
	widget.Check
	onEscape, onEnter func()
}

// NewKeyCheck returns a dialog check box with the label and change handler
// of widget.NewCheck.
func NewKeyCheck(label string, changed func(bool)) *KeyCheck {
	c := &KeyCheck{}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

func (c *KeyCheck) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyEscape && c.onEscape != nil:
		c.onEscape()
	case (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && c.onEnter != nil:
		c.onEnter()
	default:
		c.Check.TypedKey(ev)
	}
}

// NewKeyEntry returns a single-line dialog entry (password: concealed).
func NewKeyEntry(password bool) *KeyEntry {
	e := &KeyEntry{}
	e.Password = password
	e.ExtendBaseWidget(e)
	return e
}

func (e *KeyEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(ev)
}

// ShowDialog shows a modal dialog over w with content and buttons
// (label → action; an action returning false keeps the dialog open). The
// first button is the dismiss button, the last the default (high
// importance). An action that opens another dialog must hide this one
// first and return false: Fyne removes every overlay above a popup that is
// hidden.
func ShowDialog(w fyne.Window, title string, content fyne.CanvasObject, labels []string, actions []func() bool) *Dialog {
	return showDialog(w, title, content, labels, actions, false)
}

// ShowWindowDialog is ShowDialog for a dialog sized to the window rather
// than to its content: it takes the window less DialogMargin on every side
// when it opens and follows the window when it grows (a Fyne pop-up keeps
// the size it opened at, so a dialog opened in a narrow window stayed
// narrow and clipped its content in a wider one). When the window shrinks
// below the dialog, the dialog fills the window. The content must fit
// (scroll or wrap) in whatever it is given.
func ShowWindowDialog(w fyne.Window, title string, content fyne.CanvasObject, labels []string, actions []func() bool) *Dialog {
	return showDialog(w, title, content, labels, actions, true)
}

// DialogMargin is the room a ShowWindowDialog leaves between itself and
// the window's edges.
const DialogMargin = 24

// windowFit is the layout of a ShowWindowDialog's pop-up content: its
// minimum is the canvas less DialogMargin on every side, read at every
// call (the overlay asks for it when the window is resized), and it
// stretches its objects over what it gets.
type windowFit struct{ canvas fyne.Canvas }

func (l windowFit) MinSize([]fyne.CanvasObject) fyne.Size {
	s := l.canvas.Size()
	return fyne.NewSize(max(s.Width-2*DialogMargin, 1), max(s.Height-2*DialogMargin, 1))
}

func (l windowFit) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func showDialog(w fyne.Window, title string, content fyne.CanvasObject, labels []string, actions []func() bool, fitWindow bool) *Dialog {
	d := &Dialog{title: widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
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
	if fitWindow {
		fit := container.New(windowFit{w.Canvas()}, container.NewPadded(body))
		d.Pop = widget.NewModalPopUp(fit, w.Canvas())
		d.Pop.Resize(fit.MinSize())
	} else {
		d.Pop = widget.NewModalPopUp(container.NewPadded(body), w.Canvas())
		min := body.MinSize()
		size := w.Canvas().Size()
		d.Pop.Resize(fyne.NewSize(max(min.Width+32, 480), min.Height+32).Min(fyne.NewSize(max(size.Width-16, 480), max(size.Height-16, 200))))
	}
	var first fyne.Focusable
	for _, o := range allObjects(content) {
		if ch, ok := o.(*KeyCheck); ok {
			ch.onEscape, ch.onEnter = d.Dismiss, d.activate
		}
		if sel, ok := o.(*KeySelect); ok {
			sel.onEscape, sel.onEnter = d.Dismiss, d.activate
		}
		if e, ok := o.(*KeyEntry); ok {
			e.onEscape = d.Dismiss
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
			d.Dismiss()
		}
	})
	d.Pop.Show()
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
func (d *Dialog) activate() {
	if len(d.order) == 0 || d.hidden {
		return
	}
	if b := d.order[len(d.order)-1]; !b.Disabled() {
		b.OnTapped()
	}
}

// Dismiss runs the dismiss action (the first button), if enabled.
func (d *Dialog) Dismiss() {
	if len(d.order) == 0 || d.hidden {
		return
	}
	if b := d.order[0]; !b.Disabled() {
		b.OnTapped()
	}
}

// Hide closes the dialog and gives the window its key handler back.
func (d *Dialog) Hide() {
	if !d.hidden {
		d.hidden = true
		d.canvas.SetOnTypedKey(d.prevKey)
	}
	d.Pop.Hide()
}

// Visible reports whether the dialog is marked visible (the headless tests
// also check that it is the top overlay, see curatorOnTop).
func (d *Dialog) Visible() bool { return d.Pop.Visible() }

// Button returns a button by label (tests and keyboard shortcuts).
func (d *Dialog) Button(label string) *widget.Button {
	if b := d.buttons[label]; b != nil {
		return &b.Button
	}
	return nil
}

// ShowMessage shows a message with one Close button (Enter and
// Escape close it).
func ShowMessage(w fyne.Window, title, text string) *Dialog {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return ShowDialog(w, title, l, []string{"Close"}, []func() bool{nil})
}

// ShowError shows an error (Enter and Escape close it).
func ShowError(w fyne.Window, err error) *Dialog {
	return ShowMessage(w, "Error", err.Error())
}

// ShowConfirm asks before an action: Enter confirms, Escape
// cancels.
func ShowConfirm(w fyne.Window, title, text, confirm string, ok func()) *Dialog {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	var d *Dialog
	d = ShowDialog(w, title, l, []string{"Cancel", confirm}, []func() bool{nil, func() bool {
		d.Hide() // first: ok may open another dialog
		ok()
		return false
	}})
	return d
}
