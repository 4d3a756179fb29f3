package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

// SaveTarget completes name with the extension ext if it lacks it and
// returns the full path in dir with the file's info, or nil info when no
// file is there yet. A name with folders in it, an empty name and a folder
// at the path are errors.
func SaveTarget(dir, name, ext string) (string, os.FileInfo, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsRune(name, os.PathSeparator) || name == "." || name == ".." {
		return "", nil, errors.New("enter a file name (without folders)")
	}
	if !strings.EqualFold(filepath.Ext(name), ext) {
		name += ext
	}
	path := filepath.Join(dir, name)
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return path, nil, nil
	case err != nil:
		return "", nil, err
	case st.IsDir():
		return "", nil, fmt.Errorf("%s is a folder", path)
	}
	return path, st, nil
}

// ShowSaveForm is the app's "Save as" for files it writes atomically. It
// replaces Fyne's save dialog, which creates (and truncates) the chosen
// file before the caller sees the name: then a failed write would lose the
// old file, and a name the caller completes with an extension would leave
// an empty stray file. The form asks for a folder and a name, checks them
// with target (full path, whether a file exists there, or why not), asks
// before replacing an existing file, and only then calls save with the
// folder and the path; it never touches the file itself.
func ShowSaveForm(win fyne.Window, title, dir, defaultName, hint string,
	target func(dir, name string) (string, bool, error), save func(dir, path string)) {
	if dir == "" {
		dir, _ = os.UserHomeDir()
	}
	folder := widget.NewLabel(dir)
	folder.Wrapping = fyne.TextWrapBreak
	change := widget.NewButton("Change…", func() {
		d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				dir = u.Path()
				folder.SetText(dir)
			}
		}, win)
		if u, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
			d.SetLocation(u)
		}
		d.Show()
	})
	name := widget.NewEntry()
	name.SetText(defaultName)
	name.Validator = func(s string) error {
		_, _, err := target(dir, s)
		return err
	}
	items := []*widget.FormItem{
		widget.NewFormItem("Folder", container.NewBorder(nil, nil, nil, change, folder)),
		{Text: "File name", Widget: name, HintText: hint},
	}
	form := dialog.NewForm(title, "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		path, exists, err := target(dir, name.Text)
		if err != nil {
			dialog.ShowError(err, win)
			return
		}
		if !exists {
			save(dir, path)
			return
		}
		dialog.ShowConfirm("Replace file?", fmt.Sprintf("%s already exists. Replace it?", path), func(yes bool) {
			if yes {
				save(dir, path)
			}
		}, win)
	}, win)
	form.Resize(fyne.NewSize(640, 260))
	form.Show()
}
