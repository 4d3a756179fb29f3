package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

const (
	// ImportPreviewBytes is the most PreviewImport reads of a file: the
	// time and memory of a preview do not depend on the file's size.
	ImportPreviewBytes = 1 << 20
	// ImportPreviewRows is the most data rows a preview parses.
	ImportPreviewRows = 50
	// importPreviewLines is how many raw lines a preview shows, each cut
	// to importLineRunes runes, and maxPreviewProblems how many problems
	// it lists.
	importPreviewLines = 50
	importLineRunes    = 200
	maxPreviewProblems = 20
)

// ImportPreview is the start of a CSV file parsed with some ImportOptions,
// for the curator's import step: the raw first lines (to see where the
// header is), the header and the first data rows as they would be read,
// and the problems found in them. Like a Table, it holds private data for
// the curator's screen only; nothing in it is published.
type ImportPreview struct {
	Options ImportOptions // as given
	// Delimiter is the one used: Options.Delimiter, or the one detected
	// from the header line (0 if the header could not be found).
	Delimiter rune
	// Lines are the file's first lines as text (Lines[i] is line i+1),
	// without line ends, each cut to 200 characters (then ending in "…"),
	// invalid UTF-8 replaced.
	Lines []string
	// Err is why no header could be read with Options (a *CSVError: header
	// row past the first 1 MiB, empty or duplicate names, …); the other
	// fields but Lines are then empty.
	Err error
	// HeaderLine is the line of the header; Header its names (trimmed).
	HeaderLine int
	Header     []string
	// Rows are the first data rows (at most ImportPreviewRows), as read,
	// RowLines the line where each starts.
	Rows     [][]string
	RowLines []int
	// Numeric tells, per header column, whether its previewed values are
	// numbers in the options' syntax (at least one, and every non-empty
	// value of a row with the right number of fields).
	Numeric []bool
	// Problems lists the first problems (at most 20): rows with the wrong
	// number of fields or invalid UTF-8, the first value that is not a
	// number in a column that also holds numbers, a CSV syntax error (the
	// preview stops there).
	Problems []*CSVError
	// Partial is set when the preview did not reach the end of the file.
	Partial bool
}

// PreviewImportFile previews the CSV file at path (PreviewImport), opened
// as ReadCSV opens it (fileio.OpenRegular: no FIFO, device or folder).
func PreviewImportFile(path string, opts ImportOptions) (*ImportPreview, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, notRegularCSV(path, err)
	}
	defer f.Close()
	return PreviewImport(f, path, opts)
}

// PreviewImport parses the start of a CSV file with opts, under ParseCSV's
// rules: it reads at most ImportPreviewBytes bytes of r and parses at most
// ImportPreviewRows data rows, so a preview of a 1 GB file costs what one
// of a 1 MiB file does (BenchmarkImportPreview). Errors are invalid opts
// (a *CSVError naming name) and I/O errors of r; everything about the
// file's content is in the preview (Err, Problems).
func PreviewImport(r io.Reader, name string, opts ImportOptions) (*ImportPreview, error) {
	if err := opts.Validate(); err != nil {
		return nil, &CSVError{File: name, Rule: err.Error()}
	}
	buf := make([]byte, ImportPreviewBytes)
	n, err := io.ReadFull(r, buf)
	cut := err == nil // there may be more
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, (&csvParser{name: name}).readErr(err, 1)
	}
	buf = buf[:n]
	if cut {
		// Keep whole lines only: a record cut in two is no problem.
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			buf = buf[:i+1]
		}
	}
	pv := &ImportPreview{Options: opts, Lines: previewLines(buf), Partial: cut}
	p := &csvParser{name: name, opts: CSVOptions{Import: opts}, cut: cut}
	p.lim = &recordLimiter{r: bytes.NewReader(buf), limit: MaxRecordBytes + readAhead}
	delim, err := p.open(bufio.NewReaderSize(p.lim, readAhead))
	if err != nil {
		pv.Err = err
		return pv, nil
	}
	pv.Delimiter, pv.HeaderLine, pv.Header = delim, p.headerLine, slices.Clone(p.header)
	pv.readRows(p)
	pv.checkNumbers(p)
	return pv, nil
}

// readRows reads the first data rows, noting their problems.
func (pv *ImportPreview) readRows(p *csvParser) {
	prevEnd := p.dataStart()
	for {
		rec, err := p.next(prevEnd)
		if err == io.EOF {
			return
		}
		if err != nil {
			var ce *CSVError
			if errors.As(err, &ce) {
				pv.problem(ce)
			}
			pv.Partial = true // the rest is not previewed
			return
		}
		if len(pv.Rows) == ImportPreviewRows {
			pv.Partial = true
			return
		}
		line := p.line(0)
		prevEnd = p.recordEnd(rec)
		if e := p.checkRow(rec, line, len(pv.Rows) == 0); e != nil {
			pv.problem(e)
		}
		pv.Rows = append(pv.Rows, slices.Clone(rec))
		pv.RowLines = append(pv.RowLines, line)
	}
}

// checkNumbers sets Numeric and notes, in a column that holds numbers,
// the first value that is not one (a decimal comma or point the options
// do not expect, a stray unit, …): such a column would be read as text.
func (pv *ImportPreview) checkNumbers(p *csvParser) {
	pv.Numeric = make([]bool, len(pv.Header))
	for j := range pv.Header {
		nums, others := 0, 0
		var first *CSVError
		for i, row := range pv.Rows {
			if len(row) != len(pv.Header) || strings.TrimSpace(row[j]) == "" {
				continue
			}
			if _, rule := p.number(row[j]); rule == "" {
				nums++
			} else {
				others++
				if first == nil {
					first = &CSVError{File: p.name, Line: pv.RowLines[i], Column: j + 1, ColumnName: pv.Header[j], Rule: rule}
				}
			}
		}
		pv.Numeric[j] = nums > 0 && others == 0
		if first != nil && nums > 0 {
			pv.problem(first)
		}
	}
}

func (pv *ImportPreview) problem(e *CSVError) {
	if len(pv.Problems) < maxPreviewProblems {
		pv.Problems = append(pv.Problems, e)
	}
}

// previewLines splits the start of a file into at most importPreviewLines
// lines for display.
func previewLines(buf []byte) []string {
	buf = bytes.TrimPrefix(buf, UTF8BOM)
	var lines []string
	for len(buf) > 0 && len(lines) < importPreviewLines {
		line, rest, _ := bytes.Cut(buf, []byte{'\n'})
		buf = rest
		s := strings.ToValidUTF8(string(bytes.TrimSuffix(line, []byte{'\r'})), "\uFFFD")
		if utf8.RuneCountInString(s) > importLineRunes {
			s = string([]rune(s)[:importLineRunes]) + "…"
		}
		lines = append(lines, s)
	}
	return lines
}
