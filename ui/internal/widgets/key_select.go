package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// KeySelect is a drop-down of a curator dialog: Escape dismisses the
// dialog and Enter runs its default action while it has the focus (Space
// and the arrow keys still open it); a plain select swallows both.
type KeySelect struct {
	widget.Select
	onEscape, onEnter func()
}

// NewKeySelect returns a dialog drop-down with the options and change
// handler of widget.NewSelect.
func NewKeySelect(options []string, changed func(string)) *KeySelect {
	s := &KeySelect{}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

func (s *KeySelect) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case ev.Name == fyne.KeyEscape && s.onEscape != nil:
		s.onEscape()
	case (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && s.onEnter != nil:
		s.onEnter()
	default:
		s.Select.TypedKey(ev)
	}
}
