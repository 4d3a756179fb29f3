package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
)

// showOpenFile asks for a file (only the extensions exts are offered; none:
// any file) and calls open with its path. Fyne opens the file for reading
// before the callback; it is closed at once: the caller reads it itself.
func showOpenFile(win fyne.Window, exts []string, open func(path string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			dialog.ShowError(err, win)
			return
		}
		if r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		open(path)
	}, win)
	if len(exts) > 0 {
		d.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	d.Show()
}
