package curator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// textOverflow is one text object drawn outside its pane.
type textOverflow struct {
	text        string
	left, right float32 // the text's absolute extent
	paneLo      float32
	paneHi      float32
}

// textCheck walks the window's objects from the root and collects every
// visible text drawn outside the horizontal extent of the pane it lies in
// (a member of panes) and every label in a pane whose text is not drawn in
// full (truncated instead of wrapped). Entries and tables are skipped:
// they scroll their text inside themselves; so are horizontally
// scrolling containers inside a pane.
type textCheck struct {
	panes     []fyne.CanvasObject
	over      []textOverflow
	truncated []string
	texts     int // texts checked, so that a walk that finds none fails
}

func (tc *textCheck) walk(o fyne.CanvasObject, at fyne.Position, inPane bool, lo, hi float32) {
	if o == nil || !o.Visible() {
		return
	}
	pos := at.Add(o.Position())
	pane := false
	for _, p := range tc.panes {
		if o == p {
			pane, inPane, lo, hi = true, true, pos.X, pos.X+o.Size().Width
		}
	}
	switch x := o.(type) {
	case *widget.Entry, *widgets.KeyEntry, *widget.Table:
		return
	case *container.Scroll:
		if !pane && inPane && x.Direction != container.ScrollVerticalOnly && x.Direction != container.ScrollNone {
			return
		}
	case *canvas.Text:
		if !inPane || strings.TrimSpace(x.Text) == "" {
			return
		}
		tc.texts++
		w := fyne.MeasureText(x.Text, x.TextSize, x.TextStyle).Width
		l := pos.X
		switch x.Alignment {
		case fyne.TextAlignTrailing:
			l = pos.X + x.Size().Width - w
		case fyne.TextAlignCenter:
			l = pos.X + (x.Size().Width-w)/2
		}
		if l < lo-1 || l+w > hi+1 {
			tc.over = append(tc.over, textOverflow{x.Text, l, l + w, lo, hi})
		}
		return
	case *widget.Label:
		if inPane {
			var drawn strings.Builder
			for _, t := range test.LaidOutObjects(x) {
				if ct, ok := t.(*canvas.Text); ok {
					drawn.WriteString(ct.Text)
				}
			}
			squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if squash(drawn.String()) != squash(x.Text) {
				tc.truncated = append(tc.truncated, x.Text)
			}
		}
	}
	var children []fyne.CanvasObject
	switch x := o.(type) {
	case *fyne.Container:
		children = x.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(x).Objects()
	}
	for _, ch := range children {
		tc.walk(ch, pos, inPane, lo, hi)
	}
}

// longestMessages puts the longest status and error texts the curator
// writes into its labels: a file-read error on a deep path, the preview's
// step message, the preview's warning and an unbroken 200-character path.
func longestMessages(f *curatorFixture) {
	c := f.c
	deep := filepath.Join(f.dir, strings.Repeat("a_very_long_directory_name_", 4), strings.Repeat("x", 120)+".csv")
	if err := os.MkdirAll(filepath.Dir(deep), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(deep, []byte("title line of a file with a preamble\nmean_radius,mean_texture,diagnosis\n1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.do(func() { c.openPath(deep) })
	select {
	case err := <-f.datasets:
		if err == nil {
			f.t.Fatal("the malformed CSV was read without an error")
		}
	case <-time.After(120 * time.Second):
		f.t.Fatal("timed out reading the malformed CSV")
	}
	f.waitIdle()
	p := c.preview
	f.do(func() {
		p.tradeoff.SetMessage(`Step "Bounds": bounds of mean_radius_of_the_patient_cohort_baseline_visit_in_standard_units: enter public bounds (from domain knowledge, not from the data)`)
		p.warn.SetText("This preview compares simulated releases with the exact F_D of the private data: settings chosen from this preview are not covered by ε; use Choose privately… to pick them under DP (or preview on a public stand-in). " + deep)
		p.stage.SetText("The preview could not be computed: " + deep)
		c.setStatus("Could not read %s: row 3 has 31 fields, the header has 3 (delimiter ',')", deep)
	})
}

// TestCuratorLongMessagesWrap (issue 17 item 3): with the longest status
// and error texts, at 1024×700, on every step no text object is drawn
// beyond its pane (the steps, the preview, the status bar) and no label is
// truncated: every message wraps inside its pane.
func TestCuratorLongMessagesWrap(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { c.win.Resize(fyne.NewSize(1024, 700)) })
	longestMessages(f)
	dp := c.pages[stepData].(*dataPage)
	if !strings.Contains(dp.errs.Text, "fields, the header has") {
		t.Fatalf("the data page shows no read error: %q", dp.errs.Text)
	}
	for _, step := range wizardSteps {
		f.do(func() {
			c.showStep(step)
			c.win.Content().Refresh()
			test.LaidOutObjects(c.win.Content())
		})
		f.do(func() {
			// A text too wide for its pane must not widen the window
			// (or the pane) instead of wrapping.
			if min := c.win.Content().MinSize(); min.Width > 1024 {
				t.Errorf("step %s: the window needs width %.0f > 1024", step, min.Width)
			}
			if w := c.win.Canvas().Size().Width; w > 1024 {
				t.Errorf("step %s: the window grew to width %.0f", step, w)
			}
			tc := &textCheck{panes: []fyne.CanvasObject{c.pageScroll, c.split.Trailing, c.status, c.budget}}
			tc.walk(c.win.Content(), fyne.Position{}, false, 0, 0)
			if tc.texts < 20 {
				t.Errorf("step %s: only %d texts checked", step, tc.texts)
			}
			for _, o := range tc.over {
				t.Errorf("step %s: text %.60q drawn at x %.0f…%.0f, outside its pane %.0f…%.0f", step, o.text, o.left, o.right, o.paneLo, o.paneHi)
			}
			for _, s := range tc.truncated {
				t.Errorf("step %s: label %.60q is truncated, not wrapped", step, s)
			}
		})
	}
	// The status bar shows the whole error (it wraps instead of
	// ending in an ellipsis).
	if c.status.Truncation != fyne.TextTruncateOff || c.status.Wrapping == fyne.TextWrapOff {
		t.Errorf("the status line truncates (%v) or does not wrap (%v)", c.status.Truncation, c.status.Wrapping)
	}
}

// TestCuratorSplitKeepsItsPlace (issue 17 item 4): the split between the
// steps and the preview stays where the curator left it on every step,
// with a data table far wider than its pane; the table scrolls
// horizontally to its last column instead.
func TestCuratorSplitKeepsItsPlace(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { c.win.Resize(fyne.NewSize(1024, 700)) })
	f.loadCSV(longColumns(t, f.dir, 40))
	f.do(func() {
		c.state.Features = c.ds.Columns
		c.refreshPages()
		c.changed()
	})
	f.waitIdle()
	for _, offset := range []float64{0.5, 0.3, 0.7} {
		f.do(func() {
			c.split.SetOffset(offset) // as if the curator dragged the divider
		})
		var want float32
		f.do(func() { want = c.split.Leading.Size().Width })
		if total := c.split.Size().Width; want < float32(offset)*total-12 || want > float32(offset)*total+12 {
			t.Errorf("offset %.2f: the steps pane is %.0f of %.0f wide", offset, want, total)
		}
		for _, step := range append(wizardSteps, stepData, stepBounds) {
			var got, prev float32
			f.do(func() {
				c.showStep(step)
				c.win.Content().Refresh()
				test.LaidOutObjects(c.win.Content())
				got, prev = c.split.Leading.Size().Width, c.split.Trailing.Size().Width
			})
			if got < want-0.5 || got > want+0.5 || c.split.Offset != offset {
				t.Errorf("offset %.2f, step %s: the steps pane is %.0f wide (offset %.3f), want %.0f (the preview %.0f)", offset, step, got, c.split.Offset, want, prev)
			}
		}
	}
	// The table is no wider than its page and scrolls to its last
	// column.
	f.do(func() { c.showStep(stepData) })
	dp := c.pages[stepData].(*dataPage)
	last := c.ds.Columns[len(c.ds.Columns)-1]
	header := func() (shown bool) {
		for _, o := range test.LaidOutObjects(dp.table) {
			if l, ok := o.(*widget.Label); ok && l.Text == last && l.Visible() {
				shown = true
			}
		}
		return shown
	}
	f.do(func() {
		if w, page := dp.table.Size().Width, c.pageBox.Size().Width; w > page+0.5 {
			t.Errorf("the table is %.0f wide in a page of %.0f", w, page)
		}
		if header() {
			t.Errorf("the last column %q is shown before scrolling: the table is not wider than its pane", last)
		}
		dp.table.ScrollTo(widget.TableCellID{Row: 0, Col: len(c.ds.Columns) - 1})
		dp.table.Refresh()
		if !header() {
			t.Errorf("the table did not scroll horizontally to its last column %q", last)
		}
	})
	f.waitIdle()
}

// laidOutLabelTexts joins the texts of every label laid out under o,
// inside widgets (scrolls, popups) too.
func laidOutLabelTexts(o fyne.CanvasObject) string {
	var b strings.Builder
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok {
			b.WriteString(l.Text + "\n")
		}
	}
	return b.String()
}

// TestCuratorPrivacyInWords (issue 17 item 7): the privacy slider is
// marked with its direction, the budget says what is left still allows,
// and the private choice states the direction of its ε field, what the
// budget left allows and that a larger share protects no one more.
func TestCuratorPrivacyInWords(t *testing.T) {
	f := newCuratorFixture(t)
	pp, fl := f.openChoose()
	var page, dialog string
	f.do(func() {
		page = laidOutLabelTexts(pp.content())
		dialog = laidOutLabelTexts(fl.dialog.Pop)
	})
	for _, want := range []string{privacywords.DirectionPrivate, privacywords.DirectionAccurate, "still allows releases", "Smaller δ: more private"} {
		if !strings.Contains(page, want) {
			t.Errorf("the privacy page lacks %q", want)
		}
	}
	for _, want := range []string{privacywords.SplitShare, privacywords.FieldDirection("ε"), "still allows releases"} {
		if !strings.Contains(dialog, want) {
			t.Errorf("the private-choice dialog lacks %q:\n%s", want, dialog)
		}
	}
	f.do(func() { fl.dialog.Dismiss() })
	f.waitIdle()
}
