package curator

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// dataPage shows the dataset: counts, load errors with line and column,
// the first rows, and the choice of feature and label columns.
type dataPage struct {
	c      *curator
	box    fyne.CanvasObject
	file   *widget.Label
	counts *widget.Label
	errs   *widget.Label
	table  *widget.Table
	// filter narrows the feature list (features) to the columns whose
	// name contains its text; the list scrolls, so the window's size
	// never depends on the number or length of the columns.
	filter      *widget.Entry
	features    *widget.CheckGroup
	featureList *container.Scroll // scrolls features
	label       *widget.Select
	classes     *classForm
	colErrs     *widget.Label
	// aggregates is "Use aggregates computed elsewhere" (aggregates.go).
	aggregates *aggregatesRow
}

const noLabel = "(no label column)"

func newDataPage(c *curator) *dataPage {
	p := &dataPage{c: c}
	p.file = widget.NewLabel("No dataset yet.")
	p.file.Wrapping = fyne.TextWrapBreak
	p.counts = widget.NewLabel("")
	p.counts.Wrapping = fyne.TextWrapWord
	p.errs = widget.NewLabel("")
	p.errs.Wrapping = fyne.TextWrapWord
	p.errs.Importance = widget.DangerImportance
	p.colErrs = widget.NewLabel("")
	p.colErrs.Wrapping = fyne.TextWrapWord
	p.colErrs.Importance = widget.DangerImportance
	open := widget.NewButtonWithIcon("Open CSV…", theme.FolderOpenIcon(), c.showOpenDialog)
	// The import step again for the open file: header row, delimiter,
	// decimal comma, comment lines (import.go).
	layoutBtn := widget.NewButton("Import options…", func() {
		if c.state.CSVPath == "" {
			widgets.ShowMessage(c.win, "Import options", "Open a CSV file first.")
			return
		}
		c.showImportStep(c.state.CSVPath, false, c.state.Import, "")
	})

	p.table = widget.NewTableWithHeaders(
		func() (int, int) {
			if c.ds == nil {
				return 0, 0
			}
			return len(c.ds.Preview), len(c.ds.Columns)
		},
		func() fyne.CanvasObject { return widget.NewLabel("0000000.000") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText("")
			if c.ds != nil && id.Row < len(c.ds.Preview) && id.Col < len(c.ds.Preview[id.Row]) {
				l.SetText(c.ds.Preview[id.Row][id.Col])
			}
		})
	p.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		l.Truncation = fyne.TextTruncateEllipsis // long names stay in their column
		widgets.AlignTableHeader(l, id)
		switch {
		case id.Row < 0 && c.ds != nil && id.Col >= 0 && id.Col < len(c.ds.Columns):
			l.SetText(c.ds.Columns[id.Col])
			l.TextStyle.Bold = true
		case id.Col < 0:
			l.SetText(strconv.Itoa(id.Row + 1))
		default:
			l.SetText("")
		}
	}

	p.features = widget.NewCheckGroup(nil, func(sel []string) {
		if c.ds == nil {
			return
		}
		// Keep the file's column order, and the chosen columns the
		// filter hides.
		var ordered []string
		for _, col := range c.ds.Columns {
			shown := slices.Contains(p.features.Options, col)
			if shown && slices.Contains(sel, col) || !shown && slices.Contains(c.state.Features, col) {
				ordered = append(ordered, col)
			}
		}
		if slices.Equal(ordered, c.state.Features) {
			return // the group only followed the state
		}
		c.state.Features = ordered
		if slices.Contains(ordered, c.state.Label) {
			c.state.Label = ""
		}
		p.refreshColumns()
		c.changed()
	})
	p.filter = widget.NewEntry()
	p.filter.SetPlaceHolder("filter the columns by name")
	// The matches start at the top of the list (walkthrough: a match
	// scrolled out of view made the filtered list look empty).
	p.filter.OnChanged = func(string) {
		p.showFeatureOptions()
		p.featureList.ScrollToTop()
	}
	p.label = widget.NewSelect(nil, func(s string) {
		c.edit(func() {
			if s == noLabel {
				s = ""
			}
			if s != c.state.Label {
				c.state.Negative, c.state.Positive, c.state.FillPositive = "", "", false
			}
			c.state.Label = s
			p.refreshColumns()
		})
	})
	p.classes = newClassForm(c)
	p.aggregates = newAggregatesRow(c)
	help := widget.NewLabel("Features are the inputs of the released function; the label is what a regression or a classifier predicts. The preview shows the first 100 rows (private: for your eyes only).")
	help.Wrapping = fyne.TextWrapWord
	help.TextStyle.Italic = true
	featureList := container.NewScroll(p.features)
	featureList.SetMinSize(fyne.NewSize(200, 150))
	p.featureList = featureList
	top := container.NewVBox(
		widget.NewLabelWithStyle("Dataset", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewBorder(nil, nil, nil, container.NewHBox(layoutBtn, open), p.file), p.counts, p.errs, p.aggregates.box,
		widget.NewLabelWithStyle("Feature columns", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		p.filter, featureList,
		container.New(layout.NewFormLayout(), widget.NewLabel("Label column:"), container.New(capWidth(180), p.label)), p.classes.box,
		p.colErrs, help,
	)
	// Both halves scroll: nothing of the page sets the window's size.
	split := container.NewVSplit(widgets.VScroll(container.NewPadded(top)), p.table)
	split.Offset = 0.72
	p.box = split
	return p
}

// capWidth is a layout whose minimum width is at most its value: a
// select of long column names fills the space it gets but never widens
// the window (its text is clipped instead).
type capWidth float32

func (w capWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return fyne.NewSize(min(s.Width, float32(w)), s.Height)
}

func (w capWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.NewPos(0, 0))
	}
}

// showFeatureOptions lists the dataset's columns that match the filter,
// ticked as in the state.
func (p *dataPage) showFeatureOptions() {
	c := p.c
	var opts []string
	if c.ds != nil {
		q := strings.ToLower(strings.TrimSpace(p.filter.Text))
		for _, col := range c.ds.Columns {
			if q == "" || strings.Contains(strings.ToLower(col), q) {
				opts = append(opts, col)
			}
		}
	}
	p.features.Options = opts
	p.features.Selected = slices.DeleteFunc(slices.Clone(c.state.Features), func(col string) bool { return !slices.Contains(opts, col) })
	p.features.Refresh()
}

func (p *dataPage) content() fyne.CanvasObject { return p.box }

func (p *dataPage) refresh() {
	c := p.c
	p.aggregates.refresh(c)
	p.errs.SetText("")
	p.errs.Hide()
	switch {
	case c.ds == nil && c.dsErr != nil:
		p.file.SetText(c.state.CSVPath)
		p.counts.SetText("")
		p.errs.SetText(describeLoadError(c.dsErr))
		p.errs.Show()
	case c.ds == nil:
		p.file.SetText("No dataset yet. Open a CSV file (or drop one on the window), or try a demo from the Start page.")
		p.counts.SetText("")
	default:
		p.file.SetText(c.ds.Path)
		p.counts.SetText(plural(c.ds.Rows, "row") + " × " + plural(len(c.ds.Columns), "column") + invalidSummary(c.ds))
	}
	if c.ds != nil {
		for i := range c.ds.Columns {
			p.table.SetColumnWidth(i, min(max(90, float32(8*len(c.ds.Columns[i])+30)), 220))
		}
	}
	p.showFeatureOptions()
	p.refreshColumns()
	p.table.Refresh()
}

// refreshColumns updates the label and positive-class choices and the
// per-column errors.
func (p *dataPage) refreshColumns() { p.c.fill(p.fillColumns) }

// fillColumns is refreshColumns' work, inside fill.
func (p *dataPage) fillColumns() {
	c := p.c
	spec := c.state.spec()
	opts := []string{noLabel}
	if c.ds != nil {
		for _, col := range c.ds.Columns {
			if !slices.Contains(c.state.Features, col) {
				opts = append(opts, col)
			}
		}
	}
	p.label.Options = opts
	if c.state.Label == "" {
		p.label.SetSelected(noLabel)
	} else {
		p.label.SetSelected(c.state.Label)
	}
	switch spec.Label {
	case learners.LabelNone:
		p.label.PlaceHolder = "not needed by " + spec.Title
	default:
		p.label.PlaceHolder = "needed by " + spec.Title
	}
	p.classes.box.Hide()
	var problems []string
	if c.ds != nil {
		for _, col := range c.state.Features {
			if _, err := c.ds.Column(col); err != nil {
				problems = append(problems, err.Error())
			}
		}
		if c.state.Label != "" {
			if _, err := c.ds.Column(c.state.Label); err != nil {
				problems = append(problems, err.Error())
			} else if spec.Label == learners.LabelBinary {
				p.classes.refresh(c)
				p.classes.box.Show()
				if _, err := c.state.classes(); err != nil {
					problems = append(problems, fmt.Sprintf("label %q: %v", c.state.Label, err))
				}
			}
		}
		if spec.Label != learners.LabelNone && c.state.Label == "" {
			problems = append(problems, spec.Title+" needs a label column.")
		}
		if spec.Label == learners.LabelNone && c.state.Label != "" {
			problems = append(problems, fmt.Sprintf("%s is unsupervised: the label column %q is not used.", spec.Title, c.state.Label))
		}
	}
	p.colErrs.SetText(strings.Join(problems, "\n"))
}

// describeLoadError explains a CSV error with its line and column.
func describeLoadError(err error) string {
	var ce *dataset.CSVError
	if errors.As(err, &ce) {
		s := "Could not read the file:\n" + ce.Error()
		if len(ce.Lines) > 0 {
			s += "\nLines: " + joinInts(ce.Lines)
		}
		return s
	}
	return "Could not read the file:\n" + err.Error()
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func formatValue(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
