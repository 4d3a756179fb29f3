package dataset

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// FuzzReadCSV checks that no input makes ParseCSV panic, that every data
// error is a *CSVError, and that a successful parse is consistent. Seeds:
// the bad-CSV table (without its 10 MB cases), the good inputs below, and
// testdata/fuzz/FuzzReadCSV. CI runs it for 30 s (make fuzz).
func FuzzReadCSV(f *testing.F) {
	for _, tc := range badCSVs() {
		if len(tc.input) < 4096 {
			f.Add([]byte(tc.input), len(tc.opts.Columns) > 0, tc.opts.KeepInvalid)
		}
	}
	for _, s := range []string{
		"a,b\n1,2\n3,4\n",
		"\xEF\xBB\xBFx;y\r\n1,5;2\r\n",
		"name,v\n\"a\nb\",1\n",
		"a\tb\n1\t2\n",
	} {
		f.Add([]byte(s), false, false)
		f.Add([]byte(s), true, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, firstColumn, keep bool) {
		opts := CSVOptions{}
		if firstColumn {
			// Ask for the first header field, whatever it is, to exercise
			// the strict path; a header that does not parse fails earlier.
			if d, err := ParseCSV(bytes.NewReader(data), "f.csv", CSVOptions{}); err == nil {
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
	})
}
