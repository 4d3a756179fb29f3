package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// viewerPreviewRows is how many rows the batch tables show.
const viewerPreviewRows = 100

// viewerReadQueries reads a CSV of query points for release r: the columns
// named like the features (other columns are ignored), every value a finite
// number, read by project.ReadCSV (streaming, errors name file, line and
// column). It returns the queries row-major in data units and the dataset
// (for its preview).
func viewerReadQueries(path string, r *viewerRelease) ([]float64, *dataset.Table, error) {
	names := make([]string, r.dim())
	for j, f := range r.Features {
		names[j] = f.Name
	}
	ds, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: names})
	if err != nil {
		return nil, nil, err
	}
	cols := make([][]float64, r.dim())
	for j, n := range names {
		if cols[j], err = ds.Column(n); err != nil {
			return nil, nil, err
		}
	}
	x := make([]float64, ds.Rows*r.dim())
	for i := range ds.Rows {
		for j := range cols {
			x[i*r.dim()+j] = cols[j][i]
		}
	}
	return x, ds, nil
}

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
	data    *dataset.Table
	result  *viewerBatch
	cancel  context.CancelFunc

	fileLabel *widget.Label
	info      *widget.Label
	preview   *widget.Table
	evalBt    *widget.Button
	cancelBt  *widget.Button
	exportBt  *widget.Button
	progress  *widget.ProgressBar
	status    *widget.Label
	results   *widget.Table
	content   fyne.CanvasObject
}

func newViewerBatchTab(v *viewer, r *viewerRelease) *viewerBatchTab {
	t := &viewerBatchTab{v: v, r: r}
	names := make([]string, r.dim())
	for j, f := range r.Features {
		names[j] = f.Name
	}
	help := widget.NewLabel(fmt.Sprintf("Choose or drop a CSV file with a header row. Columns are matched by feature name (%s), in data units; other columns are ignored. Every value must lie within the public bounds.", strings.Join(names, ", ")))
	help.Wrapping = fyne.TextWrapWord
	choose := widget.NewButtonWithIcon("Choose Query CSV…", theme.FolderOpenIcon(), t.choose)
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
		switch {
		case id.Row < 0 && t.data != nil && id.Col < len(t.data.Columns):
			l.SetText(t.data.Columns[id.Col])
		case id.Col < 0:
			l.SetText(fmt.Sprint(id.Row + 1))
		default:
			l.SetText("")
		}
	}

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

	header := project.EvalHeader(names, r.classifier())
	t.results = widget.NewTableWithHeaders(
		func() (int, int) {
			if t.result == nil {
				return 0, 0
			}
			return min(t.result.Len(), viewerPreviewRows), len(header)
		},
		func() fyne.CanvasObject { return widget.NewLabel("0.000000000") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(t.resultCell(id.Row, id.Col))
		})
	t.results.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		l := o.(*widget.Label)
		switch {
		case id.Row < 0 && id.Col < len(header):
			l.SetText(header[id.Col])
		case id.Col < 0:
			l.SetText(fmt.Sprint(id.Row + 1))
		default:
			l.SetText("")
		}
	}

	top := container.NewVBox(help, container.NewHBox(choose, t.fileLabel), t.info)
	controls := container.NewVBox(
		container.NewBorder(nil, nil, container.NewHBox(t.evalBt, t.cancelBt), t.exportBt, t.progress),
		t.status,
	)
	split := container.NewVSplit(
		container.NewBorder(widget.NewLabelWithStyle("Preview of the query file (first rows)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.preview),
		container.NewBorder(widget.NewLabelWithStyle("Results (first 100 rows; export writes all)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, nil, nil, t.results),
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
	}
	return ""
}

func (t *viewerBatchTab) choose() {
	showOpenFile(t.v.win, []string{".csv", ".tsv", ".txt"}, t.load)
}

// load reads a query CSV in the background and shows its preview; the
// rows are checked against the public bounds before Evaluate is enabled.
func (t *viewerBatchTab) load(path string) {
	if t.cancel != nil {
		t.cancel()
	}
	t.path, t.queries, t.data, t.result = path, nil, nil, nil
	t.fileLabel.SetText(filepath.Base(path))
	t.info.SetText("Reading…")
	t.evalBt.Disable()
	t.exportBt.Disable()
	t.status.SetText("")
	t.progress.SetValue(0)
	t.preview.Refresh()
	t.results.Refresh()
	r := t.r
	t.v.goJob(func() {
		x, ds, err := viewerReadQueries(path, r)
		var boundsErr error
		if err == nil {
			boundsErr = viewerCheckBounds(r.Features, x)
		}
		fyne.Do(func() {
			if t.path != path {
				return // another file was chosen meanwhile
			}
			if err != nil {
				t.info.SetText("Cannot use this file: " + err.Error())
				return
			}
			t.queries, t.data = x, ds
			t.preview.Refresh()
			if boundsErr != nil {
				t.info.SetText(fmt.Sprintf("%d rows. Cannot evaluate: %v", ds.Rows, boundsErr))
				return
			}
			t.info.SetText(fmt.Sprintf("%d rows, all within the public bounds.", ds.Rows))
			t.evalBt.Enable()
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
	t.result = nil
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
		fyne.Do(func() {
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
				t.result = res
				t.progress.SetValue(1)
				t.results.Refresh()
				t.exportBt.Enable()
				t.status.SetText(fmt.Sprintf("Evaluated %d rows in %.2f s.", res.Len(), elapsed.Seconds()))
			}
		})
	})
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
		fyne.Do(func() {
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
