package files

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestOpenPathTypesAfterFolder is the walkthrough's reproduction: the
// second Ctrl+O prefilled the folder with the cursor at the start, so a
// typed name went in front of the folder ("…/x.csv/work/…/": not a
// directory). Typing now goes after the folder, and a whole absolute path
// typed after it is taken as that path.
func TestOpenPathTypesAfterFolder(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("open")
	w.Resize(fyne.NewSize(800, 600))
	dir := t.TempDir()
	file := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(file, []byte("a\n1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, typed := range []string{"x.csv", file} {
		var opened string
		f := ShowOpenPath(w, []string{".csv"}, dir, func(p string) { opened = p })
		test.Type(f.Path, typed)
		f.Path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		if opened != file {
			t.Errorf("typed %q after the prefilled folder: opened %q (entry %q, message %q), want %q", typed, opened, f.Path.Text, f.Msg.Text, file)
		}
	}
}

func TestTypedPath(t *testing.T) {
	for _, c := range []struct{ text, prefill, want string }{
		{"/d/x.csv", "/d/", "/d/x.csv"},
		{"/d//e/x.csv", "/d/", "/e/x.csv"},
		{"  /d/x.csv ", "/d/", "/d/x.csv"},
		{"/e/x.csv", "/d/", "/e/x.csv"},
		{"x.csv", "", "x.csv"},
	} {
		if got := typedPath(c.text, c.prefill); got != c.want {
			t.Errorf("typedPath(%q, %q) = %q, want %q", c.text, c.prefill, got, c.want)
		}
	}
}
