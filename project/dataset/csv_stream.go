package dataset

import "fmt"

// csvStream hands the required numeric columns of a CSV file to a function
// in chunks of rows, so that a file of any length is read in bounded
// memory (scanCSV). It is set through CSVOptions.stream; the parser calls
// rowAdded after each kept row and flush at the end of a file without
// errors. A nil *csvStream does nothing.
type csvStream struct {
	chunk int
	fn    func(cols [][]float64) error
	cols  [][]float64
}

// scanCSV reads the CSV file at path as ReadCSV does (same rules, same
// errors) but passes the values of opts.Columns, in that order, to fn in
// chunks of at most chunk rows (cols[j][i]: column j, row i of the chunk;
// valid only during the call) instead of keeping them: the returned
// Table has Rows, Hash, Preview and so on, but empty columns. A row
// reaches fn only before the first bad row (a file with bad rows still
// fails after it was read to the end), so a caller that must not act on a
// file with errors reads it twice: once to check, once to act.
func ScanCSV(path string, opts CSVOptions, chunk int, fn func(cols [][]float64) error) (*Table, error) {
	if opts.Columns == nil || chunk < 1 {
		return nil, fmt.Errorf("%s: scanning a CSV file needs the columns and a chunk size ≥ 1 (got %d)", path, chunk)
	}
	opts.stream = &csvStream{chunk: chunk, fn: fn, cols: make([][]float64, len(opts.Columns))}
	return ReadCSV(path, opts)
}

func (s *csvStream) rowAdded(p *csvParser, rows int) error {
	if s == nil || rows%s.chunk != 0 {
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
	err := s.fn(s.cols)
	for _, i := range p.used {
		p.cols[i].vals = p.cols[i].vals[:0]
	}
	return err
}
