package files

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

	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// OpenFileFlow is the curator's Open dialog: a path typed (Enter opens
// it, Escape cancels, so a file can be opened with the keyboard alone) or
// chosen with Browse… in Fyne's file dialog.
type OpenFileFlow struct {
	Dlg  *widgets.Dialog
	Path *widgets.KeyEntry
	Msg  *widget.Label
}

// ShowOpenFile asks for a file in Fyne's file dialog (only the extensions
// exts are offered; none: any file) and calls open with its path. Fyne
// opens the file for reading before the callback; it is closed at once:
// the caller reads it itself.
func ShowOpenFile(win fyne.Window, exts []string, open func(path string)) {
	fileOpenDialog(win, exts, "", open).Show()
}

// fileOpenDialog is Fyne's file dialog for ShowOpenFile, starting in dir
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
	startIn(d, dir)
	return d
}

// ShowOpenPath is the curator's Open dialog (OpenFileFlow): exts as for
// ShowOpenFile, dir the folder it starts in ("" none).
func ShowOpenPath(win fyne.Window, exts []string, dir string, open func(path string)) *OpenFileFlow {
	f := &OpenFileFlow{Path: widgets.NewKeyEntry(false), Msg: widget.NewLabel("")}
	f.Msg.Wrapping = fyne.TextWrapWord
	f.Msg.Importance = widget.DangerImportance
	f.Msg.Hide()
	f.Path.SetPlaceHolder("type a path, e.g. " + filepath.Join(dir, "data"+firstOr(exts, ".csv")))
	prefill := ""
	if dir != "" {
		prefill = dir + string(filepath.Separator)
		f.Path.SetText(prefill)
		// Typing goes after the folder, not in front of it.
		f.Path.CursorColumn = len([]rune(prefill))
		f.Path.Refresh()
	}
	// Where Parquet files are offered, a folder of them is one source
	// (the embedded DuckDB reads every *.parquet file in it).
	parquetFolders := slices.Contains(exts, ".parquet")
	say := func(s string) {
		f.Msg.SetText(s)
		f.Msg.Show()
	}
	choose := func() bool {
		p := typedPath(f.Path.Text, prefill)
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
		case st.IsDir() && !(parquetFolders && hasParquet(p)):
			if parquetFolders {
				say(fmt.Sprintf("%q is a folder with no .parquet files: type a file name after it, or the path of a folder of Parquet files.", p))
			} else {
				say(fmt.Sprintf("%q is a folder: type a file name after it.", p))
			}
			return false
		case st.IsDir():
			// a folder of Parquet files: one source
		case !st.IsDir() && len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(p))):
			say(fmt.Sprintf("%q is not one of %s.", filepath.Base(p), strings.Join(exts, ", ")))
			return false
		}
		f.Dlg.Hide() // first: open may show a dialog of its own
		open(p)
		return false
	}
	browse := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		f.Dlg.Hide()
		fileOpenDialog(win, exts, dir, open).Show()
	})
	accepted := "Accepted: " + strings.Join(exts, ", ")
	if parquetFolders {
		accepted += ", or a folder of .parquet files (type its path, or choose it with Folder…)"
	}
	help := widget.NewLabel(accepted + ". Enter opens the file typed, Escape cancels.")
	help.Wrapping = fyne.TextWrapWord
	help.TextStyle.Italic = true
	buttons := container.NewHBox(browse)
	if parquetFolders {
		folder := widget.NewButtonWithIcon("Folder…", theme.FolderIcon(), func() {
			f.Dlg.Hide()
			folderOpenDialog(win, dir, open).Show()
		})
		buttons.Add(folder)
	}
	content := container.NewVBox(container.NewBorder(nil, nil, nil, buttons, f.Path), f.Msg, help)
	f.Dlg = widgets.ShowDialog(win, "Open", content, []string{"Cancel", "Open"}, []func() bool{nil, choose})
	f.Dlg.Pop.Resize(fyne.NewSize(min(640, max(win.Canvas().Size().Width-16, 480)), f.Dlg.Pop.MinSize().Height))
	return f
}

// folderOpenDialog is Fyne's folder dialog, for a folder of Parquet
// files, starting in dir if given.
func folderOpenDialog(win fyne.Window, dir string, open func(path string)) *dialog.FileDialog {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			dialog.ShowError(err, win)
			return
		}
		if u == nil {
			return
		}
		if !hasParquet(u.Path()) {
			dialog.ShowError(fmt.Errorf("%s holds no .parquet files", u.Path()), win)
			return
		}
		open(u.Path())
	}, win)
	startIn(d, dir)
	return d
}

// startIn makes d start in the folder dir, if given and listable.
func startIn(d *dialog.FileDialog, dir string) {
	if dir == "" {
		return
	}
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
}

// hasParquet reports whether the folder dir holds a *.parquet file.
func hasParquet(dir string) bool {
	m, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	return err == nil && len(m) > 0
}

// typedPath is the path the curator meant: the entry's text trimmed, or,
// when a whole absolute path was typed after the prefilled folder, that
// path (the folder was left in the field by mistake).
func typedPath(text, prefill string) string {
	p := strings.TrimSpace(text)
	if prefill != "" && strings.HasPrefix(p, prefill) {
		if rest := p[len(prefill):]; filepath.IsAbs(rest) {
			return rest
		}
	}
	return p
}

func firstOr(v []string, def string) string {
	if len(v) > 0 {
		return v[0]
	}
	return def
}
