package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
)

// TestViewerSaveRefusesProtectedFiles (issue 14 item 6): the viewer's save
// form refuses a file name that is a symbolic or hard link to the
// analyst's allowed_signers file, in the form itself (the name entry's
// validation) and when Save is pressed; the file is untouched.
func TestViewerSaveRefusesProtectedFiles(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 14)
	trust := viewerTrustFile(t, dir, "c@example.org", signer)
	path := viewerFixtureKDE.write(t, dir, signer)
	v := newTestViewer(t, trust, path)
	v.wait()
	before, err := os.ReadFile(trust)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(trust, filepath.Join(dir, "sym.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(trust, filepath.Join(dir, "hard.csv")); err != nil {
		t.Fatal(err)
	}
	target := files.ProtectTarget(func(d, name string) (string, bool, error) {
		return viewerSaveTarget(d, name, ".csv", path)
	}, v.protectedFiles)
	for _, name := range []string{"sym", "hard.csv"} {
		if _, _, err := target(dir, name); !errors.Is(err, release.ErrProtectedPath) {
			t.Errorf("%s: err = %v, want ErrProtectedPath", name, err)
		}
	}
	if _, _, err := target(dir, "fresh"); err != nil {
		t.Errorf("fresh name refused: %v", err)
	}

	// Through the real form: type the name, press Save.
	saved := false
	v.saveAs("Export", "sym.csv", ".csv", func(string) { saved = true })
	form := v.win.Canvas().Overlays().Top()
	if form == nil {
		t.Fatal("no save form")
	}
	var entry *widget.Entry
	var save *widget.Button
	walkWidgets(t, form, func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Entry:
			entry = w
		case *widget.Button:
			if w.Text == "Save" {
				save = w
			}
		}
	})
	if entry == nil || save == nil {
		t.Fatal("no name entry or Save button in the save form")
	}
	if err := entry.Validate(); err == nil || !strings.Contains(err.Error(), "refusing to write there") {
		t.Errorf("name entry validation: %v", err)
	}
	test.Tap(save)
	if saved {
		t.Error("save called for a protected file")
	}
	if after, _ := os.ReadFile(trust); string(after) != string(before) {
		t.Error("allowed_signers changed")
	}
}

// walkWidgets calls fn on every object under o, looking inside widgets
// (dialogs, forms) through their renderers.
func walkWidgets(t *testing.T, o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch w := o.(type) {
	case *fyne.Container:
		for _, c := range w.Objects {
			walkWidgets(t, c, fn)
		}
	case fyne.Widget:
		for _, c := range test.TempWidgetRenderer(t, w).Objects() {
			walkWidgets(t, c, fn)
		}
	}
}
