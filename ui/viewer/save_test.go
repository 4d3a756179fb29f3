package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

func TestViewerSaveTarget(t *testing.T) {
	dir := t.TempDir()
	syn := filepath.Join(dir, "release.synopsis")
	alias := filepath.Join(dir, "alias.csv") // a hard link to the synopsis
	existing := filepath.Join(dir, "old.csv")
	for _, p := range []string{syn, existing} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(syn, alias); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		want     string // path, or "" for an error
		exists   bool
		errMatch string
	}{
		{"results", filepath.Join(dir, "results.csv"), false, ""},
		{"results.CSV", filepath.Join(dir, "results.CSV"), false, ""},
		{" old.csv ", existing, true, ""},
		{"", "", false, "enter a file name"},
		{"a/b.csv", "", false, "without folders"},
		{"release.synopsis", filepath.Join(dir, "release.synopsis.csv"), false, ""},
		{"release.synopsis.csv", filepath.Join(dir, "release.synopsis.csv"), false, ""},
		{"alias.csv", "", false, "synopsis file you are viewing"},
		{"sub", "", false, "is a folder"},
	}
	for _, tc := range tests {
		got, exists, err := viewerSaveTarget(dir, tc.name, ".csv", syn)
		switch {
		case tc.want != "" && (err != nil || got != tc.want || exists != tc.exists):
			t.Errorf("%q: got (%q, %v, %v), want (%q, %v)", tc.name, got, exists, err, tc.want, tc.exists)
		case tc.want == "" && (err == nil || !strings.Contains(err.Error(), tc.errMatch)):
			t.Errorf("%q: error %v, want one containing %q", tc.name, err, tc.errMatch)
		}
	}
	// A .synopsis target is refused even when it is not the open file.
	if _, _, err := viewerSaveTarget(dir, "other.SYNOPSIS", ".synopsis", ""); err == nil {
		t.Error("a .synopsis target was accepted")
	}
}

// TestViewerExportButtonsOpenSaveForm: the export buttons open the
// viewer's own save form (not Fyne's save dialog, which truncates the file
// it is given before the viewer could refuse it).
func TestViewerExportButtonsOpenSaveForm(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 14)
	path := viewerFixtureKDE.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	v.plot.ensure()
	v.wait()
	test.Tap(v.plot.svgBt)
	top := v.win.Canvas().Overlays().Top()
	if top == nil || !strings.Contains(widgetTexts(t, top), dir) {
		t.Fatalf("Export SVG… did not open the save form in the synopsis' folder: %v", top)
	}
}
