package dataset

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// FuzzReadCSV checks that no input, under any import options, makes
// ParseCSV or PreviewImport panic, that every data error is a *CSVError,
// that a successful parse is consistent, and that the preview of a file
// that parses shows its header and first rows. The options are the header
// row, a delimiter and a comment character (0: none; any byte, valid or
// not) and the decimal comma. Seeds: the bad-CSV table (without its 10 MB
// cases), the good inputs below, and testdata/fuzz/FuzzReadCSV. CI runs it
// for 300000 executions (make fuzz).
func FuzzReadCSV(f *testing.F) {
	for _, tc := range badCSVs() {
		if len(tc.input) < 4096 {
			o := tc.opts.Import
			f.Add([]byte(tc.input), len(tc.opts.Columns) > 0, tc.opts.KeepInvalid, uint8(o.HeaderRow), byte(o.Delimiter), o.DecimalComma, firstByte(o.Comment))
		}
	}
	for _, s := range []string{
		"a,b\n1,2\n3,4\n",
		"\xEF\xBB\xBFx;y\r\n1,5;2\r\n",
		"name,v\n\"a\nb\",1\n",
		"a\tb\n1\t2\n",
	} {
		f.Add([]byte(s), false, false, uint8(0), byte(0), false, byte(0))
		f.Add([]byte(s), true, true, uint8(0), byte(0), false, byte(0))
	}
	f.Add([]byte(preambleCSV), true, true, uint8(3), byte(0), true, byte('#'))
	f.Add([]byte("t \"x\n#c\na|b\n1,5|2\n"), false, false, uint8(2), byte('|'), true, byte('#'))
	f.Fuzz(func(t *testing.T, data []byte, firstColumn, keep bool, headerRow uint8, delim byte, decimalComma bool, comment byte) {
		imp := ImportOptions{HeaderRow: int(headerRow), Delimiter: rune(delim), DecimalComma: decimalComma}
		if comment != 0 {
			imp.Comment = string(rune(comment))
		}
		checkPreview(t, data, imp)
		opts := CSVOptions{Import: imp}
		if firstColumn {
			// Ask for the first header field, whatever it is, to exercise
			// the strict path; a header that does not parse fails earlier.
			if d, err := ParseCSV(bytes.NewReader(data), "f.csv", CSVOptions{Import: imp}); err == nil {
				opts.Columns = d.Columns[:1]
				opts.KeepInvalid = keep
			}
		}
		d, err := ParseCSV(bytes.NewReader(data), "f.csv", opts)
		if err != nil {
			var ce *CSVError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *CSVError", err, err)
			}
			if ce.File != "f.csv" {
				t.Fatalf("error %v does not name the file", err)
			}
			// At most 80 characters of the file are quoted (each ≤ 10
			// bytes escaped), whatever the input.
			if n := len(err.Error()); n > 2048 {
				t.Fatalf("error message of %d bytes: %.200s…", n, err)
			}
			return
		}
		if d.Rows < 1 || len(d.Columns) < 1 {
			t.Fatalf("success with %d rows, %d columns", d.Rows, len(d.Columns))
		}
		seen := map[string]bool{}
		for _, c := range d.Columns {
			if c == "" || seen[c] {
				t.Fatalf("bad header %q", d.Columns)
			}
			seen[c] = true
		}
		for c, v := range d.Data {
			if !slices.Contains(d.Columns, c) || len(v) != d.Rows {
				t.Fatalf("column %q: %d values for %d rows", c, len(v), d.Rows)
			}
			missing := 0
			for _, x := range v {
				if math.IsNaN(x) && opts.KeepInvalid {
					missing++ // a kept missing value
				} else if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("column %q holds %v", c, x)
				}
			}
			if missing != d.Invalid[c] {
				t.Fatalf("column %q: %d missing values, Invalid counts %d", c, missing, d.Invalid[c])
			}
		}
		for _, c := range opts.Columns {
			if _, ok := d.Data[c]; !ok {
				t.Fatalf("requested column %q missing from Data", c)
			}
		}
		if len(d.Preview) > PreviewRows {
			t.Fatalf("preview has %d rows", len(d.Preview))
		}
		if len(data) > ImportPreviewBytes {
			return
		}
		pv, err := PreviewImport(bytes.NewReader(data), "f.csv", imp)
		if err != nil || pv.Err != nil {
			t.Fatalf("the file parses, its preview fails: %v, %v", err, pv.Err)
		}
		n := min(len(d.Preview), ImportPreviewRows)
		if !slices.Equal(pv.Header, d.Columns) || pv.Delimiter != d.Delimiter || len(pv.Rows) != n {
			t.Fatalf("preview header %q, delimiter %q, %d rows; the file has %q, %q, %d rows", pv.Header, pv.Delimiter, len(pv.Rows), d.Columns, d.Delimiter, d.Rows)
		}
		for i := range n {
			if !slices.Equal(pv.Rows[i], d.Preview[i]) {
				t.Fatalf("preview row %d = %q, the file's %q", i, pv.Rows[i], d.Preview[i])
			}
		}
	})
}

// checkPreview previews data with imp: no panic, errors only for invalid
// options (a *CSVError) and the preview's bounds kept.
func checkPreview(t *testing.T, data []byte, imp ImportOptions) {
	pv, err := PreviewImport(bytes.NewReader(data), "f.csv", imp)
	if err != nil {
		var ce *CSVError
		if !errors.As(err, &ce) || imp.Validate() == nil {
			t.Fatalf("preview error %v (%T) for valid options %+v", err, err, imp)
		}
		return
	}
	if len(pv.Rows) > ImportPreviewRows || len(pv.Lines) > importPreviewLines || len(pv.Problems) > maxPreviewProblems || len(pv.Rows) != len(pv.RowLines) {
		t.Fatalf("preview of %d rows (%d lines), %d raw lines, %d problems", len(pv.Rows), len(pv.RowLines), len(pv.Lines), len(pv.Problems))
	}
	if pv.Err != nil {
		var ce *CSVError
		if !errors.As(pv.Err, &ce) || ce.File != "f.csv" {
			t.Fatalf("preview Err %v (%T) is not a *CSVError naming the file", pv.Err, pv.Err)
		}
	} else if len(pv.Numeric) != len(pv.Header) {
		t.Fatalf("%d numeric flags for %d columns", len(pv.Numeric), len(pv.Header))
	}
	for i := 1; i < len(pv.RowLines); i++ {
		if pv.RowLines[i] <= pv.RowLines[i-1] || pv.RowLines[0] <= pv.HeaderLine {
			t.Fatalf("row lines %v after header line %d", pv.RowLines, pv.HeaderLine)
		}
	}
}

// firstByte is the first byte of s, 0 if s is empty.
func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}
