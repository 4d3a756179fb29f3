package dataset

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalChunk is how many query points EvalPointsCSV holds at once.
const evalChunk = 8192

// StdinName is how messages name standard input given as a query file
// (`bernstein eval --points -`).
const StdinName = "standard input"

// InvalidRows describes the rows of a query file that cannot be evaluated:
// a feature value that is missing or not a number (the CSV rules of
// ParseCSV), or that lies outside its feature's public bounds. Rows are
// numbered by the file's line (the header is line 1), in the viewer and in
// `bernstein eval` alike.
type InvalidRows struct {
	// Count is the number of invalid rows in the file.
	Count int
	// Lines lists the lines of the first few (at most maxReportedLines)
	// invalid rows, in file order.
	Lines []int
	// First is the first invalid row: file, line, column and rule. For a
	// value outside the bounds it wraps an *synopsis.OutOfBoundsError.
	First *CSVError
}

// add records one invalid row, keeping the first lines in file order (the
// parser reports unreadable rows before the bounds of their chunk are
// checked, so reports may arrive out of order within a chunk).
func (r *InvalidRows) add(e *CSVError) {
	r.Count++
	if r.First == nil || e.Line < r.First.Line {
		r.First = e
	}
	i, _ := slices.BinarySearch(r.Lines, e.Line)
	if i < maxReportedLines {
		r.Lines = slices.Insert(r.Lines, i, e.Line)
		if len(r.Lines) > maxReportedLines {
			r.Lines = r.Lines[:maxReportedLines]
		}
	}
}

// linesText formats "line 3" or "lines 3, 5, 9" (with "…" when more rows
// than listed are invalid).
func (r InvalidRows) linesText() string {
	s := joinLines(r.Lines)
	if r.Count > len(r.Lines) {
		s += ", …"
	}
	if r.Count == 1 {
		return "line " + s
	}
	return "lines " + s
}

// Skipped reports skipped invalid rows in one sentence, the same in the
// viewer and in `bernstein eval`: how many, their first lines and the
// first reason; "" if none.
func (r InvalidRows) Skipped() string {
	if r.Count == 0 {
		return ""
	}
	return r.SkippedBrief() + fmt.Sprintf("; first: %v", r.First)
}

// SkippedBrief is Skipped without the first reason: "skipped 2 invalid
// rows (lines 4, 6)"; "" if none.
func (r InvalidRows) SkippedBrief() string {
	if r.Count == 0 {
		return ""
	}
	return fmt.Sprintf("skipped %s (%s)", plural(r.Count, "invalid row"), r.linesText())
}

// InvalidPointsError is the error for a query file with invalid rows when
// they are not skipped. Its message is the first row's error (file, line,
// column, rule) and, for more than one, how many rows and their first
// lines; callers add how to skip them (the viewer's "Skip invalid rows",
// eval's --skip-invalid). errors.As finds the first row's *CSVError and,
// for a value outside the bounds, its *synopsis.OutOfBoundsError.
type InvalidPointsError struct {
	InvalidRows
}

func (e *InvalidPointsError) Error() string {
	s := e.First.Error()
	if e.Count > 1 {
		s += fmt.Sprintf("; %d rows cannot be evaluated (%s)", e.Count, e.linesText())
	}
	return s
}

// Unwrap returns the first invalid row's error.
func (e *InvalidPointsError) Unwrap() error { return e.First }

// QueryOptions says how to read a query file.
type QueryOptions struct {
	// SkipInvalid leaves invalid rows out (reported in InvalidRows)
	// instead of failing with an *InvalidPointsError.
	SkipInvalid bool
	// Import is the query file's layout (ParseCSV): header row, delimiter,
	// decimal comma, comment character.
	Import ImportOptions
}

// ScanQueryPoints reads the query file at path for a release whose
// features have the public bounds feats: the columns named like the
// features (in any order; other columns ignored), values in data units.
// It passes the valid rows to fn in chunks of at most chunk points: x
// row-major in axis order, lines[i] the file's line of point i (both valid
// only during the call). A row is invalid when a feature value is missing
// or not a finite number (ParseCSV's rules) or lies outside its feature's
// [Lo, Hi]. Invalid rows are counted and reported in the returned
// InvalidRows; unless opts.SkipInvalid, a file with any is an
// *InvalidPointsError (after reading it to the end; fn then has seen only
// rows before the first invalid one, so a caller that must not act on such
// a file reads it twice). Other errors — the file, the header, a missing
// feature column, the CSV syntax — are ReadCSV's *CSVError (the Table is
// then nil; with an *InvalidPointsError it is returned for its header and
// preview). ctx cancels.
// Memory is bounded by the chunk, whatever the file's size. The returned
// Table has the header, the preview and Rows (the rows passed to fn).
func ScanQueryPoints(ctx context.Context, path string, feats []synopsis.Bound, opts QueryOptions, chunk int, fn func(x []float64, lines []int) error) (*Table, InvalidRows, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, InvalidRows{}, notRegularCSV(path, err)
	}
	defer f.Close()
	return scanQueryPoints(ctx, f, path, feats, opts, chunk, fn)
}

// scanQueryPoints is ScanQueryPoints on a reader; name is used in errors.
func scanQueryPoints(ctx context.Context, r io.Reader, name string, feats []synopsis.Bound, opts QueryOptions, chunk int, fn func(x []float64, lines []int) error) (*Table, InvalidRows, error) {
	l := len(feats)
	names := make([]string, l)
	for j, b := range feats {
		names[j] = b.Name
	}
	var bad InvalidRows
	x := make([]float64, 0, min(chunk, evalChunk)*l)
	var lines []int
	passed := 0
	ds, err := scanCSVFrom(r, name, CSVOptions{Columns: names, Import: opts.Import}, chunk, bad.add, func(c csvChunk) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		x, lines = x[:0], lines[:0]
		for i, line := range c.lines {
			ok := true
			for j, b := range feats {
				if v := c.cols[j][i]; !(v >= b.Lo && v <= b.Hi) {
					bad.add(&CSVError{File: name, Line: line, Column: c.fields[j] + 1, ColumnName: b.Name,
						Rule: fmt.Sprintf("%s is outside the public bounds [%s, %s]%s; the release says nothing there",
							fmtValue(v), fmtValue(b.Lo), fmtValue(b.Hi), unitSuffix(b.Unit)),
						Err: &synopsis.OutOfBoundsError{Feature: b.Name, Index: j, Value: v, Lo: b.Lo, Hi: b.Hi}})
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for j := range feats {
				x = append(x, c.cols[j][i])
			}
			lines = append(lines, line)
		}
		if bad.Count > 0 && !opts.SkipInvalid {
			return nil // the read fails at the end: pass nothing more
		}
		if len(lines) == 0 {
			return nil
		}
		passed += len(lines)
		return fn(x, lines)
	})
	if err != nil {
		return nil, bad, err
	}
	if bad.Count > 0 && !opts.SkipInvalid {
		ds.Rows = passed
		return ds, bad, &InvalidPointsError{bad} // ds for its header and preview
	}
	if bad.Count == 0 && ds.Rows == 0 {
		return nil, bad, &CSVError{File: name, Line: 1, Rule: "no data rows after the header"}
	}
	ds.Rows = passed
	return ds, bad, nil
}

// fmtValue formats a number in messages about query points: the shortest
// form that reads back exactly.
func fmtValue(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " " + unit
}

// EvalPointsOptions controls EvalPointsCSV.
type EvalPointsOptions struct {
	QueryOptions
	// Clamp clamps the released values to the output's public range
	// ((*EvalResults).Clamp; the CSV then has the column clamped).
	Clamp bool
	// Stdin is read when path is "-" (StdinName in messages).
	Stdin io.Reader
}

// EvalPointsSummary reports what EvalPointsCSV did.
type EvalPointsSummary struct {
	Rows    int         // points evaluated and written
	Clamped int         // values moved into the public range (with Clamp)
	Skipped InvalidRows // invalid rows left out (with SkipInvalid)
}

// EvalPointsCSV evaluates a verified release at every query point of the
// CSV file at path (ScanQueryPoints: the columns named like the release's
// features, in any order, other columns ignored; data units) and writes the
// result CSV to w. The bytes written are those of EvalReleaseAt and
// WriteCSV on all the valid points, but memory does not grow with the
// number of points (issue 14 item 11: 6·10⁶ points took 811 MB): the file
// is read twice, in chunks of evalChunk points. The first pass checks
// everything that can fail on the points — the CSV rules and every point
// within the public bounds, or with opts.SkipInvalid which rows to leave
// out — so that nothing is written for a file with an error; the second
// evaluates each chunk ((*synopsis.Verified).EvalDataBatch) and writes its
// rows. A file that changes between the passes (another SHA-256) is an
// error; the rows already written to w are then incomplete, so write to a
// temporary file (WriteFileAtomicFunc) where that matters. path "-" reads
// opts.Stdin, copied first to a temporary file (mode 0600, removed before
// returning) so that it can be read twice: memory stays bounded, disk use
// is the size of the input. ctx cancels. Post-processing of the release:
// no privacy cost.
func EvalPointsCSV(ctx context.Context, v *synopsis.Verified, path string, w io.Writer, opts EvalPointsOptions) (EvalPointsSummary, error) {
	name := path
	if path == "-" {
		if opts.Stdin == nil {
			return EvalPointsSummary{}, errors.New("query points from standard input: no standard input given")
		}
		tmp, err := spoolStdin(ctx, opts.Stdin)
		if err != nil {
			return EvalPointsSummary{}, err
		}
		defer os.Remove(tmp)
		path, name = tmp, StdinName
	}
	open := func() (*os.File, error) {
		f, err := fileio.OpenRegular(path)
		if err != nil {
			return nil, notRegularCSV(name, err)
		}
		return f, nil
	}
	feats := v.File.Domain.Features
	l := len(feats)
	scan := func(fn func(x []float64, lines []int) error) (*Table, InvalidRows, error) {
		f, err := open()
		if err != nil {
			return nil, InvalidRows{}, err
		}
		defer f.Close()
		return scanQueryPoints(ctx, f, name, feats, opts.QueryOptions, evalChunk, fn)
	}

	// Pass 1: check, write nothing.
	checked, skipped, err := scan(func([]float64, []int) error { return nil })
	if err != nil {
		return EvalPointsSummary{}, err
	}

	// Pass 2: evaluate and write, chunk by chunk.
	sum := EvalPointsSummary{Skipped: skipped}
	bw := bufio.NewWriterSize(w, 64<<10)
	names := make([]string, l)
	for j, b := range feats {
		names[j] = b.Name
	}
	ew, err := newEvalCSVWriter(bw, names, isClassifier(v.File.Output.Kind), opts.Clamp)
	if err != nil {
		return EvalPointsSummary{}, err
	}
	done, _, err := scan(func(x []float64, _ []int) error {
		res, err := EvalReleaseAt(ctx, v, x)
		if err != nil {
			return err
		}
		if opts.Clamp {
			sum.Clamped += res.Clamp(v.File.Output.Range[0], v.File.Output.Range[1])
		}
		return ew.write(res)
	})
	if err != nil {
		return EvalPointsSummary{}, err
	}
	if done.Hash != checked.Hash || done.Rows != checked.Rows {
		return EvalPointsSummary{}, fmt.Errorf("%s changed while it was read: the results are incomplete; evaluate again", name)
	}
	if err := ew.flush(); err != nil {
		return EvalPointsSummary{}, err
	}
	sum.Rows = done.Rows
	return sum, bw.Flush()
}

// spoolStdin copies r to a new temporary file (mode 0600) and returns its
// path; the caller removes it. ctx cancels between reads.
func spoolStdin(ctx context.Context, r io.Reader) (string, error) {
	f, err := os.CreateTemp("", "bernstein-points-*.csv")
	if err != nil {
		return "", fmt.Errorf("%s: cannot make a temporary copy: %w", StdinName, err)
	}
	_, err = io.Copy(f, ctxReader{ctx, r})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%s: read: %w", StdinName, err)
	}
	return f.Name(), nil
}

// ctxReader is r, failing with ctx.Err() once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
