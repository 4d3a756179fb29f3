package curator

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/ui/internal/uitest"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// Key events as the desktop driver delivers them: a key goes to the
// focused widget, else to the canvas's key handler; a shortcut with a
// modifier goes to the main menu first.

// pressKey sends one key press (Space also types its character, as the
// driver does).
func (f *curatorFixture) pressKey(name fyne.KeyName) {
	f.t.Helper()
	f.do(func() {
		cv := f.c.win.Canvas()
		ev := &fyne.KeyEvent{Name: name}
		if w := cv.Focused(); w != nil {
			w.TypedKey(ev)
		} else if h := cv.OnTypedKey(); h != nil {
			h(ev)
		}
	})
	if name == fyne.KeySpace {
		f.typeKeys(" ")
	}
}

// typeKeys types text into the focused widget.
func (f *curatorFixture) typeKeys(text string) {
	f.do(func() {
		cv := f.c.win.Canvas()
		for _, r := range text {
			if w := cv.Focused(); w != nil {
				w.TypedRune(r)
			} else if h := cv.OnTypedRune(); h != nil {
				h(r)
			}
		}
	})
}

// selectAll is Ctrl+A in the focused widget.
func (f *curatorFixture) selectAll() {
	f.do(func() {
		if s, ok := f.c.win.Canvas().Focused().(fyne.Shortcutable); ok {
			s.TypedShortcut(&fyne.ShortcutSelectAll{})
		}
	})
}

// overlay is the text of the top overlay, read under widgets.Mu.
func (f *curatorFixture) overlay() (txt string) {
	f.do(func() { txt = curatorOverlayText(f.c) })
	return txt
}

// typeIn gives e the focus, replaces its text by typing (Ctrl+A,
// Backspace, the characters) and moves the focus away, as Tab would.
func (f *curatorFixture) typeIn(e fyne.Focusable, text string) {
	f.do(func() { f.c.win.Canvas().Focus(e) })
	f.selectAll()
	f.pressKey(fyne.KeyBackspace)
	f.typeKeys(text)
	f.do(func() { f.c.win.Canvas().Unfocus() })
}

// shortcut presses Ctrl+key: the main menu's item with that shortcut.
func (f *curatorFixture) shortcut(key fyne.KeyName) {
	f.t.Helper()
	want := (&desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault}).ShortcutName()
	var action func()
	for _, m := range f.c.win.MainMenu().Items {
		for _, it := range m.Items {
			if it.Shortcut != nil && it.Shortcut.ShortcutName() == want {
				action = it.Action
			}
		}
	}
	if action == nil {
		f.t.Fatalf("no menu item with the shortcut %s", want)
	}
	f.do(action)
}

// tabTo presses Tab until target has the focus (at most 300 times).
func (f *curatorFixture) tabTo(target fyne.Focusable, what string) {
	f.t.Helper()
	for i := 0; i < 300; i++ {
		var got fyne.Focusable
		f.do(func() { got = f.c.win.Canvas().Focused() })
		if got == target {
			return
		}
		f.do(func() { f.c.win.Canvas().FocusNext() })
	}
	f.t.Fatalf("Tab never reaches %s", what)
}

// mark is uitest.EntryMark under widgets.Mu.
func (f *curatorFixture) mark(e fyne.Widget) (m string) {
	f.do(func() { m = uitest.EntryMark(e) })
	return m
}

// writeCSV writes a CSV of rows rows from a header and a row function.
func writeCSV(t *testing.T, path string, header []string, rows int, row func(i int) []float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := 0; i < rows; i++ {
		vals := row(i)
		parts := make([]string, len(vals))
		for j, v := range vals {
			parts[j] = fmt.Sprintf("%.3f", v)
		}
		b.WriteString(strings.Join(parts, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// irisLike writes a four-column table shaped like the iris measurements.
func irisLike(t *testing.T, dir string) string {
	path := filepath.Join(dir, "iris.csv")
	writeCSV(t, path, []string{"sepal_length_cm", "sepal_width_cm", "petal_length_cm", "petal_width_cm"}, 150, func(i int) []float64 {
		x := float64(i%50) / 50
		return []float64{4.5 + 3*x, 2.2 + 2*x*x, 1 + 5*x, 0.1 + 2.3*x}
	})
	return path
}

// TestCuratorKeyboardMainPath drives the main path by key events alone:
// Ctrl+O, a typed path and Enter; Tab and Space for a feature; Ctrl+3 and
// typing for the bounds; Left/Right for the learner; Ctrl+A and typing for
// ε; Ctrl+R, the key creation (Tab, typing, Enter), Enter on the key
// dialog, the passphrase and Enter; Escape closes the result.
func TestCuratorKeyboardMainPath(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	csv := irisLike(t, f.dir)

	f.shortcut(fyne.KeyO)
	if c.openFlow == nil || !f.onTop(c.openFlow.Dlg) {
		t.Fatal("Ctrl+O shows no Open dialog")
	}
	f.do(func() {
		if c.win.Canvas().Focused() != c.openFlow.Path {
			t.Error("the Open dialog's path field has no focus")
		}
	})
	f.selectAll()
	f.typeKeys(csv)
	f.pressKey(fyne.KeyReturn)
	if c.importFlow == nil || !f.onTop(c.importFlow.dlg) {
		t.Fatal("the Open dialog does not lead to the import step")
	}
	f.pressKey(fyne.KeyReturn) // the import step: open with the detected layout
	f.waitDataset()
	if c.ds == nil || c.current != stepData {
		t.Fatalf("Enter in the Open dialog did not open %s (step %q)", csv, c.current)
	}

	// Features: filter, Tab to the checkbox, Space.
	dp := c.pages[stepData].(*dataPage)
	f.tabTo(dp.filter, "the column filter")
	f.typeKeys("petal_width")
	var box *widget.Check
	f.do(func() {
		for _, o := range test.LaidOutObjects(dp.features) {
			if ch, ok := o.(*widget.Check); ok && ch.Text == "petal_width_cm" {
				box = ch
			}
		}
	})
	if box == nil {
		t.Fatal("the filter does not show petal_width_cm")
	}
	f.tabTo(box, "the petal_width_cm checkbox")
	f.pressKey(fyne.KeySpace)
	if got := c.state.Features; len(got) != 3 || got[2] != "petal_width_cm" {
		t.Fatalf("features after Space: %v, want the two defaults and petal_width_cm", got)
	}

	// Bounds: Ctrl+3, Tab to each field, type.
	f.shortcut(fyne.Key3)
	bp := c.pages[stepBounds].(*boundsPage)
	for _, col := range c.state.Features {
		ed := bp.editors[col]
		f.tabTo(ed.lo, "the lower bound of "+col)
		f.typeKeys("0")
		f.tabTo(ed.hi, "the upper bound of "+col)
		f.typeKeys("10")
	}
	if _, err := c.state.request(c.ds); err != nil {
		t.Fatalf("after typing the bounds: %v", err)
	}

	// Learner: Ctrl+4, Tab to the list, Right then Left.
	f.shortcut(fyne.Key4)
	lp := c.pages[stepLearner].(*learnerPage)
	f.tabTo(lp.choose, "the learner choice")
	f.pressKey(fyne.KeyRight)
	if c.state.Learner == learners.KindKDE {
		t.Fatal("Right did not change the learner")
	}
	f.pressKey(fyne.KeyLeft)
	if c.state.Learner != learners.KindKDE {
		t.Fatalf("Left did not go back to KDE: %s", c.state.Learner)
	}

	// Privacy: Ctrl+5, Tab to ε, select all, type.
	f.shortcut(fyne.Key5)
	pp := c.pages[stepPrivacy].(*privacyPage)
	f.tabTo(pp.epsEntry, "the ε field")
	f.selectAll()
	f.typeKeys("0.5")
	if c.state.Epsilon != 0.5 {
		t.Fatalf("ε = %v after typing 0.5", c.state.Epsilon)
	}
	f.waitIdle()

	// Release: Ctrl+R creates the key first.
	f.shortcut(fyne.KeyR)
	fl := c.release
	if fl == nil || !f.onTop(fl.keyDlg) {
		t.Fatal("Ctrl+R shows no key-creation dialog")
	}
	f.tabTo(fl.keyPass, "the passphrase field")
	f.typeKeys("correct horse")
	f.tabTo(fl.keyPass2, "the second passphrase field")
	f.typeKeys("correct horse")
	f.pressKey(fyne.KeyReturn)
	if !f.onTop(fl.keyInfo) {
		t.Fatal("Enter in the key dialog did not create the key")
	}
	f.pressKey(fyne.KeyReturn) // Continue
	fl = c.release
	f.waitIdentity(fl)
	if !f.onTop(fl.dlg) {
		t.Fatal("no release dialog after Enter on the key dialog")
	}
	f.do(func() {
		if c.win.Canvas().Focused() != fl.pass {
			t.Error("the passphrase field has no focus in the release dialog")
		}
	})
	f.typeKeys("correct horse")
	f.pressKey(fyne.KeyReturn)
	o := f.waitRelease()
	if o.err != nil {
		t.Fatalf("release by Enter: %v", o.err)
	}
	if o.res.Spent != 0.5 {
		t.Errorf("released at ε = %v, want 0.5", o.res.Spent)
	}
	if !f.onTop(fl.result) {
		t.Fatal("no result dialog")
	}
	f.pressKey(fyne.KeyEscape)
	if fl.result.Visible() {
		t.Error("Escape does not close the result dialog")
	}
	if _, err := os.Stat(o.res.Path); err != nil {
		t.Error(err)
	}
}

// TestCuratorDialogsKeyboard: every curator dialog runs its default
// action on Enter and cancels on Escape, wherever the focus is.
func TestCuratorDialogsKeyboard(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	// "Not ready to release" (no dataset): Escape and Enter close it.
	for _, key := range []fyne.KeyName{fyne.KeyEscape, fyne.KeyReturn} {
		f.shortcut(fyne.KeyR)
		top := c.win.Canvas().Overlays().Top()
		if top == nil || !strings.Contains(f.overlay(), "Not ready to release") {
			t.Fatalf("Ctrl+R without a dataset: overlay %q", f.overlay())
		}
		f.pressKey(key)
		if c.win.Canvas().Overlays().Top() != nil {
			t.Errorf("%s does not close the \"Not ready\" dialog", key)
		}
	}
	// With nothing focused, the canvas's handler answers.
	f.shortcut(fyne.KeyR)
	f.do(func() { c.win.Canvas().Unfocus() })
	f.pressKey(fyne.KeyEscape)
	if c.win.Canvas().Overlays().Top() != nil {
		t.Error("Escape with no focus does not close the dialog")
	}

	// Open: Escape cancels; Enter on a missing file keeps the dialog and
	// says why.
	f.shortcut(fyne.KeyO)
	f.pressKey(fyne.KeyEscape)
	if c.openFlow.Dlg.Visible() {
		t.Error("Escape does not cancel the Open dialog")
	}
	f.shortcut(fyne.KeyO)
	f.selectAll()
	f.typeKeys(filepath.Join(f.dir, "missing.csv"))
	f.pressKey(fyne.KeyReturn)
	if !c.openFlow.Dlg.Visible() || !strings.Contains(c.openFlow.Msg.Text, "missing.csv") {
		t.Errorf("Enter on a missing file: visible %v, message %q", c.openFlow.Dlg.Visible(), c.openFlow.Msg.Text)
	}
	f.pressKey(fyne.KeyEscape)

	// The unsaved-changes question: Escape keeps the project, Enter
	// discards it.
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.waitIdle()
	f.do(func() { c.dirty = true })
	f.shortcut(fyne.KeyN)
	f.pressKey(fyne.KeyEscape)
	if c.ds == nil {
		t.Fatal("Escape on the unsaved-changes question discarded the project")
	}
	f.shortcut(fyne.KeyN)
	f.pressKey(fyne.KeyReturn)
	if c.ds != nil {
		t.Fatal("Enter on the unsaved-changes question did not start a new project")
	}
	f.waitIdle()

	// The key dialog: Escape cancels without writing a key.
	f.do(c.showKeyInfo)
	if !f.onTop(c.release.keyDlg) {
		t.Fatal("no key dialog")
	}
	f.pressKey(fyne.KeyEscape)
	if c.release.keyDlg.Visible() {
		t.Error("Escape does not cancel the key dialog")
	}
	if _, err := os.Stat(c.opts.KeyPath); err == nil {
		t.Error("a cancelled key dialog wrote a key")
	}
}

// TestCuratorReleasePassphraseEnter: Enter in the passphrase field
// releases; a wrong passphrase keeps the dialog open and spends nothing;
// Escape cancels.
func TestCuratorReleasePassphraseEnter(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.demoKDEWithKey("pw")
	f.do(func() { c.win.Resize(fyne.NewSize(1024, 700)) })
	rp := c.pages[stepRelease].(*releasePage)
	f.do(func() { curatorType(rp.out, filepath.Join(f.dir, "enter.synopsis")) })
	f.shortcut(fyne.KeyR)
	fl := c.release
	f.waitIdentity(fl)
	f.pressKey(fyne.KeyEscape)
	if fl.dlg.Visible() {
		t.Fatal("Escape in the passphrase field does not cancel the release")
	}
	f.shortcut(fyne.KeyR)
	fl = c.release
	f.waitIdentity(fl)
	f.typeKeys("wrong")
	f.pressKey(fyne.KeyReturn)
	if o := f.waitRelease(); o.err == nil {
		t.Fatal("a wrong passphrase released")
	}
	if !fl.dlg.Visible() {
		t.Fatal("the dialog closed after a wrong passphrase")
	}
	// Walkthrough finding: at 1024×700 the message was below the fold of
	// the dialog's scroll and not red.
	f.do(func() {
		if fl.stage.Importance != widget.DangerImportance || !strings.Contains(fl.stage.Text, "Wrong passphrase") {
			t.Errorf("after a wrong passphrase the dialog says %q (importance %v), want it in red", fl.stage.Text, fl.stage.Importance)
		}
		if h := fl.dlg.Pop.Content.Size().Height; h > c.win.Canvas().Size().Height {
			t.Errorf("the release dialog is %v high in a window %v high", h, c.win.Canvas().Size().Height)
		}
		if path := uitest.PathTo(fl.dlg.Pop.Content, fl.stage); path == nil {
			t.Error("the dialog's message is not in the dialog")
		} else {
			for _, o := range path {
				if _, ok := o.(*container.Scroll); ok {
					t.Error("the dialog's message is inside a scroll: it can be below the fold")
				}
			}
		}
	})
	f.selectAll()
	f.typeKeys("pw")
	f.pressKey(fyne.KeyEnter)
	if o := f.waitRelease(); o.err != nil {
		t.Fatalf("Enter with the right passphrase: %v", o.err)
	}
}

// TestCuratorSpendDialogsEscape: Escape in the ε field of "Choose h and k
// privately…" and of "Estimate privately…" cancels without spending.
func TestCuratorSpendDialogsEscape(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	_, fl := f.openChoose()
	f.waitPlanned(fl)
	f.do(func() { c.win.Canvas().Focus(fl.eps) })
	f.pressKey(fyne.KeyEscape)
	if fl.dialog.Visible() {
		t.Error("Escape does not cancel the choose dialog")
	}
	_, fl = f.openChoose()
	f.waitPlanned(fl)
	f.do(func() { c.win.Canvas().Focus(fl.over) })
	f.pressKey(fyne.KeyEscape)
	if fl.dialog.Visible() {
		t.Error("Escape does not cancel the choose dialog while its check box has the focus")
	}
	f.do(func() { c.showStep(stepBounds) })
	bp := c.pages[stepBounds].(*boundsPage)
	f.do(func() { test.Tap(bp.editors["x"].estimate) })
	pf := bp.privateFlow
	if pf == nil || !f.onTop(pf.dialog) {
		t.Fatal("no Estimate privately dialog")
	}
	f.do(func() { c.win.Canvas().Focus(pf.over) }) // a check box has the focus
	f.pressKey(fyne.KeySpace)
	if !pf.over.Checked {
		t.Error("Space does not toggle a dialog's check box")
	}
	f.pressKey(fyne.KeyEscape)
	if pf.dialog.Visible() {
		t.Error("Escape does not cancel the Estimate privately dialog while its check box has the focus")
	}
	if spent, _, _, _ := c.budgetState(); spent != 0 {
		t.Errorf("cancelled dialogs spent ε = %v", spent)
	}
	f.waitIdle()
}

// TestMultiLineFieldsLeaveTab: Tab leaves the Release step's note (and the
// other multi-line fields) instead of typing a tab into published text.
// Fyne's drivers give Tab to a focused widget only when it is a
// fyne.Tabbable that AcceptsTab; a plain multi-line entry does, which
// trapped keyboard users in the note (found by the installed-app test).
func TestMultiLineFieldsLeaveTab(t *testing.T) {
	f := newCuratorFixture(t)
	rp := f.c.pages[stepRelease].(*releasePage)
	for name, w := range map[string]fyne.Focusable{"the release note": rp.note, "a new tab entry": widgets.NewTabEntry()} {
		if tb, ok := w.(fyne.Tabbable); ok && tb.AcceptsTab() {
			t.Errorf("%s keeps Tab as text", name)
		}
	}
	if !widgets.NewTabEntry().MultiLine {
		t.Error("newTabEntry is not multi-line")
	}
}

// TestCuratorNavNumbersMatchShortcuts: the sidebar's "N. Step" is the
// step Ctrl+N goes to (walkthrough: "1. Data" was Ctrl+2).
func TestCuratorNavNumbersMatchShortcuts(t *testing.T) {
	f := newCuratorFixture(t)
	keys := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6}
	for i := range wizardSteps {
		var text string
		f.do(func() {
			o := f.c.nav.CreateItem()
			f.c.nav.UpdateItem(i, o)
			text = o.(*fyne.Container).Objects[1].(*widget.Label).Text
		})
		num, name, _ := strings.Cut(text, ". ")
		if num != strconv.Itoa(i+1) || name != wizardSteps[i] {
			t.Errorf("sidebar row %d reads %q", i, text)
			continue
		}
		f.shortcut(keys[i])
		f.do(func() {
			if f.c.current != name {
				t.Errorf("Ctrl+%s goes to %q, the sidebar calls it %q", num, f.c.current, text)
			}
		})
	}
}
