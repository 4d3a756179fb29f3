package curator

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// overflows lists what does not fit in root as laid out (UI goroutine):
// a visible object reaching past root's right edge, or, inside a vertical
// scroll, under its scroll bar (Fyne draws the bar over the content);
// and a button, check box or unwrapped label narrower than its minimum
// (its text cut). Scrolls that also scroll sideways, tables, lists and
// entries scroll their own content and are checked as a whole.
func overflows(root fyne.CanvasObject) []string {
	var out []string
	var walk func(o fyne.CanvasObject, x, limit float32)
	walk = func(o fyne.CanvasObject, x, limit float32) {
		if _, spacer := o.(*canvas.Rectangle); spacer || !o.Visible() {
			return // a spacer, a background or a gutter: no text
		}
		x += o.Position().X
		if right := x + o.Size().Width; right > limit+0.5 {
			out = append(out, fmt.Sprintf("%s reaches %.0f, past %.0f", describeObject(o), right, limit))
		}
		cut := false
		switch v := o.(type) {
		case *widget.Button, *widget.Check, *widgets.KeyCheck:
			cut = true
		case *widget.Label:
			cut = v.Wrapping == fyne.TextWrapOff && v.Truncation == fyne.TextTruncateOff
		}
		if min := o.MinSize().Width; cut && o.Size().Width < min-0.5 {
			out = append(out, fmt.Sprintf("%s is %.0f wide, needs %.0f", describeObject(o), o.Size().Width, min))
		}
		switch v := o.(type) {
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c, x, limit)
			}
		case *container.Scroll:
			if v.Direction != container.ScrollVerticalOnly {
				break
			}
			// The content spans the scroll; what is in it must stay
			// clear of the bar.
			bar := min(limit, x+v.Size().Width-theme.ScrollBarSize())
			if c, ok := v.Content.(*fyne.Container); ok {
				cx := x + c.Position().X
				for _, o := range c.Objects {
					walk(o, cx, bar)
				}
			} else {
				walk(v.Content, x, bar)
			}
		case *widget.Entry, *widgets.KeyEntry, *widgets.TabEntry, *widgets.PathEntry, *widget.Table, *widget.List, *widget.Select, *widgets.KeySelect,
			*widget.Label, *widget.Button, *widget.Check, *widgets.KeyCheck, *widget.RichText:
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c, x, limit)
			}
		}
	}
	walk(root, -root.Position().X, root.Size().Width)
	return out
}

// describeObject names o and its text, if it has one, for a message.
func describeObject(o fyne.CanvasObject) string {
	text := ""
	switch v := o.(type) {
	case *widget.Label:
		text = v.Text
	case *widget.Button:
		text = v.Text
	case *widget.Check:
		text = v.Text
	case *widgets.KeyCheck:
		text = v.Text
	}
	if len(text) > 40 {
		text = text[:40] + "…"
	}
	return fmt.Sprintf("%s %q", reflect.TypeOf(o), text)
}

// dialogFits checks that the dialog d is the window's size less
// widgets.DialogMargin on every side (the window has size) and that
// nothing in it overflows.
func (f *curatorFixture) dialogFits(d *widgets.Dialog, size fyne.Size) {
	f.t.Helper()
	var got fyne.Size
	var problems []string
	f.do(func() {
		d.Pop.Refresh()
		test.LaidOutObjects(d.Pop)
		got = d.Pop.Content.Size()
		problems = overflows(d.Pop.Content)
	})
	want := size.Subtract(fyne.NewSquareSize(2 * widgets.DialogMargin))
	if got.Width < want.Width-0.5 || got.Width > size.Width+0.5 || got.Height > size.Height+0.5 {
		f.t.Errorf("in a %v window the dialog is %v, want %v wide (the window less the margins) and within the window", size, got, want.Width)
	}
	for _, p := range problems {
		f.t.Errorf("dialog in a %v window: %s", size, p)
	}
}

// TestCuratorDialogsFitTheWindow: the import dialog and "Use aggregates
// computed elsewhere" take the window less a margin, at 1024×700 and after
// the window grows to 1600×1000 or shrinks back (they kept the width they
// opened at and clipped on the right in a wider window), and no text,
// entry or button in them reaches past their right edge or under a scroll
// bar.
func TestCuratorDialogsFitTheWindow(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	small, large := fyne.NewSize(1024, 700), fyne.NewSize(1600, 1000)
	path := filepath.Join(f.dir, "preamble.csv")
	if err := os.WriteFile(path, []byte(preambleCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.win.Resize(small) })
	var fl *importFlow
	f.do(func() {
		fl = c.showImportStep(path, true, dataset.ImportOptions{}, "The file could not be read with the options it had.")
	})
	f.waitImportPreview(fl)
	f.dialogFits(fl.dlg, small)
	f.do(func() { c.win.Resize(large) })
	f.dialogFits(fl.dlg, large)
	f.do(func() { fl.dlg.Hide() })

	f.do(func() { c.showAggregatesDialog() })
	form := c.aggForm
	f.dialogFits(form.dlg, large)
	f.do(func() { c.win.Resize(small) })
	f.do(func() {
		if got := form.dlg.Pop.Content.Size(); got.Width > small.Width+0.5 || got.Height > small.Height+0.5 {
			t.Errorf("after the window shrank to %v the dialog is %v", small, got)
		}
	})
	f.do(func() { form.dlg.Hide() })
	f.do(func() { c.showAggregatesDialog() })
	f.dialogFits(c.aggForm.dlg, small)
	f.do(func() { c.aggForm.dlg.Hide() })
	f.waitIdle()
}

// TestCuratorPrivacyButtonsClear: at 1024×700 "Find the smallest ε" and
// "Set total budget" are as wide as they need and end clear of the
// Privacy step's scroll bar (Fyne draws the bar over the content, and it
// cut their ends).
func TestCuratorPrivacyButtonsClear(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	size := fyne.NewSize(1024, 700)
	f.do(func() { c.win.Resize(size) })
	f.waitIdle()
	p := c.pages[stepPrivacy].(*privacyPage)
	f.do(func() {
		c.showStep(stepPrivacy)
		c.win.Content().Refresh()
		test.LaidOutObjects(c.win.Content())
		d := fyne.CurrentApp().Driver()
		bar := d.AbsolutePositionForObject(p.box).X + p.box.Size().Width - theme.ScrollBarSize()
		for _, b := range []*widget.Button{p.target.find, p.setTotal} {
			if !b.Visible() {
				t.Errorf("%q is hidden", b.Text)
			}
			if b.Size().Width < b.MinSize().Width-0.5 {
				t.Errorf("%q is %.0f wide, needs %.0f", b.Text, b.Size().Width, b.MinSize().Width)
			}
			if right := d.AbsolutePositionForObject(b).X + b.Size().Width; right > bar+0.5 {
				t.Errorf("%q ends at %.0f, under the scroll bar from %.0f", b.Text, right, bar)
			}
		}
	})
	f.stepsFit(size)
}
