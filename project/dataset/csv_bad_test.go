package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// badCSV is one malformed input with the error it must give.
type badCSV struct {
	name     string
	input    string
	opts     CSVOptions
	line     int    // want CSVError.Line
	column   int    // want CSVError.Column
	colName  string // want CSVError.ColumnName
	contains string // want a substring of CSVError.Rule
}

// badCSVs is the table of malformed CSV files (issue: at least 20). The
// exact messages are pinned in testdata/csv/bad.golden.
func badCSVs() []badCSV {
	tenMB := 10 << 20
	return []badCSV{
		{name: "empty file", input: "", contains: "empty file"},
		{name: "BOM only", input: "\xEF\xBB\xBF", contains: "empty file"},
		{name: "blank lines only", input: "\n\r\n\n", contains: "empty file"},
		{name: "header only", input: "a,b\n", line: 1, contains: "no data rows"},
		{name: "header only with BOM and CRLF", input: "\xEF\xBB\xBFa,b\r\n\r\n", line: 1, contains: "no data rows"},
		{name: "empty header name", input: "a,,c\n1,2,3\n", line: 1, column: 2, contains: "header name is empty"},
		{name: "blank header name", input: "a,  \n1,2\n", line: 1, column: 2, contains: "header name is empty"},
		{name: "duplicate column names", input: "a,b,a\n1,2,3\n", line: 1, column: 3, colName: "a", contains: "duplicate column name (also column 1)"},
		{name: "duplicate after trimming", input: "a, a\n1,2\n", line: 1, column: 2, colName: "a", contains: "duplicate column name"},
		{name: "ragged row, too many fields", input: "a,b\n1,2\n3,4,5\n", line: 3, contains: "row has 3 fields, the header has 2"},
		{name: "ragged row, too few fields", input: "a,b\n1,2\n3\n", line: 3, contains: "row has 1 field, the header has 2"},
		{name: "whitespace-only line", input: "a,b\n1,2\n   \n", line: 3, contains: "row has 1 field"},
		{name: "text in a numeric column", opts: CSVOptions{Columns: []string{"a", "b"}}, input: "a,b\n1,2\n3,abc\n", line: 3, column: 2, colName: "b", contains: `"abc" is not a number`},
		{name: "NaN", opts: CSVOptions{Columns: []string{"a"}}, input: "a\n1\nNaN\n", line: 3, column: 1, colName: "a", contains: `"NaN" is not a finite number`},
		{name: "Inf", opts: CSVOptions{Columns: []string{"a"}}, input: "a\n-Inf\n", line: 2, column: 1, colName: "a", contains: `"-Inf" is not a finite number`},
		{name: "out of float64 range", opts: CSVOptions{Columns: []string{"a"}}, input: "a\n1e400\n", line: 2, column: 1, contains: "outside the range of a float64"},
		{name: "missing value", opts: CSVOptions{Columns: []string{"a", "b"}}, input: "a,b\n1,\n", line: 2, column: 2, colName: "b", contains: "missing value"},
		{name: "quoted newline in a numeric column", input: "a,b\n1,\"2\n3\"\n", opts: CSVOptions{Columns: []string{"b"}}, line: 2, column: 2, contains: "spanning lines"},
		{name: "bare quote", input: "a,b\n1,2\"3\n", line: 2, contains: `bare " in non-quoted-field`},
		{name: "unterminated quote", input: "a,b\n1,\"2\n4,5\n", line: 3, contains: "quoted field of the record starting at line 2"},
		{name: "non-UTF-8 header", input: "a\xff,b\n1,2\n", line: 1, column: 1, contains: "not valid UTF-8"},
		{name: "non-UTF-8 (Latin-1) text value", input: "a,b\n1,caf\xe9\n", opts: CSVOptions{Columns: []string{"a"}}, line: 2, column: 2, colName: "b", contains: "not valid UTF-8"},
		{name: "10 MB single line", input: "a\n" + strings.Repeat("1", tenMB) + "\n", line: 2, contains: "longer than 1048576 bytes"},
		{name: "10 MB header line", input: strings.Repeat("a", tenMB) + "\n1\n", line: 1, contains: "longer than 1048576 bytes"},
		{name: "10 MB quoted field over many lines", input: "a,b\n1,2\n3,\"" + strings.Repeat("x\n", tenMB/2), line: 3, contains: "longer than 1048576 bytes"},
		{name: "requested column not in header", input: "a,b\n1,2\n", opts: CSVOptions{Columns: []string{"z"}}, line: 1, colName: "z", contains: `no such column in the header (columns: "a", "b")`},
		{name: "many bad rows listed", opts: CSVOptions{Columns: []string{"a"}}, input: "a\n1\nx\n2\n\ny\nz\n3\nw\nv\nu\n", line: 3, column: 1, contains: "6 rows have missing or non-numeric values in numeric columns (first at lines 3, 6, 7, 9, 10)"},
		{name: "decimal comma", opts: CSVOptions{Columns: []string{"a", "b"}}, input: "a;b\n1,5;2\n", line: 2, column: 1, colName: "a", contains: "decimal comma"},
		{name: "classes without keep-invalid", input: "a\n1\n", opts: CSVOptions{Classes: map[string]Classes{"a": {"0", "1"}}}, colName: "a", contains: "needs KeepInvalid"},
		{name: "classes of an unlisted column", input: "a,b\n1,2\n", opts: CSVOptions{Columns: []string{"a"}, KeepInvalid: true, Classes: map[string]Classes{"b": {"0", "1"}}}, colName: "b", contains: "must be one of the listed columns"},
		{name: "classes the same value", input: "a\n1\n", opts: CSVOptions{KeepInvalid: true, Classes: map[string]Classes{"a": {"1", "1.0"}}}, colName: "a", contains: "are the same value"},
		{name: "unsupported delimiter option", input: "a|b\n1|2\n", opts: CSVOptions{Import: ImportOptions{Delimiter: '"'}}, contains: `delimiter '"' cannot be a quote`},
		{name: "header row past the end", input: "title\n", opts: CSVOptions{Import: ImportOptions{HeaderRow: 3}}, line: 1, contains: "header row 3 is past the end of the file (1 line)"},
		{name: "preamble read as the header, columns requested", input: "Survey 2024\na,b\n1,2\n", opts: CSVOptions{Columns: []string{"a", "b"}}, line: 1, colName: "a", contains: `no such column in the header (columns: "Survey 2024"); is line 1 really the header?`},
		{name: "header row too large", input: "a\n1\n", opts: CSVOptions{Import: ImportOptions{HeaderRow: MaxHeaderRow + 1}}, contains: "header row 1001: must be a line number from 1 to 1000"},
		{name: "no header after the header row", input: "title\n\n\n", opts: CSVOptions{Import: ImportOptions{HeaderRow: 2}}, line: 2, contains: "no header at or after header row 2"},
		{name: "preamble line too long", input: strings.Repeat("x", 2<<20) + "\na\n1\n", opts: CSVOptions{Import: ImportOptions{HeaderRow: 2}}, line: 1, contains: "line before the header row is longer than 1048576 bytes"},
		{name: "bad value after a preamble: the file's line", input: "title\nn=2\na,b\n1,2\n3,x\n", opts: CSVOptions{Columns: []string{"a", "b"}, Import: ImportOptions{HeaderRow: 3}}, line: 5, column: 2, colName: "b", contains: `"x" is not a number`},
		{name: "unterminated quote after a preamble", input: "title\na,b\n1,\"2\n4,5\n", opts: CSVOptions{Import: ImportOptions{HeaderRow: 2}}, line: 4, contains: "quoted field of the record starting at line 3"},
		{name: "preamble read as the header", input: "Survey 2024\na,b,c\n1,2,3\n", line: 2, contains: "row has 3 fields, the header has 1 (delimiter ','); is line 1 really the header? if the file starts with a preamble, set the header row"},
		{name: "decimal comma with comma delimiter", input: "a;b\n1,5;2\n", opts: CSVOptions{Import: ImportOptions{Delimiter: ',', DecimalComma: true}}, contains: "delimiter ',' cannot be used with a decimal comma"},
		{name: "decimal comma, header with commas", input: "a,b\n1,2\n", opts: CSVOptions{Import: ImportOptions{DecimalComma: true}}, line: 1, contains: "separated by commas"},
		{name: "decimal point under decimal comma", input: "a;b\n1.5;2\n", opts: CSVOptions{Columns: []string{"a"}, Import: ImportOptions{DecimalComma: true}}, line: 2, column: 1, colName: "a", contains: `"1.5" is not a number with a decimal comma`},
		{name: "comment prefix of two characters", input: "a\n1\n", opts: CSVOptions{Import: ImportOptions{Comment: "//"}}, contains: `comment prefix "//": must be one character`},
		{name: "comment prefix the delimiter", input: "a\n1\n", opts: CSVOptions{Import: ImportOptions{Delimiter: '|', Comment: "|"}}, contains: "cannot be the delimiter"},
		{name: "delimiter a digit", input: "a\n1\n", opts: CSVOptions{Import: ImportOptions{Delimiter: '1'}}, contains: "cannot be a letter, a digit"},
		{name: "column requested twice", input: "a\n1\n", opts: CSVOptions{Columns: []string{"a", "a"}}, colName: "a", contains: "column requested twice"},
	}
}

func TestParseCSVBad(t *testing.T) {
	cases := badCSVs()
	if len(cases) < 20 {
		t.Fatalf("only %d bad CSVs; the issue asks for at least 20", len(cases))
	}
	var golden bytes.Buffer
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseCSV(strings.NewReader(tc.input), "bad.csv", tc.opts)
			if err == nil {
				t.Fatalf("no error; got %d rows", d.Rows)
			}
			var ce *CSVError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *CSVError", err, err)
			}
			if ce.File != "bad.csv" || ce.Line != tc.line || ce.Column != tc.column {
				t.Errorf("position = %s:%d:%d, want bad.csv:%d:%d (%v)", ce.File, ce.Line, ce.Column, tc.line, tc.column, err)
			}
			if tc.colName != "" && ce.ColumnName != tc.colName {
				t.Errorf("column name = %q, want %q", ce.ColumnName, tc.colName)
			}
			if !strings.Contains(ce.Rule, tc.contains) {
				t.Errorf("rule %q does not contain %q", ce.Rule, tc.contains)
			}
			fmt.Fprintf(&golden, "%s\n\t%v\n", tc.name, err)
		})
	}
	checkGolden(t, filepath.Join("testdata", "csv", "bad.golden"), golden.Bytes())
}

func TestParseCSVManyBadRowsLines(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("a\n1\nx\n2\n\ny\nz\n3\nw\nv\nu\n"), "d.csv", CSVOptions{Columns: []string{"a"}})
	var ce *CSVError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	want := []int{3, 6, 7, 9, 10}
	if fmt.Sprint(ce.Lines) != fmt.Sprint(want) {
		t.Errorf("Lines = %v, want %v", ce.Lines, want)
	}
}

func TestReadCSVFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCSV(filepath.Join(dir, "missing.csv"), CSVOptions{}); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: err = %v", err)
	}
	var ce *CSVError
	if _, err := ReadCSV(dir, CSVOptions{}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v", err)
	}
	p := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(p, []byte("age\n12\nabc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadCSV(p, CSVOptions{Columns: []string{"age"}})
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v", err)
	}
	if want := p + `:3:1 (column "age"): "abc" is not a number`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q does not start with %q", err, want)
	}
}

// errReader fails after delivering its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestParseCSVReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, data := range []string{"", "a,b\n", "a,b\n1,2\n3,"} {
		_, err := ParseCSV(&errReader{data: []byte(data), err: boom}, "x.csv", CSVOptions{})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), "x.csv") {
			t.Errorf("after %q: err = %v, want wrapped %v naming x.csv", data, err, boom)
		}
	}
}
