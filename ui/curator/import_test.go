package curator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// preambleCSV has a two-line preamble, ';' and decimal commas: read with
// the defaults, its title line is taken for the header and the read fails.
const preambleCSV = "Blood pressure study, site 3\nexported 2026-11-24; 4 rows\nage;systolic;diastolic\n41;120,5;80\n52;131;85,5\n67;140,25;90\n38;118;76\n"

// waitImportPreview waits until the import step shows the preview of
// its current options.
func (f *curatorFixture) waitImportPreview(fl *importFlow) {
	f.t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for {
		done := false
		f.do(func() { done = fl.gen > 0 && fl.shown == fl.gen })
		if done {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatal("timed out waiting for the import preview")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openFailing opens path with the defaults and waits for the read to
// fail (the import step then opens).
func (f *curatorFixture) openFailing(path string) {
	f.t.Helper()
	f.do(func() { f.c.openPath(path) })
	select {
	case err := <-f.datasets:
		if err == nil {
			f.t.Fatal("read with the defaults")
		}
	case <-time.After(30 * time.Second):
		f.t.Fatal("timed out")
	}
}

// TestCuratorImportPreamble opens a file with a two-line preamble through
// the import step (issue 17 item 2): File ▸ Open shows the step, its
// preview shows what the defaults make of the file, typing the header row
// and ticking the decimal comma parse it, Enter opens it, and the options
// are saved in the project and used when it is opened again.
func TestCuratorImportPreamble(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "bp.csv")
	if err := os.WriteFile(path, []byte(preambleCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	var fl *importFlow
	f.do(func() { c.openChosen(path); fl = c.importFlow })
	if fl == nil || !f.onTop(fl.dlg) {
		t.Fatal("opening a CSV does not show the import step")
	}
	f.waitImportPreview(fl)
	f.do(func() {
		if got := fl.pv.Header; len(got) != 2 || got[0] != "Blood pressure study" {
			t.Errorf("with the defaults the header is %q", got)
		}
		if !strings.Contains(fl.problems.Text, "is line 1 really the header?") {
			t.Errorf("problems %q do not point at the header row", fl.problems.Text)
		}
		if !strings.Contains(fl.lines.Text, "  3 │ age;systolic;diastolic") {
			t.Errorf("first lines:\n%s", fl.lines.Text)
		}
	})

	// The keyboard: the header row entry has the focus; type 3.
	f.do(func() {
		if c.win.Canvas().Focused() != fl.headerRow {
			t.Errorf("focus on %T, want the header row", c.win.Canvas().Focused())
		}
		curatorType(fl.headerRow, "3")
	})
	f.waitImportPreview(fl)
	f.do(func() {
		if got := fl.pv.Header; strings.Join(got, ",") != "age,systolic,diastolic" || fl.pv.Delimiter != ';' {
			t.Errorf("header row 3: header %q, delimiter %q", got, fl.pv.Delimiter)
		}
		if !strings.Contains(fl.summary.Text, "delimiter detected: ';'") || !strings.Contains(fl.problems.Text, "decimal comma?") {
			t.Errorf("summary %q, problems %q", fl.summary.Text, fl.problems.Text)
		}
		test.Tap(fl.decimal)
	})
	f.waitImportPreview(fl)
	f.do(func() {
		if fl.problems.Text != "" || len(fl.pv.Rows) != 4 || !fl.pv.Numeric[1] || fl.pv.RowLines[0] != 4 {
			t.Errorf("decimal comma: problems %q, %d rows, numeric %v", fl.problems.Text, len(fl.pv.Rows), fl.pv.Numeric)
		}
		if r, cols := fl.table.Length(); r != 4 || cols != 3 {
			t.Errorf("the table shows %d×%d cells, want 4×3", r, cols)
		}
	})
	f.pressKey(fyne.KeyReturn) // Open with these options
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if fl.dlg.Visible() {
			t.Error("the import step is still open")
		}
		want := dataset.ImportOptions{HeaderRow: 3, DecimalComma: true}
		if c.ds == nil || c.ds.Rows != 4 || c.state.Import != want {
			t.Fatalf("dataset %v, options %+v; want 4 rows, %+v", c.ds, c.state.Import, want)
		}
		if v := c.ds.Data["systolic"]; len(v) != 4 || v[0] != 120.5 || v[2] != 140.25 {
			t.Errorf("systolic = %v", v)
		}
	})

	// Saved in the project; opened again with them.
	proj := filepath.Join(f.dir, "bp.bernstein")
	f.do(func() { c.writeProject(proj, false) })
	w, err := project.LoadWorkspace(proj)
	if err != nil || w.ImportOptions() != (dataset.ImportOptions{HeaderRow: 3, DecimalComma: true}) {
		t.Fatalf("saved project: %+v, %v", w, err)
	}
	f.do(func() { c.resetProject(); c.openProject(proj) })
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if c.ds == nil || c.ds.Rows != 4 || c.state.Import.HeaderRow != 3 {
			t.Errorf("reopened: %v, %+v", c.ds, c.state.Import)
		}
	})
}

// TestCuratorImportOnFailure: a file that the defaults cannot read opens
// the import step by itself; Escape closes it and keeps the error.
func TestCuratorImportOnFailure(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "bp.csv")
	if err := os.WriteFile(path, []byte(preambleCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	f.openFailing(path)
	var fl *importFlow
	f.do(func() { fl = c.importFlow })
	if fl == nil || !f.onTop(fl.dlg) || !strings.Contains(fl.reason.Text, "could not be read with the options") {
		t.Fatal("a failed read does not offer the import step")
	}
	f.waitImportPreview(fl)
	f.pressKey(fyne.KeyEscape)
	f.do(func() {
		if fl.dlg.Visible() || c.dsErr == nil {
			t.Errorf("after Escape: visible %v, error %v", fl.dlg.Visible(), c.dsErr)
		}
	})
}

// TestCuratorImportOtherDelimiter: a delimiter from a project file that
// the list does not offer is shown and kept, whatever the character.
func TestCuratorImportOtherDelimiter(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "q.csv")
	if err := os.WriteFile(path, []byte("a'b\n1'2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fl *importFlow
	f.do(func() { fl = c.showImportStep(path, false, dataset.ImportOptions{Delimiter: '\''}, "") })
	f.waitImportPreview(fl)
	f.do(func() {
		o, err := fl.options()
		if err != nil || o.Delimiter != '\'' || fl.delim.Selected != `'\''` || strings.Join(fl.pv.Header, ",") != "a,b" {
			t.Errorf("options %+v, %v; shown as %q; header %q", o, err, fl.delim.Selected, fl.pv.Header)
		}
	})
	// The keyboard: Tab reaches the delimiter list, where Escape cancels;
	// on the decimal comma box, Enter opens the file.
	f.tabTo(fl.delim, "the delimiter list")
	f.pressKey(fyne.KeyEscape)
	if f.onTop(fl.dlg) {
		t.Error("Escape on the delimiter list does not cancel the import step")
	}
	f.do(func() { fl = c.showImportStep(path, false, dataset.ImportOptions{Delimiter: '\''}, "") })
	f.waitImportPreview(fl)
	f.tabTo(fl.decimal, "the decimal comma box")
	f.pressKey(fyne.KeyReturn)
	f.waitDataset()
	f.do(func() {
		if c.ds == nil || c.ds.Delimiter != '\'' || c.state.Import.Delimiter != '\'' {
			t.Errorf("Enter on the decimal comma box: dataset %v, options %+v", c.ds, c.state.Import)
		}
	})
}

// TestCuratorImportNoHeader opens a scikit-learn-shaped file (a count line,
// then rows without a header) through the import step: header row 2 and
// "No header" name the columns column1, column2, ….
func TestCuratorImportNoHeader(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	path := filepath.Join(f.dir, "iris.csv")
	if err := os.WriteFile(path, []byte("6,2,setosa,versicolor\n5.1,3.5,0\n4.9,3.0,0\n7.0,3.2,1\n6.4,3.2,1\n5.0,3.6,0\n6.9,3.1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fl *importFlow
	f.do(func() { c.openChosen(path); fl = c.importFlow })
	if fl == nil {
		t.Fatal("no import step")
	}
	f.waitImportPreview(fl)
	f.do(func() {
		curatorType(fl.headerRow, "2")
		test.Tap(fl.noHeader)
	})
	f.waitImportPreview(fl)
	f.do(func() {
		if got := strings.Join(fl.pv.Header, ","); got != "column1,column2,column3" || len(fl.pv.Rows) != 6 || fl.problems.Text != "" {
			t.Errorf("no header: header %q, %d rows, problems %q", got, len(fl.pv.Rows), fl.problems.Text)
		}
	})
	f.pressKey(fyne.KeyReturn)
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if want := (dataset.ImportOptions{HeaderRow: 2, NoHeader: true}); c.ds == nil || c.ds.Rows != 6 || c.state.Import != want {
			t.Errorf("dataset %v, options %+v; want 6 rows and %+v", c.ds, c.state.Import, want)
		}
	})
}

// TestCuratorImportWalkthrough reproduces the walkthrough's import step
// at 1024×700 (REPORT 7): a file whose count line is taken for the header
// fails to open; in the step that opens, "Open" is disabled while no
// previewed row reads, with the reason; the first lines keep several
// lines of room; header row 0 shows no ✓ beside the red rule, and no
// stale preview; header row 2 parses, enables "Open" and clears the
// "could not be read" banner, which leaves its space so the form does not
// move.
func TestCuratorImportWalkthrough(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { c.win.Resize(fyne.NewSize(1024, 700)) })
	path := filepath.Join(f.dir, "counts.csv")
	if err := os.WriteFile(path, []byte("6,2,setosa,versicolor\n5.1,3.5,0\n4.9,3.0,0\n7.0,3.2,1\n6.4,3.2,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.openFailing(path)
	var fl *importFlow
	f.do(func() { fl = c.importFlow })
	if fl == nil {
		t.Fatal("no import step")
	}
	f.waitImportPreview(fl)
	open := func() *widget.Button { return fl.dlg.Button("Open with these options") }
	f.do(func() {
		if !open().Disabled() || !strings.Contains(fl.summary.Text, "None of the rows shown can be read") {
			t.Errorf("every row fails: Open disabled %v, summary %q", open().Disabled(), fl.summary.Text)
		}
		if !fl.reason.Visible() || !strings.Contains(fl.reason.Text, "could not be read with the options") {
			t.Errorf("reason %q lacks why the step opened", fl.reason.Text)
		}
		if h := fl.linesPane.Size().Height; h < importLinesMinHeight {
			t.Errorf("the first lines are %.0f high at 1024×700, want at least %d", h, importLinesMinHeight)
		}
	})

	var verdict error = errors.New("no verdict")
	f.do(func() {
		fl.headerRow.SetOnValidationChanged(func(err error) { verdict = err })
		c.win.Canvas().Focus(fl.headerRow)
		curatorType(fl.headerRow, "0")
	})
	f.waitImportPreview(fl)
	f.do(func() {
		if verdict == nil || !strings.Contains(fl.problems.Text, "header row: a line number from 1") {
			t.Errorf("header row 0: entry verdict %v, problems %q (they must agree)", verdict, fl.problems.Text)
		}
		if fl.pv != nil || !open().Disabled() {
			t.Errorf("header row 0 still shows a preview (%v) or allows Open", fl.pv != nil)
		}
	})

	// The form stays where it is when the banner gives way (walkthrough:
	// it jumped up under the mouse on the first click that parsed).
	at := func() (p fyne.Position) {
		f.do(func() { p = fyne.CurrentApp().Driver().AbsolutePositionForObject(fl.headerRow) })
		return p
	}
	before := at()
	f.do(func() { curatorType(fl.headerRow, "2") })
	f.waitImportPreview(fl)
	f.do(func() {
		if verdict != nil || open().Disabled() || fl.pv == nil || len(fl.pv.Rows) != 3 {
			t.Errorf("header row 2: verdict %v, Open disabled %v", verdict, open().Disabled())
		}
		if strings.Contains(fl.reason.Text, "could not be read") {
			t.Errorf("the banner stays after the fix: %q", fl.reason.Text)
		}
	})
	if after := at(); after != before {
		t.Errorf("the header row entry moved from %v to %v when the banner gave way", before, after)
	}

	// The screenshot walkthrough: "No header" at header row 1 takes the
	// count line for the first data row (4 fields), the other rows have 3.
	// Opening would fail on line 2, so Open is disabled with the count of
	// rows that cannot be read, and the summary does not call line 1 a
	// header.
	f.do(func() {
		curatorType(fl.headerRow, "1")
		fl.noHeader.SetChecked(true)
	})
	f.waitImportPreview(fl)
	f.do(func() {
		if !open().Disabled() || !strings.HasPrefix(fl.summary.Text, "No header (columns named column1") ||
			!strings.Contains(fl.summary.Text, "4 of the 5 rows shown cannot be read") {
			t.Errorf("no header at row 1: Open disabled %v, summary %q", open().Disabled(), fl.summary.Text)
		}
	})
}

// TestCuratorImportColumnsFitContent: the preview table sizes each column
// to its header and values — a long name is shown whole, a very long one
// up to importColumnCap, a short column keeps the template cell's width —
// instead of giving every column the template's width (walkthrough:
// "mean_rad…" cut while "diagnosis" had room to spare).
func TestCuratorImportColumnsFitContent(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	long := strings.Repeat("a_very_long_column_name_", 6)
	path := filepath.Join(f.dir, "wide.csv")
	if err := os.WriteFile(path, []byte("mean_texture_worst,"+long+",x\n10.38,1,0\n17.77,2,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fl *importFlow
	f.do(func() { fl = c.showImportStep(path, true, dataset.ImportOptions{}, "") })
	f.waitImportPreview(fl)
	f.do(func() {
		if fl.reason.Visible() {
			t.Errorf("a reason shows although the step opened for none: %q", fl.reason.Text)
		}
		minW := widget.NewLabel("0000000.000").MinSize().Width
		widths := map[string]float32{}
		for _, o := range test.LaidOutObjects(fl.table) {
			if l, ok := o.(*widget.Label); ok && l.TextStyle.Bold && l.Visible() {
				widths[l.Text] = l.Size().Width
			}
		}
		need := fyne.MeasureText("mean_texture_worst", theme.TextSize(), fyne.TextStyle{Bold: true}).Width + 2*theme.InnerPadding()
		if w := widths["mean_texture_worst"]; w < need {
			t.Errorf("column mean_texture_worst is %.0f wide, its name needs %.0f (widths %v)", w, need, widths)
		}
		if w := widths[long]; w > importColumnCap+0.5 || w < importColumnCap-0.5 {
			t.Errorf("the very long column is %.0f wide, want the cap %d", w, importColumnCap)
		}
		if w := widths["x"]; w > minW+0.5 {
			t.Errorf("column x is %.0f wide, want the template's %.0f", w, minW)
		}
	})
}
