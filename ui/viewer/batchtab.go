package viewer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// viewerPreviewRows is how many rows the batch tables show.
const viewerPreviewRows = 100

// viewerQueries is a query file read for a release: the valid rows
// row-major in data units, the file's line of each, the dataset (header
// and preview) and the invalid rows left out.
type viewerQueries struct {
	x       []float64
	lines   []int
	data    *dataset.Table
	skipped dataset.InvalidRows
}

// viewerReadQueries reads a CSV of query points for release r with
// dataset.ScanQueryPoints, the reader `bernstein eval --points` uses: the
// columns named like the features (other columns are ignored), every value
// a finite number within its feature's public bounds. Invalid rows are
// named by their line in the file, in eval's words; with skip they are
// left out and reported, else the file is refused
// (*dataset.InvalidPointsError; q then holds the file's preview).
func viewerReadQueries(ctx context.Context, path string, r *viewerRelease, skip bool) (*viewerQueries, error) {
	bounds := make([]synopsis.Bound, r.dim())
	for j, f := range r.Features {
		bounds[j] = synopsis.Bound{Name: f.Name, Unit: f.Unit, Lo: f.Lo, Hi: f.Hi}
	}
	q := &viewerQueries{}
	var err error
	q.data, q.skipped, err = dataset.ScanQueryPoints(ctx, path, bounds, dataset.QueryOptions{SkipInvalid: skip}, viewerBatchChunk,
		func(x []float64, lines []int) error {
			q.x = append(q.x, x...)
			q.lines = append(q.lines, lines...)
			return nil
		})
	return q, err // with an *dataset.InvalidPointsError, q.data has the preview
}

// viewerSkipHint ends the message about a file with invalid rows: the
// viewer's way to evaluate the others (eval's is --skip-invalid).
const viewerSkipHint = `fix the file, or tick "Skip invalid rows" to evaluate the other rows`

// viewerExportBatch writes the batch result as CSV (viewerWriteCSV) to path
// atomically (fileio.WriteAtomic, replacing a file the analyst chose
// to overwrite in the save dialog).
func viewerExportBatch(ctx context.Context, path string, b *viewerBatch, progress func(done, total int)) error {
	var buf bytes.Buffer
	buf.Grow(b.Len() * 64)
	if err := viewerWriteCSV(ctx, &buf, b, progress); err != nil {
		return err
	}
	return fileio.WriteAtomic(path, buf.Bytes(), 0o644, true)
}

// viewerBatchTab evaluates the release at every row of a CSV file of query
// points and exports the results.
type viewerBatchTab struct {
	v *viewer
	r *viewerRelease

	path    string
	queries []float64 // row-major, data units
	lines   []int     // the file's line of each query
	data    *dataset.Table
	raw     *viewerBatch // the released values
	result  *viewerBatch // what is shown and exported: raw, clamped if asked
	cancel  context.CancelFunc

	skip      *widget.Check // "Skip invalid rows"
	skipped   dataset.InvalidRows
	rangeNote string // values outside the public output range, if any

	fileLabel *widget.Label
	info      *widget.Label
	preview   *widget.Table
	evalBt    *widget.Button
	cancelBt  *widget.Button
	// openFlow is the last Choose Query CSV… dialog (tests).
	openFlow *files.OpenFileFlow
	exportBt *widget.Button
	progress *widget.ProgressBar
	status   *widget.Label
	results  *widget.Table
	content  fyne.CanvasObject
}

func newViewerBatchTab(v *viewer, r *viewerRelease) *viewerBatchTab {
	t := &viewerBatchTab{v: v, r: r}
	names := make([]string, r.dim())
	for j, f := range r.Features {
		names[j] = f.Name
	}
	help := widget.NewLabel(fmt.Sprintf("Choose or drop a CSV file with a header row. Columns are matched by feature name (%s), in data units; other columns are ignored. Every value must lie within the public bounds; rows are named by their line in the file.", strings.Join(names, ", ")))
	help.Wrapping = fyne.TextWrapWord
	choose := widget.NewButtonWithIcon("Choose Query CSV…", theme.FolderOpenIcon(), t.choose)
	t.skip = widget.NewCheck("Skip invalid rows", func(bool) {
		if t.path != "" {
			t.load(t.path)
		}
	})
	t.fileLabel = widget.NewLabel("No file chosen.")
	t.info = widget.NewLabel("")
	t.info.Wrapping = fyne.TextWrapWord

	t.preview = widget.NewTableWithHeaders(
		func() (int, int) {
			if t.data == nil {
				return 0, 0
			}
			return len(t.data.Preview), len(t.data.Columns)
		},
		func() fyne.CanvasObject { return widget.NewLabel("0000000000") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if t.data != nil && id.Row < len(t.data.Preview) && id.Col < len(t.data.Preview[id.Row]) {
				o.(*widget.Label).SetText(t.data.Preview[id.Row][id.Col])
			}
		})
	t.preview.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		widgets.AlignTableHeader(l, id)
		switch {
		case id.Row < 0 && t.data != nil && id.Col < len(t.data.Columns):
			l.SetText(t.data.Columns[id.Col])
		default:
			l.SetText("")
		}
	}
	t.preview.ShowHeaderColumn = false // rows are numbered by file line, which the preview does not know

	t.evalBt = widget.NewButtonWithIcon("Evaluate", theme.MediaPlayIcon(), t.evaluate)
	t.evalBt.Importance = widget.HighImportance
	t.evalBt.Disable()
	t.cancelBt = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if t.cancel != nil {
			t.cancel()
		}
	})
	t.cancelBt.Disable()
	t.exportBt = widget.NewButtonWithIcon("Export Results…", theme.DocumentSaveIcon(), t.chooseExport)
	t.exportBt.Disable()
	t.progress = widget.NewProgressBar()
	t.status = widget.NewLabel("")
	t.status.Wrapping = fyne.TextWrapWord

	t.results = widget.NewTableWithHeaders(
		func() (int, int) {
			if t.result == nil {
				return 0, 0
			}
			return min(t.result.Len(), viewerPreviewRows), len(t.result.Header())
		},
		func() fyne.CanvasObject { return widget.NewLabel("0.000000000") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(t.resultCell(id.Row, id.Col))
		})
	t.results.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		widgets.AlignTableHeader(l, id)
		switch {
		case id.Row < 0 && t.result != nil && id.Col < len(t.result.Header()):
			l.SetText(t.result.Header()[id.Col])
		case id.Col < 0 && id.Row < len(t.lines):
			l.SetText(fmt.Sprint(t.lines[id.Row]))
		default:
			l.SetText("")
		}
	}

	top := container.NewVBox(help, container.NewHBox(choose, t.skip, t.fileLabel), t.info)
	controls := container.NewVBox(
		container.NewBorder(nil, nil, container.NewHBox(t.evalBt, t.cancelBt), t.exportBt, t.progress),
		t.status,
	)
	split := container.NewVSplit(
		container.NewBorder(widget.NewLabelWithStyle("Preview of the query file (first rows)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.preview),
		container.NewBorder(widget.NewLabelWithStyle("Results (first 100 rows, numbered by their line in the file; export writes all)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.results),
	)
	t.content = container.NewBorder(container.NewVBox(top, controls), nil, nil, nil, split)
	return t
}

// resultCell formats one cell of the results table.
func (t *viewerBatchTab) resultCell(row, col int) string {
	b := t.result
	if b == nil || row >= b.Len() {
		return ""
	}
	dim := len(b.Features)
	switch {
	case col < dim:
		return viewerNum(b.X[row*dim+col])
	case col == dim:
		return viewerNum(b.Value[row])
	case col == dim+1:
		return viewerNum(b.NoiseStd[row])
	case col == dim+2 && b.Class != nil:
		return b.Class[row]
	case b.Clamped != nil && col == len(b.Header())-1:
		return strconv.FormatBool(b.Clamped[row])
	}
	return ""
}

func (t *viewerBatchTab) choose() {
	// The keyboard-friendly Open dialog (a typed path, Browse…), starting
	// in the synopsis's folder, where its query files usually are.
	dir := ""
	if t.v.doc != nil && t.v.doc.Path != "" {
		dir = filepath.Dir(t.v.doc.Path)
	}
	t.openFlow = files.ShowOpenPath(t.v.win, []string{".csv", ".tsv", ".txt"}, dir, t.load)
}

// load reads a query CSV in the background and shows its preview; the
// rows are checked (numbers, public bounds) before Evaluate is enabled.
func (t *viewerBatchTab) load(path string) {
	if t.cancel != nil {
		t.cancel()
	}
	t.path, t.queries, t.lines, t.data, t.raw, t.result = path, nil, nil, nil, nil, nil
	t.skipped = dataset.InvalidRows{}
	t.fileLabel.SetText(filepath.Base(path))
	t.info.SetText("Reading…")
	t.evalBt.Disable()
	t.exportBt.Disable()
	t.status.SetText("")
	t.progress.SetValue(0)
	t.preview.Refresh()
	t.results.Refresh()
	r, skip := t.r, t.skip.Checked
	t.v.goJob(func() {
		q, err := viewerReadQueries(context.Background(), path, r, skip)
		widgets.Do(func() {
			if t.path != path || t.skip.Checked != skip {
				return // another file or setting was chosen meanwhile
			}
			var bad *dataset.InvalidPointsError
			switch {
			case errors.As(err, &bad):
				t.data = q.data // the preview shows the rows named
				t.preview.Refresh()
				t.info.SetText("Cannot evaluate: " + err.Error() + "; " + viewerSkipHint + ".")
				return
			case err != nil:
				t.info.SetText("Cannot use this file: " + err.Error())
				return
			}
			t.queries, t.lines, t.data, t.skipped = q.x, q.lines, q.data, q.skipped
			t.preview.Refresh()
			if s := q.skipped.Skipped(); s != "" {
				t.info.SetText(fmt.Sprintf("%d rows to evaluate; %s.", len(q.lines), s))
			} else {
				t.info.SetText(fmt.Sprintf("%d rows, all within the public bounds.", len(q.lines)))
			}
			if len(q.lines) > 0 {
				t.evalBt.Enable()
			}
		})
	})
}

// evaluate evaluates every query row in the background with a progress
// bar and a cancel button; the window stays responsive.
func (t *viewerBatchTab) evaluate() {
	if t.queries == nil {
		return
	}
	t.evalBt.Disable()
	t.exportBt.Disable()
	t.cancelBt.Enable()
	t.raw, t.result = nil, nil
	t.results.Refresh()
	t.progress.SetValue(0)
	t.status.SetText("Evaluating…")
	x, r, path := t.queries, t.r, t.path
	start := time.Now()
	report, stop := viewerProgress(t.progress)
	t.cancel = t.v.runCtx(func(ctx context.Context) {
		res, err := viewerEvalBatch(ctx, r, x, report)
		elapsed := time.Since(start)
		stop()
		widgets.Do(func() {
			if t.path != path {
				return
			}
			t.cancelBt.Disable()
			t.evalBt.Enable()
			switch {
			case errors.Is(err, context.Canceled):
				t.status.SetText("Cancelled.")
				t.progress.SetValue(0)
			case err != nil:
				t.status.SetText("Evaluation failed: " + err.Error())
			default:
				t.raw = res
				t.progress.SetValue(1)
				t.exportBt.Enable()
				done := fmt.Sprintf("Evaluated %d rows in %.2f s", res.Len(), elapsed.Seconds())
				if t.skipped.Count > 0 {
					done += "; " + t.skipped.SkippedBrief()
				}
				t.status.SetText(done + ".")
				t.applyClamp()
			}
		})
	})
}

// applyClamp shows the released values as they are or, when the viewer's
// clamp option is ticked, clamped to the public output range (a copy: the
// released values are kept); export writes what is shown, with the column
// clamped when clamped. It says how many values lie outside the range.
func (t *viewerBatchTab) applyClamp() {
	if t.raw == nil {
		return
	}
	t.result = t.raw
	outside := 0
	for _, val := range t.raw.Value {
		if _, moved := t.r.clamp(val); moved {
			outside++
		}
	}
	t.rangeNote = ""
	if t.v.clampOn() {
		c := *t.raw
		c.Value = slices.Clone(t.raw.Value)
		c.Clamped = nil
		c.Clamp(t.r.Range[0], t.r.Range[1])
		t.result = &c
		if outside > 0 {
			t.rangeNote = fmt.Sprintf("%d of %d values lay outside the public output range %s and are shown clamped (column clamped).", outside, t.raw.Len(), t.r.rangeText())
		}
	} else if outside > 0 {
		t.rangeNote = fmt.Sprintf("%d of %d values lie outside the public output range %s: the privacy noise can carry values there. Tick \"%s\" to clamp them.", outside, t.raw.Len(), t.r.rangeText(), viewerClampLabel)
	}
	t.results.Refresh()
	t.showStatus()
}

// showStatus shows the evaluation status with the range note.
func (t *viewerBatchTab) showStatus() {
	s := t.status.Text
	if i := strings.Index(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if t.rangeNote != "" {
		s += "\n" + t.rangeNote
	}
	t.status.SetText(s)
}

func (t *viewerBatchTab) chooseExport() {
	if t.result == nil {
		return
	}
	base := strings.TrimSuffix(filepath.Base(t.path), filepath.Ext(t.path))
	if t.v.saveDir == "" {
		t.v.saveDir = filepath.Dir(t.path)
	}
	t.v.saveAs("Export results as CSV", base+"-results.csv", ".csv", t.export)
}

// export writes the results to path in the background.
func (t *viewerBatchTab) export(path string) {
	res := t.result
	if res == nil {
		return
	}
	t.exportBt.Disable()
	t.cancelBt.Enable()
	t.status.SetText("Exporting…")
	report, stop := viewerProgress(t.progress)
	t.cancel = t.v.runCtx(func(ctx context.Context) {
		err := viewerExportBatch(ctx, path, res, report)
		stop()
		widgets.Do(func() {
			t.cancelBt.Disable()
			t.exportBt.Enable()
			if err != nil {
				t.status.SetText("Export failed: " + err.Error())
				return
			}
			t.status.SetText(fmt.Sprintf("Exported %d rows to %s.", res.Len(), path))
		})
	})
}
