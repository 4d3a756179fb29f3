package curator

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// "Use aggregates computed elsewhere" (issue 20; docs/aggregates.md): the
// curator runs the project's aggregate query where the records live (their
// own database or cluster) and releases from its result table, through the
// same release.Aggregates path as bernstein release --aggregates. The
// query is written from the project's public settings only (the learner,
// columns, typed bounds, fill values and declared classes chosen with the
// open file, which may be a sample or only the header row); n and the
// ledger dataset are declared, as on the command line. The choice lasts
// for the session (curatorState.Aggregates; opening another file drops
// it) and is not saved in the project file.

// aggregatesRow is the data step's row: the button and what is in use.
type aggregatesRow struct {
	box    fyne.CanvasObject
	open   *widget.Button
	status *widget.Label
	stop   *widget.Button
}

func newAggregatesRow(c *curator) *aggregatesRow {
	r := &aggregatesRow{status: widget.NewLabel("")}
	r.status.Wrapping = fyne.TextWrapWord
	r.open = widget.NewButtonWithIcon("Use aggregates computed elsewhere…", theme.StorageIcon(), c.showAggregatesDialog)
	r.stop = widget.NewButton("Use the records again", func() {
		c.state.Aggregates = nil
		r.refresh(c)
	})
	r.box = container.NewVBox(container.NewHBox(r.open, r.stop), r.status)
	r.refresh(c)
	return r
}

// refresh shows the aggregate table in use, if any (UI goroutine).
func (r *aggregatesRow) refresh(c *curator) {
	a := c.state.Aggregates
	if a == nil && c.state.Records != nil {
		r.status.SetText(fmt.Sprintf("Opened through the embedded DuckDB (Parquet, or a CSV file of at least %d MiB): %d records counted (n, public); "+
			"the table below shows the first rows. Releases and the preview run the learner's aggregate query on the whole file; "+
			"kernel density, naive Bayes and ridge regression have one, and logistic regression runs its Newton passes there.", release.DefaultDuckDBCSVBytes>>20, c.state.Rows))
		r.status.Show()
		r.stop.Hide()
		return
	}
	if a == nil {
		r.status.SetText("")
		r.status.Hide()
		r.stop.Hide()
		return
	}
	r.status.SetText(fmt.Sprintf("Releases use the aggregate table %s (computed by %s, n = %d declared, ledger dataset %q), not the records of the open file; "+
		"the preview still shows the open file.", a.Path, a.Dialect, a.N, a.Dataset))
	r.status.Show()
	r.stop.Show()
}

// aggregatesForm is the dialog's widgets (tests drive them).
type aggregatesForm struct {
	dlg                          *widgets.Dialog
	dialect                      *widgets.KeySelect
	table, bins, path, n, dataID *widgets.KeyEntry
	browse, copyQuery            *widget.Button
	query                        *widget.Label
	msg                          *widget.Label
	text                         string // the query shown ("" when it cannot be written)
}

// showAggregatesDialog is the data step's "Use aggregates computed
// elsewhere…": the query for the chosen dialect (with Copy) and the result
// table with the declared n and ledger dataset.
func (c *curator) showAggregatesDialog() {
	f := &aggregatesForm{query: widget.NewLabel(""), msg: widget.NewLabel("")}
	c.aggForm = f
	f.query.TextStyle.Monospace = true
	f.query.Selectable = true
	f.query.Wrapping = fyne.TextWrapBreak
	f.msg.Wrapping = fyne.TextWrapWord
	f.msg.Importance = widget.DangerImportance
	names := make([]string, len(aggregate.Dialects))
	for i, d := range aggregate.Dialects {
		names[i] = string(d)
	}
	f.dialect = widgets.NewKeySelect(names, nil)
	f.table, f.bins = widgets.NewKeyEntry(false), widgets.NewKeyEntry(false)
	f.path, f.n, f.dataID = widgets.NewKeyEntry(false), widgets.NewKeyEntry(false), widgets.NewKeyEntry(false)
	f.table.SetText(release.DefaultAggregateTable)
	f.bins.SetText(strconv.Itoa(aggregate.DefaultBins))
	f.dialect.SetSelected(string(aggregate.DuckDB))
	if a := c.state.Aggregates; a != nil {
		f.dialect.SetSelected(string(a.Dialect))
		f.table.SetText(a.Table)
		f.bins.SetText(strconv.Itoa(a.Bins))
		f.path.SetText(a.Path)
		f.n.SetText(strconv.Itoa(a.N))
		f.dataID.SetText(a.Dataset)
	}
	f.path.SetPlaceHolder("the result table: a CSV file with a header row, or a Parquet file")
	f.n.SetPlaceHolder("the public number of records the table counts")
	f.dataID.SetPlaceHolder("a ledger dataset hash (12+ hex digits) or a name of your choosing")
	f.browse = widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		files.ShowOpenPath(c.win, []string{".csv", ".parquet"}, c.openDir(), func(path string) { f.path.SetText(path) })
	})
	f.copyQuery = widget.NewButtonWithIcon("Copy query", theme.ContentCopyIcon(), func() {
		if f.text != "" {
			c.app.Clipboard().SetContent(f.text)
		}
	})
	// The query follows the dialect, table and bins from now on.
	f.dialect.OnChanged = func(string) { f.update(c) }
	f.table.OnChanged = func(string) { f.update(c) }
	f.bins.OnChanged = func(string) { f.update(c) }
	f.update(c)
	intro := widget.NewLabel("Run this query where your records live (your own database or cluster, with the records in the table named below), " +
		"save its result as a CSV file with a header row or as a Parquet file, and release from it. The query holds only this project's public settings: " +
		"learner, columns, bounds, fill values, classes and bins. Kernel density, naive Bayes and ridge regression have one.")
	intro.Wrapping = fyne.TextWrapWord
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Engine (SQL dialect):"), f.dialect,
		widget.NewLabel("Table of the records:"), f.table,
		widget.NewLabel("Fine bins per axis B:"), f.bins,
	)
	table := container.New(layout.NewFormLayout(),
		widget.NewLabel("Result table:"), container.NewBorder(nil, nil, nil, f.browse, f.path),
		widget.NewLabel("Records n (declared):"), f.n,
		widget.NewLabel("Ledger dataset:"), f.dataID,
	)
	content := container.NewVBox(intro, form,
		container.NewBorder(nil, nil, nil, f.copyQuery, widget.NewLabelWithStyle("Query", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})),
		container.NewStack(minSpace(0, 220), container.NewScroll(f.query)),
		widget.NewLabelWithStyle("Its result", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), table, f.msg)
	f.dlg = widgets.ShowWindowDialog(c.win, "Use aggregates computed elsewhere", widgets.VScroll(content), []string{"Cancel", "Use this table"},
		[]func() bool{nil, func() bool { return f.use(c) }})
	c.win.Canvas().Focus(f.dialect)
}

// update writes the query for the form's dialect, table and bins from
// the project's settings (release.AggregateQuery: the text whose SHA-256
// the release records), or says why it cannot.
func (f *aggregatesForm) update(c *curator) {
	f.text = ""
	req, err := c.state.request(c.ds)
	bins, berr := strconv.Atoi(strings.TrimSpace(f.bins.Text))
	switch {
	case err != nil:
		f.query.SetText("The query needs the project's settings first: " + releaseBlocker(err))
	case berr != nil:
		f.query.SetText("Fine bins B: a whole number, e.g. 4096.")
	default:
		q, err := release.AggregateQuery(req, aggregate.Dialect(f.dialect.Selected), strings.TrimSpace(f.table.Text), bins)
		if err != nil {
			f.query.SetText("No query: " + err.Error())
			break
		}
		f.text = q
		f.query.SetText(q)
	}
	if f.text == "" {
		f.copyQuery.Disable()
	} else {
		f.copyQuery.Enable()
	}
}

// use checks the form and makes the table the source of the next
// releases; false keeps the dialog open with the rule broken.
func (f *aggregatesForm) use(c *curator) bool {
	a, err := f.aggregates()
	if err != nil {
		f.msg.SetText(err.Error())
		return false
	}
	c.state.Aggregates = a
	if dp, ok := c.pages[stepData].(*dataPage); ok {
		dp.aggregates.refresh(c)
	}
	c.setStatus("Releases now use the aggregate table %s", a.Path)
	return true
}

// aggregates reads the form: a query that can be written, an existing
// result file, n a whole number ≥ 1 and a ledger dataset. Everything else
// (the table's columns and counts against n) release.Prepare checks.
func (f *aggregatesForm) aggregates() (*release.Aggregates, error) {
	if f.text == "" {
		return nil, errors.New("no query for these settings: see above")
	}
	path := strings.TrimSpace(f.path.Text)
	if path == "" {
		return nil, errors.New("result table: choose the CSV or Parquet file the query returned")
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("result table: %s is not a file that can be read", path)
	}
	n, err := strconv.Atoi(strings.TrimSpace(f.n.Text))
	if err != nil || n < 1 {
		return nil, errors.New("records n: the public number of records the table counts, a whole number of at least 1 (never taken from the table)")
	}
	id := strings.TrimSpace(f.dataID.Text)
	if id == "" {
		return nil, errors.New("ledger dataset: the hash of a dataset the ledger knows, or a name of your choosing; the ledger cannot recognise records it never reads")
	}
	bins, _ := strconv.Atoi(strings.TrimSpace(f.bins.Text))
	return &release.Aggregates{Path: path, Dialect: aggregate.Dialect(f.dialect.Selected), Bins: bins,
		Table: strings.TrimSpace(f.table.Text), N: n, Dataset: id}, nil
}

// checkDeclaredDataset is the release dialog's ledger check for a release
// from aggregates: the declared dataset (release.DeclaredDataset), found
// off the UI goroutine; show gets a finding naming it, for the budget.
func (c *curator) checkDeclaredDataset(f *releaseFlow, req release.Request, show func(*ledger.IdentityFinding)) {
	w := f.identity
	a := *req.Aggregates
	go func() {
		hash, how, err := func() (string, string, error) {
			l, err := c.openLedger()
			if err != nil {
				return "", "", err
			}
			if a.Records != "" {
				return release.RecordsFileDataset(l, a.Records, a.Dataset) // hashes the file
			}
			return release.DeclaredDataset(l, a.Dataset)
		}()
		widgets.Do(func() {
			if c.release != f {
				return
			}
			if err != nil {
				w.finding.SetText("The ledger dataset you declared cannot be used: " + err.Error())
				w.finding.Importance = widget.DangerImportance
				w.finding.Refresh()
				return
			}
			if a.Records == "" {
				how = "(declared by you): " + how
			} else {
				how = ": " + how
			}
			w.finding.SetText("Dataset " + how)
			w.finding.Refresh()
			w.same = &ledger.IdentityFinding{Charges: []ledger.DatasetMatch{{DatasetHash: hash}}}
			show(w.same)
		})
	}()
}

// requestN is the public n of a request: the declared n of an aggregate
// table, else the records' row count.
func requestN(req release.Request) int {
	if req.Aggregates != nil {
		return req.Aggregates.N
	}
	return req.Dataset.Rows
}

// resultDataset says which ledger dataset a published release was charged
// to: the records' finding, or the dataset declared for an aggregate
// table.
func resultDataset(res *release.Result) string {
	if res.Identity != nil {
		return res.Identity.Describe()
	}
	return fmt.Sprintf("From an aggregate table; charged to ledger dataset %s, as you declared.", ledger.ShortHash(res.Entry.DatasetHash))
}
