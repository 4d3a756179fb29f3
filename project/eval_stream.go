package project

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalChunk is how many query points EvalPointsCSV holds at once.
const evalChunk = 8192

// EvalPointsCSV evaluates a verified release at every query point of the
// CSV file at path (the columns named like the release's features, in any
// order, other columns ignored; data units) and writes the result CSV to w.
// The bytes written, and the errors, are those of ReadCSV, QueryPoints,
// EvalReleaseAt and WriteCSV on the whole file, but memory does not grow
// with the number of points (issue 14 item 11: 6·10⁶ points took 811 MB):
// the file is read twice, in chunks of evalChunk points. The first pass
// checks everything that can fail on the points — the CSV rules and every
// point within the public bounds — so that nothing is written for a file
// with an error; the second evaluates each chunk
// ((*synopsis.Verified).EvalDataBatch) and writes its rows. A file that
// changes between the passes (another SHA-256) is an error; the rows
// already written to w are then incomplete, so write to a temporary file
// (fileio.WriteAtomicFunc) where that matters. ctx cancels. It returns the
// number of points. Post-processing of the release: no privacy cost.
func EvalPointsCSV(ctx context.Context, v *synopsis.Verified, path string, w io.Writer) (int, error) {
	feats := v.File.Domain.Features
	l := len(feats)
	names := make([]string, l)
	for j, b := range feats {
		names[j] = b.Name
	}
	opts := dataset.CSVOptions{Columns: names}

	// Pass 1: check, write nothing.
	unit := make([]float64, l)
	x := make([]float64, l)
	row := 0
	checked, err := dataset.ScanCSV(path, opts, evalChunk, func(cols [][]float64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range cols[0] {
			for j := range l {
				x[j] = cols[j][i]
			}
			if err := v.ToUnit(x, unit); err != nil {
				return fmt.Errorf("point %d: %w", row, err)
			}
			row++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}

	// Pass 2: evaluate and write, chunk by chunk.
	bw := bufio.NewWriterSize(w, 64<<10)
	ew, err := newEvalCSVWriter(bw, names, isClassifier(v.File.Output.Kind))
	if err != nil {
		return 0, err
	}
	points := make([]float64, evalChunk*l)
	done, err := dataset.ScanCSV(path, opts, evalChunk, func(cols [][]float64) error {
		n := len(cols[0])
		for j, c := range cols {
			for i, val := range c {
				points[i*l+j] = val
			}
		}
		res, err := EvalReleaseAt(ctx, v, points[:n*l])
		if err != nil {
			return err
		}
		return ew.write(res)
	})
	if err != nil {
		return 0, err
	}
	if done.Hash != checked.Hash || done.Rows != checked.Rows {
		return 0, fmt.Errorf("%s changed while it was read: the results are incomplete; evaluate again", path)
	}
	if err := ew.flush(); err != nil {
		return 0, err
	}
	return done.Rows, bw.Flush()
}
