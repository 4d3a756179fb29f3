package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
)

// The viewer does not use Fyne's save dialog: it opens (and truncates) the
// chosen file before the caller sees the name, so an analyst who picked
// the open synopsis by mistake would destroy it. The viewer's own "Save
// as" asks for a folder and a name, refuses any target that is the open
// synopsis or a .synopsis file or a protected file (protect.go),
// confirms before replacing a file, and writes through
// fileio.WriteAtomic (temporary file, then rename).

// viewerSaveTarget checks a save target chosen by the analyst: name is
// given the extension ext if it lacks it; the result must not be a
// .synopsis file nor the same file as protect (the open synopsis). It
// returns the full path and whether a file already exists there.
func viewerSaveTarget(dir, name, ext, protect string) (string, bool, error) {
	path, st, err := files.SaveTarget(dir, name, ext)
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
	target := files.ProtectTarget(func(dir, name string) (string, bool, error) {
		return viewerSaveTarget(dir, name, ext, protect)
	}, v.protectedFiles)
	files.ShowSaveForm(v.win, title, dir, defaultName, "saved as "+ext, target, func(dir, path string) {
		v.saveDir = dir
		save(path)
	})
}
