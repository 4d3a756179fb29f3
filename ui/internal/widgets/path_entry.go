package widgets

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PathEntry is an entry for a file path that wraps a long path over as
// many rows as it needs (up to maxPathRows) instead of scrolling it
// sideways: a single-line entry scrolled a long path under a horizontal
// scroll bar drawn over its text (the Release step's synopsis file at
// 1024×700 and 1280×800). A path has no line breaks or tabs: Enter and
// Return submit (OnSubmitted) instead of breaking the line, pasted line
// breaks are dropped, and Tab moves the focus.
type PathEntry struct {
	widget.Entry
	rows int // the rows asked for (SetMinRowsVisible), 0 before the first fit
}

// maxPathRows is the most rows a PathEntry grows to; a longer path
// scrolls within them (vertically).
const maxPathRows = 5

// NewPathEntry returns an empty path entry.
func NewPathEntry() *PathEntry {
	e := &PathEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapBreak
	e.ExtendBaseWidget(e)
	e.fitRows()
	return e
}

// AcceptsTab reports false: Tab moves the focus (fyne.Tabbable).
func (e *PathEntry) AcceptsTab() bool { return false }

// SetText sets the path and fits the rows to it.
func (e *PathEntry) SetText(s string) {
	e.Entry.SetText(s)
	e.fitRows()
}

// Resize fits the rows to the new width.
func (e *PathEntry) Resize(s fyne.Size) {
	e.Entry.Resize(s)
	e.fitRows()
}

// TypedRune types r, but never a line break.
func (e *PathEntry) TypedRune(r rune) {
	if r == '\n' || r == '\r' {
		return
	}
	e.Entry.TypedRune(r)
	e.fitRows()
}

// TypedKey handles a key: Enter and Return submit instead of breaking
// the line.
func (e *PathEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter {
		if e.OnSubmitted != nil {
			e.OnSubmitted(e.Text)
		}
		return
	}
	e.Entry.TypedKey(ev)
	e.fitRows()
}

// TypedShortcut handles a shortcut; a paste drops line breaks.
func (e *PathEntry) TypedShortcut(s fyne.Shortcut) {
	if p, ok := s.(*fyne.ShortcutPaste); ok && p.Clipboard != nil {
		s = &fyne.ShortcutPaste{Clipboard: oneLineClipboard{p.Clipboard}, Secondary: p.Secondary}
	}
	e.Entry.TypedShortcut(s)
	e.fitRows()
}

// oneLineClipboard reads a clipboard's text without line breaks.
type oneLineClipboard struct{ fyne.Clipboard }

func (c oneLineClipboard) Content() string {
	return strings.NewReplacer("\r\n", "", "\n", "", "\r", "").Replace(c.Clipboard.Content())
}

// fitRows asks for as many rows as the path takes wrapped at the entry's
// width (at least one, at most maxPathRows); the window lays the entry
// out again at its new minimum size.
func (e *PathEntry) fitRows() {
	if rows := e.wrappedRows(); rows != e.rows {
		e.rows = rows
		e.Entry.SetMinRowsVisible(rows)
	}
}

// wrappedRows is the number of rows the text takes when broken at any
// character to the entry's text width (as fyne.TextWrapBreak does): the
// width less the border, the inner padding on both sides and the
// validation icon.
func (e *PathEntry) wrappedRows() int {
	th := e.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	avail := e.Size().Width - 2*pad - 2*th.Size(theme.SizeNameInputBorder)
	if e.Validator != nil {
		avail -= th.Size(theme.SizeNameInlineIcon) + th.Size(theme.SizeNameLineSpacing) + pad
	}
	if avail <= 0 {
		return 1
	}
	size := th.Size(theme.SizeNameText)
	runes := []rune(e.Text)
	rows, start := 1, 0
	for i := range runes {
		if i > start && fyne.MeasureText(string(runes[start:i+1]), size, e.TextStyle).Width > avail {
			rows++
			start = i
		}
	}
	return min(rows, maxPathRows)
}
