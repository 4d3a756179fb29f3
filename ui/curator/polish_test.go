package curator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// polishSizes are the window sizes the layout checks run at: a small
// laptop screen and a common one.
var polishSizes = []fyne.Size{fyne.NewSize(1024, 700), fyne.NewSize(1280, 800)}

// openDemo taps a demo's button on the Start step and waits for its
// preview.
func (f *curatorFixture) openDemo(button func(*startPage) *widget.Button) {
	f.t.Helper()
	f.do(func() { test.Tap(button(f.c.pages[stepStart].(*startPage))) })
	f.waitDataset()
	f.preview()
}

// TestCuratorPreviewClearOfScrollBar: at 1024×700 and 1280×800, with a
// density (KDE demo) and a classifier (SVM demo) preview taller than the
// pane, nothing in the preview pane reaches under its vertical scroll bar
// (Fyne draws the bar over the content: it covered the plots' right edge).
func TestCuratorPreviewClearOfScrollBar(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	for _, demo := range []struct {
		name   string
		button func(*startPage) *widget.Button
	}{
		{"KDE demo", func(p *startPage) *widget.Button { return p.demoKDE }},
		{"SVM demo", func(p *startPage) *widget.Button { return p.demoSVM }},
	} {
		f.openDemo(demo.button)
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

// sideScrolls lists the scrolls under o that scroll sideways: content
// wider than the scroll that shows it (UI goroutine). Entries are walked
// too: a single-line entry scrolls its text in a scroll of its own.
func sideScrolls(o fyne.CanvasObject) []string {
	var out []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if !o.Visible() {
			return
		}
		switch v := o.(type) {
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case *container.Scroll:
			if v.Direction != container.ScrollVerticalOnly && v.Direction != container.ScrollNone &&
				v.Content.Size().Width > v.Size().Width+0.5 {
				out = append(out, fmt.Sprintf("a scroll %.0f wide shows %s %.0f wide", v.Size().Width, describeObject(v.Content), v.Content.Size().Width))
			}
			walk(v.Content)
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

// TestCuratorReleaseStepNoSideScroll: at 1024×700 and 1280×800 the
// Release step shows a long synopsis path whole, wrapped over the rows it
// needs, with nothing scrolling sideways (a single-line entry scrolled the
// path under a horizontal scroll bar drawn over its text). The path entry
// takes no line break: Enter leaves the text alone, a pasted line break
// is dropped.
func TestCuratorReleaseStepNoSideScroll(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.openDemo(func(p *startPage) *widget.Button { return p.demoKDE })
	rp := c.pages[stepRelease].(*releasePage)
	long := filepath.Join(f.dir, "releases", "2026", "demo-private-density-of-a-two-bump-mixture.synopsis")
	for _, size := range polishSizes {
		var problems []string
		var pageMin, pageSize float32
		var inner *container.Scroll
		f.do(func() {
			c.win.Resize(size)
			c.showStep(stepRelease)
			rp.out.SetText(long)
			for range 2 { // the entry's rows follow its width: a second pass lays them out
				c.win.Content().Refresh()
				test.LaidOutObjects(c.win.Content())
			}
			problems = sideScrolls(rp.box)
			pageMin, pageSize = c.pageBox.MinSize().Width, c.pageScroll.Size().Width
			for _, o := range test.WidgetRenderer(rp.out).Objects() {
				if s, ok := o.(*container.Scroll); ok && s.Visible() {
					inner = s
				}
			}
		})
		for _, p := range problems {
			t.Errorf("Release step at %v: %s", size, p)
		}
		if pageMin > pageSize+0.5 {
			t.Errorf("Release step at %v: the page needs %.0f of its %.0f", size, pageMin, pageSize)
		}
		if inner == nil {
			t.Fatalf("at %v the path entry has no scroll", size)
		}
		f.do(func() {
			if h, shown := inner.Content.MinSize().Height, inner.Size().Height; h > shown+0.5 {
				t.Errorf("at %v the path needs %.0f of the entry's %.0f: not shown whole", size, h, shown)
			}
		})
	}
	f.do(func() {
		rp.out.SetText("/tmp/a.synopsis")
		c.win.Canvas().Focus(rp.out)
		rp.out.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		rp.out.TypedShortcut(&fyne.ShortcutPaste{Clipboard: &testClipboard{text: "x\ny\r\n"}})
		if strings.ContainsAny(rp.out.Text, "\r\n") {
			t.Errorf("the path entry took a line break: %q", rp.out.Text)
		}
		if !strings.Contains(rp.out.Text, "xy") {
			t.Errorf("the pasted text is missing: %q", rp.out.Text)
		}
	})
}

// testClipboard is a clipboard holding text.
type testClipboard struct{ text string }

func (c *testClipboard) Content() string     { return c.text }
func (c *testClipboard) SetContent(s string) { c.text = s }
