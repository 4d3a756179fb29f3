package ui

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

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// The viewer does not use Fyne's save dialog: it opens (and truncates) the
// chosen file before the caller sees the name, so an analyst who picked
// the open synopsis by mistake would destroy it. The viewer's own "Save
// as" asks for a folder and a name, refuses any target that is the open
// synopsis or a .synopsis file or a protected file (save_protect.go),
// confirms before replacing a file, and writes through
// fileio.WriteAtomic (temporary file, then rename).

// saveTarget completes name with the extension ext if it lacks it and
// returns the full path in dir with the file's info, or nil info when no
// file is there yet. A name with folders in it, an empty name and a folder
// at the path are errors.
func saveTarget(dir, name, ext string) (string, os.FileInfo, error) {
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

// viewerSaveTarget checks a save target chosen by the analyst: name is
// given the extension ext if it lacks it; the result must not be a
// .synopsis file nor the same file as protect (the open synopsis). It
// returns the full path and whether a file already exists there.
func viewerSaveTarget(dir, name, ext, protect string) (string, bool, error) {
	path, st, err := saveTarget(dir, name, ext)
	if err != nil {
		return "", false, err
	}
	if strings.EqualFold(filepath.Ext(path), synopsis.Ext) {
		return "", false, errors.New("the viewer never writes .synopsis files")
	}
	if st == nil {
		return path, false, nil
	}
	if protect != "" {
		if pst, err := os.Stat(protect); err == nil && os.SameFile(st, pst) {
			return "", false, errors.New("that is the synopsis file you are viewing; the viewer never changes it")
		}
	}
	return path, true, nil
}

// saveAs asks where to save a file with extension ext (e.g. ".csv") and
// calls save with the chosen path once the analyst confirmed (including
// replacing an existing file).
func (v *viewer) saveAs(title, defaultName, ext string, save func(path string)) {
	dir := v.saveDir
	if dir == "" && v.doc != nil {
		dir = filepath.Dir(v.doc.Path)
	}
	protect := ""
	if v.doc != nil {
		protect = v.doc.Path
	}
	target := protectTarget(func(dir, name string) (string, bool, error) {
		return viewerSaveTarget(dir, name, ext, protect)
	}, v.protectedFiles)
	showSaveForm(v.win, title, dir, defaultName, "saved as "+ext, target, func(dir, path string) {
		v.saveDir = dir
		save(path)
	})
}

// showSaveForm is the app's "Save as" for files it writes atomically. It
// replaces Fyne's save dialog, which creates (and truncates) the chosen
// file before the caller sees the name: then a failed write would lose the
// old file, and a name the caller completes with an extension would leave
// an empty stray file. The form asks for a folder and a name, checks them
// with target (full path, whether a file exists there, or why not), asks
// before replacing an existing file, and only then calls save with the
// folder and the path; it never touches the file itself.
func showSaveForm(win fyne.Window, title, dir, defaultName, hint string,
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
