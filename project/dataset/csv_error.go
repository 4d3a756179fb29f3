package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// CSVError reports why a CSV file was rejected. Every error returned by
// ReadCSV and ParseCSV for a problem in the data (as opposed to an I/O error
// opening the file) is a *CSVError; use errors.As to inspect it.
//
// Its message has the form
//
//	data.csv:12:3 (column "age"): "abc" is not a number
//
// with the line and column left out where they do not apply. It quotes at
// most maxQuotedRunes characters of the file in all (the column name and a
// value, each shortened by quoteShort), however long a field is.
type CSVError struct {
	File       string // file name as given to ReadCSV / ParseCSV
	Line       int    // 1-based physical line in the file (the header is line 1); 0 if not tied to a line
	Column     int    // 1-based field number in the record; 0 if not tied to a field
	ColumnName string // header name of that field, if known
	Rule       string // the rule broken, in words, e.g. `"abc" is not a number`
	// Lines lists the first few lines (at most maxReportedLines) that broke
	// the same rule, when the error summarises many rows (missing or
	// non-numeric values in a used column).
	Lines []int
	// Err is the cause where one applies (ErrNotRegular for a path that is
	// a directory, FIFO or device); nil for problems in the data.
	Err error
}

// Unwrap returns Err, so that errors.Is(err, ErrNotRegular) works.
func (e *CSVError) Unwrap() error { return e.Err }

func (e *CSVError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
		if e.Column > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Column))
		}
	}
	if e.ColumnName != "" {
		fmt.Fprintf(&b, " (column %s)", QuoteShort(e.ColumnName))
	}
	b.WriteString(": ")
	b.WriteString(e.Rule)
	return b.String()
}

// maxQuotedRunes bounds what one quotation in an error message copies from
// the file (quoteShort); a CSVError holds at most two (column name and
// value), so it quotes at most 80 characters of the file.
const maxQuotedRunes = 40

// maxReportedLines is how many offending lines a summarising CSVError lists.
const maxReportedLines = 5

// joinLines formats line numbers as "12, 15, 20".
func joinLines(lines []int) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ", ")
}

// headerLineBreakRule explains a header name with a line break in it. A
// carriage return not followed by a newline almost always means a file
// with CR-only line ends (classic Mac OS), which encoding/csv reads as one
// long line: say so instead of a puzzling message.
func headerLineBreakRule(name string) string {
	if strings.Contains(strings.ReplaceAll(name, "\r\n", ""), "\r") {
		return "header name contains a carriage return: the file seems to use CR-only line ends (classic Mac OS); save it with LF or CRLF line ends"
	}
	return "header name contains a line break"
}
