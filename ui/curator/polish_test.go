package curator

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// polishSizes are the window sizes the layout checks run at: a small
// laptop screen and a common one.
var polishSizes = []fyne.Size{fyne.NewSize(1024, 700), fyne.NewSize(1280, 800)}

// TestCuratorPreviewClearOfScrollBar: at 1024×700 and 1280×800, with a
// density (KDE demo) and a classifier (SVM demo) preview taller than the
// pane, nothing in the preview pane reaches under its vertical scroll bar
// (Fyne draws the bar over the content: it covered the plots' right edge).
func TestCuratorPreviewClearOfScrollBar(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	start := c.pages[stepStart].(*startPage)
	for _, demo := range []*struct {
		name string
		b    func() fyne.Tappable
	}{
		{"KDE demo", func() fyne.Tappable { return start.demoKDE }},
		{"SVM demo", func() fyne.Tappable { return start.demoSVM }},
	} {
		f.do(func() { test.Tap(demo.b()) })
		f.waitDataset()
		f.preview()
		for _, size := range polishSizes {
			f.do(func() { c.win.Resize(size) })
			f.waitIdle()
			var problems []string
			var scrolls bool
			f.do(func() {
				c.win.Content().Refresh()
				test.LaidOutObjects(c.win.Content())
				scrolls = c.preview.box.Content.MinSize().Height > c.preview.box.Size().Height
				problems = overflows(c.preview.content())
			})
			if !scrolls {
				t.Errorf("%s at %v: the preview does not scroll, so the check shows nothing", demo.name, size)
			}
			for _, p := range problems {
				t.Errorf("%s at %v: preview: %s", demo.name, size, p)
			}
		}
	}
}

// textX returns the x of each visible text drawn under o, relative to o,
// by its string (the first one found; UI goroutine).
func textX(o fyne.CanvasObject) map[string]float32 {
	out := map[string]float32{}
	var walk func(o fyne.CanvasObject, x float32)
	walk = func(o fyne.CanvasObject, x float32) {
		if !o.Visible() {
			return
		}
		x += o.Position().X
		switch v := o.(type) {
		case *canvas.Text:
			if _, seen := out[v.Text]; !seen && v.Text != "" {
				out[v.Text] = x
			}
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c, x)
			}
		case *container.Scroll:
			walk(v.Content, x)
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c, x)
			}
		}
	}
	walk(o, -o.Position().X)
	return out
}

// TestCuratorTableHeadersAlignWithCells: in the import step's table and the
// Data step's table a column's name starts where its values start (Fyne
// centred the names over leading-aligned values, so they sat off their
// cells in every column wider than its name).
func TestCuratorTableHeadersAlignWithCells(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "align.csv")
	csv := "id,label,v\n101,malignant and spreading,1234567.891234\n102,benign,7654321.123456\n"
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(where string, table fyne.CanvasObject) {
		t.Helper()
		x := textX(table)
		for _, pair := range [][2]string{{"id", "101"}, {"label", "malignant and spreading"}, {"v", "1234567.891234"}} {
			hx, okH := x[pair[0]]
			vx, okV := x[pair[1]]
			if !okH || !okV {
				t.Errorf("%s: header %q or value %q not shown (texts %v)", where, pair[0], pair[1], x)
				continue
			}
			if d := hx - vx; d > 0.5 || d < -0.5 {
				t.Errorf("%s: column %q starts at %.1f, its value %q at %.1f", where, pair[0], hx, pair[1], vx)
			}
		}
	}
	var fl *importFlow
	f.do(func() { fl = c.showImportStep(path, true, dataset.ImportOptions{}, "") })
	f.waitImportPreview(fl)
	f.do(func() {
		fl.dlg.Pop.Refresh()
		check("import step", fl.table)
	})
	f.do(func() { fl.dlg.Hide() })
	f.loadCSV(path)
	f.do(func() {
		c.showStep(stepData)
		c.win.Content().Refresh()
		check("Data step", c.pages[stepData].(*dataPage).table)
	})
}
