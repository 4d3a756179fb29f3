package dataset

import (
	"fmt"
	"io"
)

// csvStream hands the required numeric columns of a CSV file to a function
// in chunks of rows, so that a file of any length is read in bounded
// memory (scanCSVFrom). It is set through CSVOptions.stream; the parser calls
// rowAdded after each kept row and flush at the end of a file without
// errors. A nil *csvStream does nothing.
type csvStream struct {
	chunk int
	fn    func(c csvChunk) error
	cols  [][]float64
	lines []int // the file's line of each row of the chunk
	// invalid, if not nil, receives every data row that has a missing or
	// non-numeric value in a required column, as the *CSVError of its
	// first such value; the row is left out and reading goes on (instead
	// of the read failing). A file whose rows are all left out is then no
	// error: it simply passes no rows.
	invalid func(*CSVError)
}

// csvChunk is one chunk of rows scanCSVFrom passes on.
type csvChunk struct {
	cols   [][]float64 // cols[j][i]: column j of opts.Columns, row i of the chunk
	lines  []int       // lines[i]: the file's line where row i starts
	fields []int       // fields[j]: the 0-based field of column j in the header
}

// scanCSVFrom reads a CSV file from r as ParseCSV does (same rules, same
// errors; name is used in them) but passes the values of opts.Columns, in
// that order, to fn in chunks of at most chunk rows (csvChunk, valid only
// during the call) instead of keeping them: the returned Table has Rows,
// Hash, Preview and so on, but empty columns. A row reaches fn only before
// the first bad row (a file with bad rows still fails after it was read to
// the end), so a caller that must not act on a file with errors reads it
// twice: once to check, once to act. With invalid set, bad values do not
// fail the read: see csvStream.invalid.
func scanCSVFrom(r io.Reader, name string, opts CSVOptions, chunk int, invalid func(*CSVError), fn func(c csvChunk) error) (*Table, error) {
	if opts.Columns == nil || chunk < 1 {
		return nil, fmt.Errorf("%s: scanning a CSV file needs the columns and a chunk size ≥ 1 (got %d)", name, chunk)
	}
	opts.stream = &csvStream{chunk: chunk, fn: fn, cols: make([][]float64, len(opts.Columns)), invalid: invalid}
	return ParseCSV(r, name, opts)
}

// skipInvalid reports whether a bad row is passed to invalid and left out
// (it then passes e on).
func (s *csvStream) skipInvalid(e *CSVError) bool {
	if s == nil || s.invalid == nil {
		return false
	}
	s.invalid(e)
	return true
}

// skips reports whether bad rows are left out rather than errors.
func (s *csvStream) skips() bool { return s != nil && s.invalid != nil }

func (s *csvStream) rowAdded(p *csvParser, rows, line int) error {
	if s == nil {
		return nil
	}
	s.lines = append(s.lines, line)
	if rows%s.chunk != 0 {
		return nil
	}
	return s.flush(p)
}

// flush passes the rows collected so far, if any, and forgets them.
func (s *csvStream) flush(p *csvParser) error {
	if s == nil {
		return nil
	}
	for j, i := range p.used {
		s.cols[j] = p.cols[i].vals
	}
	if len(s.cols) == 0 || len(s.cols[0]) == 0 {
		return nil
	}
	err := s.fn(csvChunk{cols: s.cols, lines: s.lines, fields: p.used})
	for _, i := range p.used {
		p.cols[i].vals = p.cols[i].vals[:0]
	}
	s.lines = s.lines[:0]
	return err
}
