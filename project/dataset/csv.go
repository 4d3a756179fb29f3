package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

const (
	// MaxRecordBytes caps one CSV record (one line, or several when a quoted
	// field spans lines). A longer record is an error, so a malformed or
	// hostile file cannot make the reader allocate without bound.
	MaxRecordBytes = 1 << 20
	// PreviewRows is how many data rows a Table keeps as raw strings for
	// the curator's preview.
	PreviewRows = 100
	// readAhead is the buffer between the file and encoding/csv; it is also
	// how far the delimiter detection looks for the end of the header line.
	readAhead = 64 << 10
)

var UTF8BOM = []byte{0xEF, 0xBB, 0xBF}

// errRecordTooLong is returned by recordLimiter when a record outgrows
// MaxRecordBytes; ParseCSV turns it into a *CSVError.
var errRecordTooLong = errors.New("record too long")

// CSVOptions controls how a CSV file is read.
type CSVOptions struct {
	// Columns lists the columns that must be numeric: a missing or
	// non-numeric value in one of them is an error (or a missing value,
	// see KeepInvalid); other columns may hold text and are kept only in
	// the preview. If nil, every column is parsed as numeric where
	// possible: a column with any value that is not a finite number is
	// silently kept as text (asking for it later, e.g. in MapToUnit,
	// reports the first bad value), unless KeepInvalid.
	Columns []string
	// KeepInvalid keeps every data row: a missing or non-numeric value in
	// a numeric column is stored as NaN (a missing value, which a release
	// replaces by the column's public fill value, see FillRule) and
	// counted in Table.Invalid. Rows is then always the number of data
	// rows in the file, whatever their values (n is public). The counts
	// depend on the private data and are for the curator's eyes only.
	KeepInvalid bool
	// Classes declares, per label column, the two class values; such a
	// column is read as learner labels −1 (Negative), +1 (Positive) or
	// NaN (any other value: invalid, counted in Table.Invalid), by
	// (Classes).Code. Text labels ("no", "yes") are read this way. Each
	// column must be in Columns when Columns is set; needs KeepInvalid.
	Classes map[string]Classes
	// Import is the file's layout: header row, delimiter (0 detects it
	// from the header line), decimal comma, comment character.
	Import ImportOptions

	// stream, if set, receives the numeric columns in chunks instead of
	// the Table keeping them (scanCSVFrom); requires Columns.
	stream *csvStream
	// shape, if set, is the file's shape from a first pass (ReadCSV,
	// csv_fast.go): columns are allocated at their final size and a
	// quote-free file is read by fastRows.
	shape *csvShape
}

// Table is a CSV file read into memory: numeric columns as float64
// slices, plus the first rows as raw strings for the preview.
//
// Everything in a Table is private data. In particular Invalid and the
// values are for the curator only and must never be written to a released
// file (the ledger and the synopsis record Hash and n, the number of data
// rows in the file, which the mechanism treats as public).
type Table struct {
	Path      string   // file name as given to ReadCSV / ParseCSV
	Columns   []string // header names in file order (trimmed, unique, non-empty)
	Delimiter rune     // field separator used (Import.Delimiter, or the one detected)
	// Import are the options the file was read with (Delimiter 0 if it
	// was detected); WithClasses reads the file again with them.
	Import ImportOptions
	// Data holds, for every numeric column, its Rows values in file order.
	// With CSVOptions.Columns set, exactly those columns are present.
	Data    map[string][]float64
	Preview [][]string // the first min(PreviewRows, data rows) rows as read
	Rows    int        // data rows (all of them: no row is ever dropped)
	// Invalid counts, per column, the values stored as missing (NaN) by
	// CSVOptions.KeepInvalid (curator only: private).
	Invalid map[string]int
	// classes are CSVOptions.Classes: the columns read as class labels.
	classes map[string]Classes
	// Hash is the hex SHA-256 of the file's bytes (including any BOM); it
	// identifies the dataset in the privacy-budget ledger.
	Hash string

	// notNumeric records, for columns kept as text when CSVOptions.Columns
	// was nil, the first value that was not a finite number.
	notNumeric map[string]*CSVError
}

// ReadCSV reads the CSV file at path; see ParseCSV for the format rules.
// The whole file is streamed once: memory is bounded by the numeric columns
// kept (8 bytes per value) plus MaxRecordBytes, whatever the file size.
// A path that is not a regular file (directory, FIFO, device) is refused
// without blocking: a *CSVError matching fileio.ErrNotRegular (OpenRegular).
func ReadCSV(path string, opts CSVOptions) (*Table, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, notRegularCSV(path, err)
	}
	defer f.Close()
	if opts.stream == nil {
		if opts.shape, err = csvShapeOf(path); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return ParseCSV(f, path, opts)
}

// notRegularCSV turns OpenRegular's refusal of a directory, FIFO or device
// into a *CSVError matching fileio.ErrNotRegular; other errors (*fs.PathError,
// naming the path) pass unchanged.
func notRegularCSV(path string, err error) error {
	if errors.Is(err, fileio.ErrNotRegular) {
		return &CSVError{File: path, Rule: strings.TrimPrefix(err.Error(), path+": "), Err: fileio.ErrNotRegular}
	}
	return err
}

// ParseCSV reads a CSV dataset from r; name is used in errors and as
// Table.Path. Rules (each violation is a *CSVError naming file, line,
// column and the rule):
//
//   - UTF-8 text, optionally starting with a byte-order mark (stripped, but
//     included in Hash); fields quoted as in RFC 4180 (strict: a bare quote
//     in an unquoted field is an error); empty lines are skipped; CRLF and LF
//     line ends are accepted.
//   - The layout is opts.Import's (ImportOptions): the lines before its
//     header row are skipped as text; lines starting with its comment
//     character are skipped; its delimiter, or the one detected from the
//     header line; numbers with a decimal point, or its decimal comma.
//   - The first record (at or after the header row) is the header: names
//     are trimmed and must be non-empty and unique. At least one data row
//     must follow.
//   - Every data row has exactly as many fields as the header.
//   - No record may exceed MaxRecordBytes.
//   - A value in a numeric column is a finite number in plain decimal
//     notation, after trimming spaces ("1.5", "-2e3"; ParseNumber): empty
//     values, text, NaN, ±Inf, hexadecimal, digit separators ("1_0"),
//     out-of-range numbers and quoted values containing a line break
//     ("0.5\n") are errors. All offending rows are counted and the
//     first few lines listed, unless opts.KeepInvalid keeps them as
//     missing values (NaN, see fill.go).
//
// I/O errors from r are returned wrapped, naming the file.
func ParseCSV(r io.Reader, name string, opts CSVOptions) (*Table, error) {
	if err := opts.validate(name); err != nil {
		return nil, err
	}
	p := &csvParser{name: name, opts: opts}
	return p.parse(r)
}

func (o CSVOptions) validate(name string) error {
	if err := o.validateClasses(name); err != nil {
		return err
	}
	if err := o.Import.Validate(); err != nil {
		return &CSVError{File: name, Rule: err.Error()}
	}
	seen := make(map[string]bool, len(o.Columns))
	for _, c := range o.Columns {
		if seen[c] {
			return &CSVError{File: name, ColumnName: c, Rule: "column requested twice"}
		}
		seen[c] = true
	}
	return nil
}

// csvColumn is the parse state of one column.
type csvColumn struct {
	name     string
	required bool // listed in CSVOptions.Columns: bad values are row errors
	numeric  bool // still parsed as numbers
	vals     []float64
}

type csvParser struct {
	name string
	opts CSVOptions
	cr   *csv.Reader
	lim  *recordLimiter
	// base is the bytes before the csv.Reader's input (BOM and preamble);
	// lineBase the lines of the preamble, added to encoding/csv's line
	// numbers so that errors name the file's own lines.
	base     int64
	lineBase int
	// cut is set by the preview when it read only the start of the file.
	cut bool

	header     []string
	headerLine int
	cols       []*csvColumn // one per header field
	used       []int        // indexes of columns parsed as numbers (required first)
	// pending is the first data record of a file without a header
	// (ImportOptions.NoHeader), read by readHeader to count the columns
	// and returned first by next.
	pending []string
	fast    *fastRows // data rows of a quote-free file (csv_fast.go), or nil

	// bad rows in required columns
	firstBad *CSVError
	badRows  int
	badLines []int
}

func (p *csvParser) errAt(line, field int, rule string) *CSVError {
	e := &CSVError{File: p.name, Line: line, Rule: rule}
	if field >= 0 {
		e.Column = field + 1
		if field < len(p.header) {
			e.ColumnName = p.header[field]
		}
	}
	return e
}

func (p *csvParser) parse(r io.Reader) (*Table, error) {
	h := sha256.New()
	p.lim = &recordLimiter{r: io.TeeReader(r, h), limit: MaxRecordBytes + readAhead}
	br := bufio.NewReaderSize(p.lim, readAhead)
	delim, err := p.open(br)
	if err != nil {
		return nil, err
	}
	if s := p.opts.shape; s != nil && s.quoteFree && p.opts.stream == nil {
		// csv.NewReader(br) reads through br itself (bufio.NewReader returns
		// a large enough *bufio.Reader as is): br is at the first data line.
		last := p.header // the last record encoding/csv read: the header, or the pending first row (NoHeader)
		if p.pending != nil {
			last = p.pending
		}
		p.fast = &fastRows{br: br, comma: []byte(string(delim)), comment: p.cr.Comment, offset: p.cr.InputOffset(), line: p.recordEnd(last)}
	}
	d := &Table{Path: p.name, Columns: slices.Clone(p.header), Delimiter: delim, Import: p.opts.Import, classes: p.opts.Classes}
	if err := p.readRows(d); err != nil {
		return nil, err
	}
	d.Hash = hex.EncodeToString(h.Sum(nil))
	return d, nil
}

// open starts reading: it strips a byte-order mark, skips the preamble
// (the lines before Import.HeaderRow), detects the delimiter if none is
// given, and reads the header. It returns the delimiter used.
func (p *csvParser) open(br *bufio.Reader) (rune, error) {
	if b, err := br.Peek(len(UTF8BOM)); bytes.Equal(b, UTF8BOM) {
		_, _ = br.Discard(len(UTF8BOM))
		p.base = int64(len(UTF8BOM))
	} else if err != nil && err != io.EOF {
		return 0, p.readErr(err, 1)
	}
	if err := p.skipPreamble(br); err != nil {
		return 0, err
	}
	delim := p.opts.Import.Delimiter
	if delim == 0 {
		head, err := br.Peek(readAhead)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return 0, p.readErr(err, p.lineBase+1)
		}
		var rule string
		if delim, rule = detectDelimiter(head, p.opts.Import); rule != "" {
			return 0, &CSVError{File: p.name, Line: p.lineBase + 1, Rule: rule}
		}
	}
	p.cr = csv.NewReader(br)
	p.cr.Comma = delim
	if c := p.opts.Import.Comment; c != "" {
		p.cr.Comment, _ = utf8.DecodeRuneInString(c)
	}
	p.cr.FieldsPerRecord = -1 // checked here, with a better message
	p.cr.ReuseRecord = true
	return delim, p.readHeader()
}

// skipPreamble reads the lines before Import.HeaderRow as text: each at
// most MaxRecordBytes long, none parsed as CSV.
func (p *csvParser) skipPreamble(br *bufio.Reader) error {
	for p.lineBase < p.opts.Import.HeaderRow-1 {
		var n int64
		for {
			b, err := br.ReadSlice('\n')
			n += int64(len(b))
			if n > MaxRecordBytes || errors.Is(err, errRecordTooLong) {
				return p.errAt(p.lineBase+1, -1, fmt.Sprintf("line before the header row is longer than %d bytes (is the header row right?)", MaxRecordBytes))
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				lines := p.lineBase
				if n > 0 {
					lines++
				}
				if p.cut {
					return &CSVError{File: p.name, Line: lines, Rule: fmt.Sprintf("header row %d is not within the first %d bytes the preview reads", p.opts.Import.HeaderRow, ImportPreviewBytes)}
				}
				return &CSVError{File: p.name, Line: lines, Rule: fmt.Sprintf("header row %d is past the end of the file (%s)", p.opts.Import.HeaderRow, plural(lines, "line"))}
			}
			if err != nil {
				return p.readErr(err, p.lineBase+1)
			}
			break
		}
		p.lineBase++
		p.base += n
		p.lim.limit = p.base + MaxRecordBytes + readAhead
	}
	return nil
}

// nextRecord reads one record and enforces MaxRecordBytes. prevEnd is the
// last line of the previous record (0 before the header).
func (p *csvParser) nextRecord(prevEnd int) ([]string, error) {
	if p.fast != nil {
		return p.fast.next(p, prevEnd)
	}
	start := p.cr.InputOffset()
	rec, err := p.cr.Read()
	if err == nil && p.cr.InputOffset()-start > MaxRecordBytes {
		err = errRecordTooLong
	}
	if err == nil || err == io.EOF {
		// Allow the next record MaxRecordBytes beyond what csv consumed,
		// plus what the bufio layer may have read ahead.
		p.lim.limit = p.base + p.cr.InputOffset() + MaxRecordBytes + readAhead
		return rec, err
	}
	var pe *csv.ParseError
	switch {
	case errors.Is(err, errRecordTooLong):
		return nil, p.errAt(prevEnd+1, -1, fmt.Sprintf("record starting here is longer than %d bytes (is this really a CSV file, or a quote left open?)", MaxRecordBytes))
	case errors.As(err, &pe):
		rule := fmt.Sprintf("%v (character %d)", pe.Err, pe.Column)
		if pe.StartLine != pe.Line {
			rule = fmt.Sprintf("in the quoted field of the record starting at line %d: %s", pe.StartLine+p.lineBase, rule)
		}
		return nil, p.errAt(pe.Line+p.lineBase, -1, rule)
	}
	return nil, p.readErr(err, prevEnd+1)
}

func (p *csvParser) readErr(err error, line int) error {
	return fmt.Errorf("%s: read error near line %d: %w", p.name, line, err)
}

// recordEnd returns the last physical line of the record just read.
func (p *csvParser) recordEnd(rec []string) int {
	last := len(rec) - 1
	return p.line(last) + strings.Count(rec[last], "\n")
}

// line returns the file's line where field i of the record just read
// starts (encoding/csv's line plus the preamble).
func (p *csvParser) line(i int) int {
	if p.fast != nil {
		return p.fast.line // a quote-free record is one line
	}
	l, _ := p.cr.FieldPos(i)
	return l + p.lineBase
}

// next returns the next data record: the pending first record of a file
// without a header, then what nextRecord reads.
func (p *csvParser) next(prevEnd int) ([]string, error) {
	if rec := p.pending; rec != nil {
		p.pending = nil
		return rec, nil
	}
	return p.nextRecord(prevEnd)
}

// dataStart is the last line before the first data record: the header's
// last line, or the preamble's for a file without a header.
func (p *csvParser) dataStart() int {
	if p.opts.Import.NoHeader {
		return p.lineBase
	}
	return p.recordEnd(p.header)
}

// noHeader names the columns of a file without a header after its first
// record, which it keeps as the first data record (pending).
func (p *csvParser) noHeader() error {
	rec, err := p.nextRecord(p.lineBase)
	if err == io.EOF {
		return &CSVError{File: p.name, Line: p.lineBase + 1, Rule: "no data rows: the file is empty at or after the first data row"}
	}
	if err != nil {
		return err
	}
	p.headerLine = p.line(0)
	p.pending = slices.Clone(rec)
	p.header = make([]string, len(rec))
	for i := range rec {
		p.header[i] = NoHeaderName(i)
	}
	return nil
}

func (p *csvParser) readHeader() error {
	if p.opts.Import.NoHeader {
		if err := p.noHeader(); err != nil {
			return err
		}
		return p.useColumns(p.headerLine)
	}
	rec, err := p.nextRecord(p.lineBase)
	if err == io.EOF && p.lineBase > 0 {
		return &CSVError{File: p.name, Line: p.lineBase + 1, Rule: fmt.Sprintf("no header at or after header row %d: the rest of the file is empty", p.opts.Import.HeaderRow)}
	}
	if err == io.EOF {
		return &CSVError{File: p.name, Rule: "empty file: expected a header line naming the columns"}
	}
	if err != nil {
		return err
	}
	line := p.line(0)
	p.headerLine = line
	index := make(map[string]int, len(rec))
	p.header = make([]string, len(rec))
	for i, raw := range rec {
		if !utf8.ValidString(raw) {
			return p.errAt(line, i, "header is not valid UTF-8 text (save the file as UTF-8)")
		}
		name := strings.TrimSpace(raw)
		p.header[i] = name
		if name == "" {
			return p.errAt(line, i, "header name is empty; every column needs a unique name")
		}
		if strings.ContainsAny(name, "\r\n") {
			return p.errAt(line, i, headerLineBreakRule(name))
		}
		if j, dup := index[name]; dup {
			return p.errAt(line, i, fmt.Sprintf("duplicate column name (also column %d); every column needs a unique name", j+1))
		}
		index[name] = i
	}
	return p.useColumns(line)
}

// useColumns sets up the columns named by the header and checks that
// CSVOptions.Columns are among them; line is the header's.
func (p *csvParser) useColumns(line int) error {
	index := make(map[string]int, len(p.header))
	for i, name := range p.header {
		index[name] = i
	}
	p.cols = make([]*csvColumn, len(p.header))
	for i, name := range p.header {
		p.cols[i] = &csvColumn{name: name, numeric: p.opts.Columns == nil}
	}
	for _, want := range p.opts.Columns {
		i, ok := index[want]
		if !ok {
			rule := fmt.Sprintf("no such column in the header (columns: %s)%s", quoteList(p.header, 10), closestName(want, p.header))
			if !slices.ContainsFunc(p.opts.Columns, func(c string) bool { _, ok := index[c]; return ok }) {
				rule += p.headerHint() // none of them: the wrong line?
			}
			return &CSVError{File: p.name, Line: line, ColumnName: want, Rule: rule}
		}
		p.cols[i].required = true
		p.cols[i].numeric = true
		if s := p.opts.shape; s != nil {
			p.cols[i].vals = make([]float64, 0, s.lines+1) // rows ≤ line breaks + 1
		}
		p.used = append(p.used, i)
	}
	if p.opts.Columns == nil {
		for i := range p.cols {
			p.used = append(p.used, i)
		}
	}
	return nil
}

func (p *csvParser) readRows(d *Table) error {
	prevEnd := p.dataStart()
	vals := make([]float64, len(p.cols))
	var notNumeric map[string]*CSVError
	first := true
	for {
		rec, err := p.next(prevEnd)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		line := p.line(0)
		prevEnd = p.recordEnd(rec)
		if e := p.checkRow(rec, line, first); e != nil {
			return e
		}
		first = false
		if len(d.Preview) < PreviewRows {
			d.Preview = append(d.Preview, cloneRecord(rec))
		}

		ok := true
		for _, i := range p.used {
			c := p.cols[i]
			if !c.numeric {
				continue
			}
			if cl, ok := p.opts.Classes[c.name]; ok {
				vals[i] = d.classValue(c.name, cl, rec[i])
				continue
			}
			v, rule := p.number(rec[i])
			if rule == "" {
				vals[i] = v
				continue
			}
			if p.opts.KeepInvalid {
				vals[i] = d.missing(c.name)
				continue
			}
			l := p.line(i)
			if !c.required { // Columns == nil: the column is text after all
				c.numeric, c.vals = false, nil
				if notNumeric == nil {
					notNumeric = make(map[string]*CSVError)
				}
				notNumeric[c.name] = p.errAt(l, i, rule)
				continue
			}
			ok = false
			if p.opts.stream.skipInvalid(p.errAt(l, i, rule)) {
				break // left out, reported to the stream
			}
			if p.firstBad == nil {
				p.firstBad = p.errAt(l, i, rule)
			}
			p.badRows++
			if len(p.badLines) < maxReportedLines {
				p.badLines = append(p.badLines, l)
			}
			break // one report per row
		}
		if !ok || p.firstBad != nil {
			continue // the read fails anyway: keep counting only
		}
		for _, i := range p.used {
			if c := p.cols[i]; c.numeric {
				c.vals = append(c.vals, vals[i])
			}
		}
		d.Rows++
		if err := p.opts.stream.rowAdded(p, d.Rows, line); err != nil {
			return err
		}
	}

	if p.firstBad != nil {
		e := p.firstBad
		e.Lines = p.badLines
		if p.badRows > 1 {
			e.Rule += fmt.Sprintf("; %d rows have missing or non-numeric values in numeric columns (first at lines %s)", p.badRows, joinLines(p.badLines))
		}
		e.Rule += "; fix the file, or keep the rows and declare public fill values for such values"
		return e
	}
	if d.Rows == 0 && !p.opts.stream.skips() {
		return &CSVError{File: p.name, Line: p.headerLine, Rule: "no data rows after the header"}
	}
	if err := p.opts.stream.flush(p); err != nil {
		return err
	}
	d.Data = make(map[string][]float64, len(p.used))
	for _, i := range p.used {
		if c := p.cols[i]; c.numeric {
			d.Data[c.name] = c.vals
		}
	}
	d.notNumeric = notNumeric
	return nil
}

// checkRow checks a data row's shape (as many fields as the header) and
// text (UTF-8); line is where it starts, first whether it is the first
// data row (if it does not fit, the header may be a preamble's line).
func (p *csvParser) checkRow(rec []string, line int, first bool) *CSVError {
	if len(rec) != len(p.header) {
		rule := fmt.Sprintf("row has %s, the header has %d (delimiter %s)", plural(len(rec), "field"), len(p.header), DelimiterName(p.cr.Comma))
		if first {
			rule += p.headerHint()
		}
		return p.errAt(line, -1, rule)
	}
	for i, f := range rec {
		if !utf8.ValidString(f) {
			return p.errAt(p.line(i), i, "value is not valid UTF-8 text (save the file as UTF-8)")
		}
	}
	return nil
}

// HeaderRowHint ends the rule of a *CSVError that suggests a preamble
// read as the header (a command adds how to set the header row).
const HeaderRowHint = "if the file starts with a preamble, set the header row"

// headerHint is added to an error that suggests a preamble read as the
// header: "" when a header row was set.
func (p *csvParser) headerHint() string {
	if p.opts.Import.HeaderRow > 1 || p.opts.Import.NoHeader {
		return ""
	}
	return fmt.Sprintf("; is line %d really the header? %s", p.headerLine, HeaderRowHint)
}

// number parses one numeric field with the file's decimal separator.
func (p *csvParser) number(s string) (float64, string) {
	v, rule := parseNumberIn(s, p.opts.Import.DecimalComma)
	if r, ok := strings.CutSuffix(rule, decimalCommaHint); ok {
		rule = r + " (decimal comma? read the file with a decimal comma, or use a point)"
	}
	return v, rule
}

// parseNumber parses one numeric field (ParseNumber). It returns a
// non-empty rule if the field is not a finite number; a quoted value
// containing a line break is never a number, even if it is one after
// trimming ("0.5\n").
func parseNumber(s string) (float64, string) { return parseNumberIn(s, false) }

// parseNumberIn is parseNumber, or with decimalComma ParseDecimalComma.
func parseNumberIn(s string, decimalComma bool) (float64, string) {
	if strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0 { // ContainsAny, without its per-rune loop
		return 0, fmt.Sprintf("%s is a quoted value spanning lines, not a number", QuoteShort(s))
	}
	parse := ParseNumber
	if decimalComma {
		parse = ParseDecimalComma
	}
	v, err := parse(s)
	if err != nil {
		return 0, err.Error()
	}
	return v, ""
}

// quoteShort quotes s for an error message, shortened to maxQuotedRunes
// runes (then ending in "…").
func QuoteShort(s string) string {
	if utf8.RuneCountInString(s) > maxQuotedRunes {
		r := []rune(s)
		return strconv.Quote(string(r[:maxQuotedRunes])) + "…"
	}
	return strconv.Quote(s)
}

// plural formats "1 field", "3 fields".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// quoteList quotes up to max names, comma-separated, each shortened by
// quoteShort, and stops before the names quoted would exceed
// 2·maxQuotedRunes runes, so that a hostile header cannot fill the message.
func quoteList(names []string, max int) string {
	var b strings.Builder
	quoted := 0
	for i, n := range names {
		runes := min(utf8.RuneCountInString(n), maxQuotedRunes)
		if i == max || i > 0 && quoted+runes > 2*maxQuotedRunes {
			fmt.Fprintf(&b, ", … (%d more)", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteShort(n))
		quoted += runes
	}
	return b.String()
}

// recordLimiter stops delivering bytes beyond limit, which the parser moves
// forward after every record; so no single record can make encoding/csv
// buffer more than about MaxRecordBytes + readAhead bytes.
type recordLimiter struct {
	r     io.Reader
	n     int64 // bytes delivered
	limit int64 // bytes that may be delivered in total
}

func (l *recordLimiter) Read(b []byte) (int, error) {
	if l.n >= l.limit {
		return 0, errRecordTooLong
	}
	if rest := l.limit - l.n; int64(len(b)) > rest {
		b = b[:rest]
	}
	n, err := l.r.Read(b)
	l.n += int64(n)
	return n, err
}

// HashFile returns the hex SHA-256 of the file at path, the identity of a
// dataset in the ledger (equal to Table.Hash of the same bytes).
func HashFile(path string) (string, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: read: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Column returns the values of a numeric column. It fails if the column
// does not exist or is not numeric (naming the first offending value).
func (d *Table) Column(name string) ([]float64, error) {
	if v, ok := d.Data[name]; ok {
		return v, nil
	}
	if e, ok := d.notNumeric[name]; ok {
		c := *e
		c.Rule = "column is not numeric: " + e.Rule
		return nil, &c
	}
	if slices.Contains(d.Columns, name) {
		return nil, &CSVError{File: d.Path, ColumnName: name, Rule: "column was read as text (not listed as numeric when the file was read)"}
	}
	return nil, &CSVError{File: d.Path, ColumnName: name, Rule: fmt.Sprintf("no such column (columns: %s)", quoteList(d.Columns, 10))}
}

// NumericColumns returns the names of the numeric columns in file order
// (with CSVOptions.KeepInvalid: those with at least one number).
func (d *Table) NumericColumns() []string {
	var out []string
	for _, c := range d.Columns {
		if _, ok := d.Data[c]; ok && d.Invalid[c] < d.Rows {
			out = append(out, c)
		}
	}
	return out
}

// closestName says which header name begins like want for the longest
// stretch (at least 8 characters) and where the two part, quoting a short
// window around that place from each, so that two long names shortened
// alike in the message can be told apart; "" when no name is that close.
func closestName(want string, header []string) string {
	w := []rune(want)
	var best []rune
	common := 0
	for _, name := range header {
		h := []rune(name)
		n := 0
		for n < len(w) && n < len(h) && w[n] == h[n] {
			n++
		}
		if n > common {
			best, common = h, n
		}
	}
	if common < 8 {
		return ""
	}
	from := max(common-8, 0)
	window := func(r []rune) string {
		s := strconv.Quote(string(r[from:min(len(r), from+24)]))
		if from > 0 {
			s = "…" + s
		}
		if len(r) > from+24 {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("; the closest is the header's column %d, which differs from character %d on: %s, not %s",
		slices.IndexFunc(header, func(n string) bool { return n == string(best) })+1, common+1, window(best), window(w))
}
