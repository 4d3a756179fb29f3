package curator

import (
	"net/url"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// aboutPath is one row of the About dialog's "Where your data live".
type aboutPath struct{ what, path string }

// aboutPaths lists the files the curator keeps outside the user's documents:
// the ledger and the signing key (as this window uses them), the trusted
// keys and the folder of the demo data and the autosave.
func (c *curator) aboutPaths() []aboutPath {
	signers, err := keys.DefaultAllowedSignersPath()
	if err != nil {
		signers = err.Error()
	}
	return []aboutPath{
		{"Privacy ledger", c.opts.LedgerPath},
		{"Signing key", c.opts.KeyPath},
		{"Trusted keys (allowed_signers)", signers},
		{"Demo data and autosave", c.opts.ConfigDir},
	}
}

// aboutPathsBox shows aboutPaths as selectable text with a button that opens
// the configuration folder in the system's file manager. Upgrading or
// reinstalling the application leaves this folder alone (docs/install.md).
func (c *curator) aboutPathsBox() fyne.CanvasObject {
	form := widget.NewForm()
	for _, p := range c.aboutPaths() {
		// A selectable label: full contrast (a disabled entry was grey),
		// copyable, not editable.
		l := widget.NewLabel(p.path)
		l.Selectable = true
		l.Wrapping = fyne.TextWrapBreak
		form.Append(p.what, l)
	}
	dir := c.opts.ConfigDir
	open := widget.NewButtonWithIcon("Open the data folder", theme.FolderOpenIcon(), func() {
		if err := c.app.OpenURL(folderURL(dir)); err != nil {
			widgets.ShowError(c.win, err)
		}
	})
	return container.NewVBox(widget.NewLabelWithStyle("Where your data live", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		form, container.NewHBox(open))
}

// folderURL is the file: URL of the absolute directory dir, on Unix
// (file:///home/a/.config/bernstein) and on Windows
// (file:///C:/Users/a/AppData/Roaming/bernstein).
func folderURL(dir string) *url.URL {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return &url.URL{Scheme: "file", Path: p}
}
