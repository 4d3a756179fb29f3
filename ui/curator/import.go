package curator

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// importFlow is one run of the import step (issue 17 item 2): how a CSV
// file is laid out — header row, delimiter (detected, or chosen),
// decimal comma, comment character — with a live preview of the first
// rows parsed with those options (dataset.PreviewImport: at most 1 MiB
// and 50 rows are read, so it is instant on any file). "Open" reads the
// file with them; they are saved in the project.
type importFlow struct {
	path  string
	fresh bool // a new dataset (File ▸ Open), not the current one again
	dlg   *widgets.Dialog

	headerRow *widgets.KeyEntry
	// noHeader: the file has no header line (dataset.ImportOptions.NoHeader).
	noHeader *widgets.KeyCheck
	delim    *widgets.KeySelect
	delimOf  map[string]rune // the delimiter of each choice of delim
	decimal  *widgets.KeyCheck
	comment  *widgets.KeyEntry
	// lines shows the file's first lines, numbered; table the parsed
	// header and rows; summary the detected delimiter and the rows shown,
	// problems what does not fit.
	intro *widget.Label
	// reason says why the step opened (hidden when it opened for no
	// reason); once other options parse, it says so in the space the
	// reason took (reasonSpace), so the form does not move under the
	// mouse (walkthrough: the banner vanished on the first click).
	reason      *widget.Label
	reasonSpace *canvas.Rectangle
	// failed are the options the file could not be read with (when the
	// step opened for that reason).
	failed    *dataset.ImportOptions
	lines     *widget.Label
	linesPane *container.Scroll
	table     *widget.Table
	summary   *widget.Label
	problems  *widget.Label

	pv *dataset.ImportPreview // the last preview shown
	// gen numbers the previews asked for (a stale one is dropped), shown
	// the last one shown: the form is up to date when they are equal
	// (tests wait for that).
	gen, shown int
}

// delimChoices are the delimiters the import step offers, in order; a
// delimiter of a project file outside them is added, named by
// dataset.DelimiterName.
var delimChoices = []struct {
	name string
	r    rune
}{{"detect", 0}, {"comma ,", ','}, {"semicolon ;", ';'}, {"tab", '\t'}, {"pipe |", '|'}}

// showImportStep opens the import step for the CSV file at path with the
// options opts (UI goroutine). why, if not empty, says why it opened (the
// file could not be read with the options it had).
func (c *curator) showImportStep(path string, fresh bool, opts dataset.ImportOptions, why string) *importFlow {
	fl := &importFlow{path: path, fresh: fresh}
	c.importFlow = fl
	fl.headerRow = widgets.NewKeyEntry(false)
	fl.headerRow.SetText(strconv.Itoa(max(opts.HeaderRow, 1)))
	fl.headerRow.Validator = func(s string) error { _, err := parseHeaderRow(s); return err }
	// While the entry has the focus, Fyne keeps the last verdict (a ✓)
	// unless told otherwise: the mark must agree with the problems text.
	fl.headerRow.AlwaysShowValidationError = true
	fl.noHeader = widgets.NewKeyCheck("none: name the columns column1, column2, … (header row = first data line)", nil)
	fl.noHeader.SetChecked(opts.NoHeader)
	fl.delimOf = map[string]rune{}
	var choices []string
	selected := ""
	for _, d := range delimChoices {
		choices = append(choices, d.name)
		fl.delimOf[d.name] = d.r
		if d.r == opts.Delimiter {
			selected = d.name
		}
	}
	if selected == "" {
		selected = dataset.DelimiterName(opts.Delimiter)
		choices = append(choices, selected)
		fl.delimOf[selected] = opts.Delimiter
	}
	fl.delim = widgets.NewKeySelect(choices, nil)
	fl.delim.SetSelected(selected)
	fl.decimal = widgets.NewKeyCheck("Decimal comma (1,5 means one and a half)", nil)
	fl.decimal.SetChecked(opts.DecimalComma)
	fl.comment = widgets.NewKeyEntry(false)
	fl.comment.SetPlaceHolder("none (e.g. #)")
	fl.comment.SetText(opts.Comment)
	fl.lines = widget.NewLabel("")
	fl.lines.TextStyle.Monospace = true
	fl.linesPane = container.NewScroll(fl.lines)
	fl.summary = widget.NewLabel("Reading the start of the file …")
	fl.summary.Wrapping = fyne.TextWrapWord
	fl.problems = widget.NewLabel("")
	fl.problems.Wrapping = fyne.TextWrapWord
	fl.problems.Importance = widget.DangerImportance
	fl.table = fl.newTable()

	changed := func() { c.runImportPreview(fl) }
	fl.headerRow.OnChanged = func(string) { changed() }
	fl.noHeader.OnChanged = func(bool) { changed() }
	fl.delim.OnChanged = func(string) { changed() }
	fl.decimal.OnChanged = func(bool) { changed() }
	fl.comment.OnChanged = func(string) { changed() }

	fl.intro = widget.NewLabel("How is the file laid out? The first rows are parsed below as you change the options (only the start of the file is read; " +
		"what you see is private: for your eyes only). The options are saved in the project.")
	fl.intro.Wrapping = fyne.TextWrapWord
	fl.reason = widget.NewLabel(why)
	fl.reason.Wrapping = fyne.TextWrapWord
	fl.reason.Importance = widget.WarningImportance
	fl.reasonSpace = canvas.NewRectangle(color.Transparent)
	if why != "" {
		fl.failed = &opts
	} else {
		fl.reason.Hide()
	}
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Header row (line number):"), container.New(capWidth(120), fl.headerRow),
		widget.NewLabel("No header:"), fl.noHeader,
		widget.NewLabel("Delimiter:"), container.New(capWidth(180), fl.delim),
		widget.NewLabel("Numbers:"), fl.decimal,
		widget.NewLabel("Comment lines start with:"), container.New(capWidth(120), fl.comment))
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	// The raw lines above, the parsed table below: both scroll, and the
	// split gives them what the window leaves.
	// The first lines keep room for several lines whatever the window
	// (walkthrough: squeezed to one line, or none, at 1024×700).
	lines := container.NewBorder(bold("The file's first lines"), nil, nil, nil,
		container.NewStack(minSpace(0, importLinesMinHeight), fl.linesPane))
	parsed := container.NewBorder(container.NewVBox(bold("Parsed with these options"), fl.summary, fl.problems), nil, nil, nil,
		container.NewStack(minSpace(0, 120), fl.table))
	split := container.NewVSplit(lines, parsed)
	split.Offset = 0.3
	body := container.NewBorder(container.NewVBox(container.NewStack(fl.reasonSpace, fl.reason), fl.intro, form), nil, nil, nil, split)
	labels := []string{"Cancel", "Open with these options"}
	fl.dlg = widgets.ShowWindowDialog(c.win, "Import "+filepath.Base(path), widgets.DialogBody(fyne.NewSize(480, 360), body), labels,
		[]func() bool{nil, func() bool {
			o, err := fl.options()
			if err != nil {
				fl.setProblems(err.Error())
				return false
			}
			c.loadDatasetWith(path, fl.fresh, o)
			return true
		}})
	changed()
	return fl
}

// newTable returns the preview table: the parsed header as column
// headers, the rows' file lines as row headers.
func (fl *importFlow) newTable() *widget.Table {
	t := widget.NewTableWithHeaders(
		func() (int, int) {
			if fl.pv == nil {
				return 0, 0
			}
			return len(fl.pv.Rows), len(fl.pv.Header)
		},
		func() fyne.CanvasObject { return widget.NewLabel("0000000.000") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.Truncation = fyne.TextTruncateEllipsis
			l.SetText("")
			if fl.pv != nil && id.Row < len(fl.pv.Rows) && id.Col < len(fl.pv.Rows[id.Row]) {
				l.SetText(fl.pv.Rows[id.Row][id.Col])
			}
		})
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		l.Truncation = fyne.TextTruncateEllipsis
		widgets.AlignTableHeader(l, id)
		l.TextStyle.Bold = id.Row < 0
		switch {
		case fl.pv == nil:
			l.SetText("")
		case id.Row < 0 && id.Col >= 0 && id.Col < len(fl.pv.Header):
			l.SetText(fl.pv.Header[id.Col])
		case id.Col < 0 && id.Row >= 0 && id.Row < len(fl.pv.RowLines):
			l.SetText(strconv.Itoa(fl.pv.RowLines[id.Row]))
		default:
			l.SetText("")
		}
	}
	return t
}

// parseHeaderRow reads the header row entry: a line number from 1 to
// dataset.MaxHeaderRow.
func parseHeaderRow(s string) (int, error) {
	v, err := dataset.ParseWholeNumber(s, dataset.MaxHeaderRow)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("header row: a line number from 1 to %d", dataset.MaxHeaderRow)
	}
	return int(v), nil
}

// options reads the form; errors are the rules of dataset.ImportOptions.
func (fl *importFlow) options() (dataset.ImportOptions, error) {
	row, err := parseHeaderRow(fl.headerRow.Text)
	if err != nil {
		return dataset.ImportOptions{}, err
	}
	o := dataset.ImportOptions{HeaderRow: row, Delimiter: fl.delimOf[fl.delim.Selected], DecimalComma: fl.decimal.Checked,
		Comment: strings.TrimSpace(fl.comment.Text), NoHeader: fl.noHeader.Checked}
	if o.HeaderRow == 1 {
		o.HeaderRow = 0 // the default, so that a project file stays as before
	}
	return o, o.Validate()
}

// runImportPreview parses the start of the file with the form's options
// off the UI goroutine and shows it (a newer request wins).
func (c *curator) runImportPreview(fl *importFlow) {
	fl.gen++
	gen := fl.gen
	o, err := fl.options()
	if err != nil {
		// What is shown must be the parse of these options, or nothing.
		fl.pv = nil
		fl.summary.SetText("No preview: the options are not valid.")
		fl.setProblems(err.Error())
		fl.dlg.Button("Open with these options").Disable()
		fl.table.Refresh()
		fl.shown = gen
		return
	}
	fl.setProblems("")
	c.importWork.Add(1)
	go func() {
		defer c.importWork.Done()
		pv, err := dataset.PreviewImportFile(fl.path, o)
		widgets.Do(func() {
			if gen != fl.gen {
				return
			}
			fl.show(pv, err)
			fl.shown = gen
		})
	}()
}

// show puts a preview into the form (UI goroutine).
func (fl *importFlow) show(pv *dataset.ImportPreview, err error) {
	ok := fl.dlg.Button("Open with these options")
	if err != nil {
		fl.pv = nil
		fl.summary.SetText("")
		fl.setProblems(err.Error())
		ok.Disable()
		fl.refreshTable()
		return
	}
	fl.pv = pv
	var b strings.Builder
	for i, l := range pv.Lines {
		fmt.Fprintf(&b, "%3d │ %s\n", i+1, l)
	}
	fl.lines.SetText(strings.TrimSuffix(b.String(), "\n"))
	if pv.Err != nil {
		fl.summary.SetText("No header found with these options.")
		fl.setProblems(pv.Err.Error())
		ok.Disable()
		fl.refreshTable()
		return
	}
	if good := parsedRows(pv); good < len(pv.Rows) || good == 0 && len(pv.Problems) > 0 {
		// Opening would fail (a row with the wrong number of fields or
		// invalid text stops the read): say why here instead.
		which := "None of the rows shown can be read"
		if good > 0 {
			which = fmt.Sprintf("%d of the %d rows shown cannot be read", len(pv.Rows)-good, len(pv.Rows))
		}
		fl.summary.SetText(fmt.Sprintf("%s: %d columns. %s with these options, "+
			"so the file cannot be opened with them: change the header row, the delimiter or “No header”.", headerWords(pv), len(pv.Header), which))
		fl.setProblems(problemsText(pv))
		ok.Disable()
		fl.refreshTable()
		return
	}
	ok.Enable()
	// Other options parse: the reason the step opened no longer holds. It
	// gives way to a shorter line in the space it took.
	if fl.failed != nil && pv.Options != *fl.failed && fl.reason.Text != importReadsNow {
		fl.reasonSpace.SetMinSize(fyne.NewSize(0, fl.reason.MinSize().Height))
		fl.reason.Importance = widget.SuccessImportance
		fl.reason.SetText(importReadsNow)
	}
	delim := dataset.DelimiterName(pv.Delimiter)
	if pv.Options.Delimiter == 0 {
		delim = "detected: " + delim
	}
	numeric := 0
	for _, n := range pv.Numeric {
		if n {
			numeric++
		}
	}
	more := ""
	if pv.Partial {
		more = " (the file goes on)"
	}
	fl.summary.SetText(fmt.Sprintf("%s: %d columns, %d of them numbers; delimiter %s. The first %d rows%s:",
		headerWords(pv), len(pv.Header), numeric, delim, len(pv.Rows), more))
	fl.setProblems(problemsText(pv))
	fl.refreshTable()
}

// importReadsNow replaces the reason the import step opened once other
// options read the start of the file.
const importReadsNow = "These options read the start of the file; check the columns below, then open it."

// importColumnCap is the widest a column of the preview table grows to
// fit its header and values (Fyne units); wider text is cut with "…".
const importColumnCap = 260

// refreshTable shows fl.pv in the table, each column as wide as its
// header (bold) and values need, from the template cell's width up to
// importColumnCap (walkthrough: every column had the template's width,
// so "mean_radius" was cut while a short column had room to spare).
func (fl *importFlow) refreshTable() {
	if fl.pv != nil {
		size := theme.TextSize()
		minW := widget.NewLabel("0000000.000").MinSize().Width
		pad := 2*theme.InnerPadding() + 2 // the label's padding, and a little air
		for col, name := range fl.pv.Header {
			w := fyne.MeasureText(name, size, fyne.TextStyle{Bold: true}).Width
			for _, row := range fl.pv.Rows {
				if col < len(row) {
					w = max(w, fyne.MeasureText(row[col], size, fyne.TextStyle{}).Width)
				}
			}
			fl.table.SetColumnWidth(col, min(max(w+pad, minW), importColumnCap))
		}
	}
	fl.table.Refresh()
}

// headerWords says where the column names come from: the header line, or
// with “No header” the names column1, column2, … and the line the data
// start on.
func headerWords(pv *dataset.ImportPreview) string {
	if pv.Options.NoHeader {
		return fmt.Sprintf("No header (columns named column1, column2, …); data from line %d", pv.HeaderLine)
	}
	return fmt.Sprintf("Header on line %d", pv.HeaderLine)
}

// importLinesMinHeight is the least height of the file's first lines
// (about five monospace lines).
const importLinesMinHeight = 110

// parsedRows counts the previewed rows that read (the header's number of
// fields, valid UTF-8: dataset's row rules).
func parsedRows(pv *dataset.ImportPreview) int {
	n := 0
rows:
	for _, r := range pv.Rows {
		if len(r) != len(pv.Header) {
			continue
		}
		for _, v := range r {
			if !utf8.ValidString(v) {
				continue rows
			}
		}
		n++
	}
	return n
}

// problemsText lists the preview's first three problems.
func problemsText(pv *dataset.ImportPreview) string {
	var probs []string
	for _, p := range pv.Problems {
		probs = append(probs, p.Error())
	}
	if len(probs) > 3 {
		probs = append(probs[:3], fmt.Sprintf("… and %d more", len(probs)-3))
	}
	return strings.Join(probs, "\n")
}

// setProblems shows what does not fit (hidden when nothing).
func (fl *importFlow) setProblems(text string) {
	fl.problems.SetText(text)
	fl.problems.Hidden = text == ""
	fl.problems.Refresh()
}

// minSpace is an invisible object of the given minimum size.
func minSpace(w, h float32) fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(w, h))
	return r
}
