package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// openFileFlow is the curator's Open dialog: a path typed (Enter opens
// it, Escape cancels, so a file can be opened with the keyboard alone) or
// chosen with Browse… in Fyne's file dialog.
type openFileFlow struct {
	dlg  *curatorDialog
	path *keyEntry
	msg  *widget.Label
}

// showOpenFile asks for a file in Fyne's file dialog (only the extensions
// exts are offered; none: any file) and calls open with its path. Fyne
// opens the file for reading before the callback; it is closed at once:
// the caller reads it itself.
func showOpenFile(win fyne.Window, exts []string, open func(path string)) {
	fileOpenDialog(win, exts, "", open).Show()
}

// fileOpenDialog is Fyne's file dialog for showOpenFile, starting in dir
// if given.
func fileOpenDialog(win fyne.Window, exts []string, dir string, open func(path string)) *dialog.FileDialog {
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
	if dir != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(l)
		}
	}
	return d
}

// showOpenPath is the curator's Open dialog (openFileFlow): exts as for
// showOpenFile, dir the folder it starts in ("" none).
func showOpenPath(win fyne.Window, exts []string, dir string, open func(path string)) *openFileFlow {
	f := &openFileFlow{path: newKeyEntry(false), msg: widget.NewLabel("")}
	f.msg.Wrapping = fyne.TextWrapWord
	f.msg.Importance = widget.DangerImportance
	f.msg.Hide()
	f.path.SetPlaceHolder("type a path, e.g. " + filepath.Join(dir, "data"+firstOr(exts, ".csv")))
	if dir != "" {
		f.path.SetText(dir + string(filepath.Separator))
	}
	say := func(s string) {
		f.msg.SetText(s)
		f.msg.Show()
	}
	choose := func() bool {
		p := strings.TrimSpace(f.path.Text)
		if strings.HasPrefix(p, "~"+string(filepath.Separator)) {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[2:])
			}
		}
		st, err := os.Stat(p)
		switch {
		case p == "":
			say("Type the path of a file, or choose one with Browse….")
			return false
		case err != nil:
			say(fmt.Sprintf("Cannot open %q: %v", p, err))
			return false
		case st.IsDir():
			say(fmt.Sprintf("%q is a folder: type a file name after it.", p))
			return false
		case len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(p))):
			say(fmt.Sprintf("%q is not one of %s.", filepath.Base(p), strings.Join(exts, ", ")))
			return false
		}
		f.dlg.Hide() // first: open may show a dialog of its own
		open(p)
		return false
	}
	browse := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		f.dlg.Hide()
		fileOpenDialog(win, exts, dir, open).Show()
	})
	help := widget.NewLabel("Accepted: " + strings.Join(exts, ", ") + ". Enter opens the file typed, Escape cancels.")
	help.Wrapping = fyne.TextWrapWord
	help.TextStyle.Italic = true
	content := container.NewVBox(container.NewBorder(nil, nil, nil, browse, f.path), f.msg, help)
	f.dlg = showCuratorDialog(win, "Open", content, []string{"Cancel", "Open"}, []func() bool{nil, choose})
	f.dlg.pop.Resize(fyne.NewSize(min(640, max(win.Canvas().Size().Width-16, 480)), f.dlg.pop.MinSize().Height))
	return f
}

func firstOr(v []string, def string) string {
	if len(v) > 0 {
		return v[0]
	}
	return def
}
