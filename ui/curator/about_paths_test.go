package curator

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestAboutShowsDataPaths: Help ▸ About lists the ledger, the key, the
// allowed_signers file and the config folder the window really uses, with a
// button that opens the folder.
func TestAboutShowsDataPaths(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(c.showAbout)
	var texts []string
	var open *widget.Button
	f.do(func() {
		for _, o := range test.LaidOutObjects(c.win.Canvas().Overlays().Top()) {
			switch w := o.(type) {
			case *widget.Label:
				if w.Selectable {
					texts = append(texts, w.Text)
				}
			case *widget.Button:
				if w.Text == "Open the data folder" {
					open = w
				}
			}
		}
	})
	got := strings.Join(texts, "\n")
	for _, want := range []string{c.opts.LedgerPath, c.opts.KeyPath, "allowed_signers", c.opts.ConfigDir} {
		if !strings.Contains(got, want) {
			t.Errorf("About does not show %q; its paths: %q", want, texts)
		}
	}
	if open == nil {
		t.Fatal("About has no \"Open the data folder\" button")
	}
	if txt := f.overlay(); !strings.Contains(txt, "(ε, δ)-DP") {
		t.Errorf("the About blurb does not mention (ε, δ)-DP: %q", txt)
	}
	// Escape closes it, like every curator dialog.
	f.pressKey(fyne.KeyEscape)
	if c.win.Canvas().Overlays().Top() != nil {
		t.Error("Escape does not close About")
	}
}

func TestFolderURL(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/a/.config/bernstein":            "file:///home/a/.config/bernstein",
		"C:/Users/a/AppData/Roaming/bernstein": "file:///C:/Users/a/AppData/Roaming/bernstein",
		"/home/a/My Documents/bernstein":       "file:///home/a/My%20Documents/bernstein",
	} {
		if got := folderURL(dir).String(); got != want {
			t.Errorf("folderURL(%q) = %q, want %q", dir, got, want)
		}
	}
}
