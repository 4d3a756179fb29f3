package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TabEntry is a multi-line entry that leaves Tab and Shift+Tab to focus
// traversal. Fyne's multi-line entry keeps them as text, so a keyboard
// user could never leave a form's note field and every Tab put a tab
// character into text that is published (the synopsis note). Nothing in
// this app needs a typed tab character.
type TabEntry struct {
	widget.Entry
}

// NewTabEntry returns a multi-line entry whose Tab moves the focus.
func NewTabEntry() *TabEntry {
	e := &TabEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip) // as widget.NewMultiLineEntry
	e.ExtendBaseWidget(e)
	return e
}

// AcceptsTab reports false: Tab moves the focus (fyne.Tabbable).
func (e *TabEntry) AcceptsTab() bool { return false }
