package curator

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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
