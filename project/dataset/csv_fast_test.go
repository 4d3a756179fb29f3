package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/internal/memprobe"
)

// readBoth reads text as a file through ReadCSV (the fast path when the
// text has no quote) and through ParseCSV (encoding/csv) with the same
// options, and fails unless both give the same Table or the same error.
func readBoth(t *testing.T, text string, opts CSVOptions) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	fast, errFast := ReadCSV(path, opts)
	slow, errSlow := ParseCSV(strings.NewReader(text), path, opts)
	if fmt.Sprint(errFast) != fmt.Sprint(errSlow) {
		t.Fatalf("%q: errors differ:\nfast: %v\ncsv:  %v", text, errFast, errSlow)
	}
	if errFast != nil {
		return
	}
	if !sameTable(fast, slow) {
		t.Fatalf("%q: tables differ:\nfast: %+v\ncsv:  %+v", text, *fast, *slow)
	}
}

// sameTable compares two tables, NaN equal to NaN.
func sameTable(a, b *Table) bool {
	if a.Rows != b.Rows || a.Hash != b.Hash || a.Delimiter != b.Delimiter || !reflect.DeepEqual(a.Columns, b.Columns) ||
		!reflect.DeepEqual(a.Preview, b.Preview) || fmt.Sprint(a.Invalid) != fmt.Sprint(b.Invalid) || len(a.Data) != len(b.Data) ||
		fmt.Sprint(a.notNumeric) != fmt.Sprint(b.notNumeric) {
		return false
	}
	for c, va := range a.Data {
		vb, ok := b.Data[c]
		if !ok || len(va) != len(vb) {
			return false
		}
		for i := range va {
			if math.Float64bits(va[i]) != math.Float64bits(vb[i]) && !(math.IsNaN(va[i]) && math.IsNaN(vb[i])) {
				return false
			}
		}
	}
	return true
}

// TestFastPathSameAsCSV: the fast path of ReadCSV (quote-free files) gives
// the Table and the errors (file, line, column, rule) of the encoding/csv
// path on every layout and rule it must follow: CRLF, a final CR, no final
// line break, empty and comment lines, preambles, other delimiters,
// decimal commas, invalid values kept as missing or refused, declared
// classes, wrong field counts, invalid UTF-8, a lone CR inside a value,
// records over MaxRecordBytes, and a file with a quote (read by csv).
func TestFastPathSameAsCSV(t *testing.T) {
	keep := CSVOptions{Columns: []string{"a", "b"}, KeepInvalid: true}
	strict := CSVOptions{Columns: []string{"a", "b"}}
	classes := CSVOptions{Columns: []string{"a", "y"}, KeepInvalid: true, Classes: map[string]Classes{"y": {Negative: "no", Positive: "1"}}}
	long := "a,b\n1," + strings.Repeat("9", MaxRecordBytes+10) + "\n"
	for _, tc := range []struct {
		text string
		opts CSVOptions
	}{
		{"a,b,c\n1,2,x\n3,4,y\n", keep},
		{"a,b\r\n1,2\r\n3,4\r\n", keep},
		{"a,b\n1,2\n3,4\r", keep},
		{"a,b\n1,2\n3,4", keep},
		{"a,b\n\n1,2\n\n\n3,4\n\n", keep},
		{"a,b\n1,abc\n,4\n NaN ,1e999\n 5 , 6 \n", keep},
		{"a,b\n1,abc\n,4\n3,4\n", strict},
		{"a,b\n1,2,3\n", keep},
		{"a,b\n1\n", keep},
		{"a,b\n1,\xff\n", keep},
		{"a,b\n1,2\r3\n", keep},
		{"a,b\n1,2\r3\n", strict},
		{"a,b\n", keep},
		{"", keep},
		{"title\nnotes\na;b\n1,5;2\n# c\n3;4\n", CSVOptions{Columns: []string{"a", "b"}, KeepInvalid: true, Import: ImportOptions{HeaderRow: 3, Delimiter: ';', DecimalComma: true, Comment: "#"}}},
		{"a\tb\n1\t2\n3\t4\n", CSVOptions{Columns: []string{"b"}, Import: ImportOptions{HeaderRow: 1, Delimiter: '\t'}}},
		{"a;b\n1;2\n", CSVOptions{Columns: []string{"a"}, KeepInvalid: true, Import: ImportOptions{HeaderRow: 1}}},
		{"a,y\n0.5,no\n0.25,1.0\n1,yes\n2, 1 \n", classes},
		{"a,b\n1,\"2\"\n3,4\n", keep},
		{"a,c\n1,2\n", keep},
		{long, keep},
		{"x,y\n" + strings.Repeat("1,2\n", PreviewRows+5), CSVOptions{Columns: []string{"x"}}},
		{"a,b,c\n1,2,x\n3,,y\n4,5,6\n", CSVOptions{}},
		{"a,b,c\n1,2,x\n3,,y\n4,5,6\n", CSVOptions{KeepInvalid: true}},
	} {
		readBoth(t, tc.text, tc.opts)
	}
}

// FuzzFastPathSameAsCSV: on any bytes, ReadCSV (fast path when there is
// no quote) and ParseCSV agree, table or error.
func FuzzFastPathSameAsCSV(f *testing.F) {
	f.Add([]byte("a,b\n1,2\r\n\n3,x\n"), true)
	f.Add([]byte("a,b\n1,2,3\n"), false)
	f.Add([]byte("a;b\n1;2\n# c\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, keepInvalid bool) {
		opts := CSVOptions{Columns: []string{"a", "b"}, KeepInvalid: keepInvalid, Import: ImportOptions{HeaderRow: 1, Comment: "#"}}
		readBoth(t, string(data), opts)
		opts.Columns = nil // every column, numeric where possible (the curator's first read)
		readBoth(t, string(data), opts)
	})
}

// writeRowsCSV writes n rows of three columns "a,b,label" (two numbers
// with 4 decimals, a text label) to path.
func writeRowsCSV(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(20, 2))
	w.WriteString("a,b,label\n")
	var buf []byte
	for range n {
		buf = strconv.AppendFloat(buf[:0], r.NormFloat64(), 'f', 4, 64)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, r.NormFloat64(), 'f', 4, 64)
		buf = append(buf, ",yes\n"...)
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestReadCSVMemoryProportionalToColumns reads 10⁶ rows of a file with
// three columns, two used, and bounds the peak Go heap of ReadCSV
// (memprobe's sampled peak) by the two used columns, 16 MB, allocated once
// at their final size (rows ≤ line breaks + 1), plus 8 MB for buffers and
// the runtime: no string is kept per row, no column grows by appends.
func TestReadCSVMemoryProportionalToColumns(t *testing.T) {
	n := 1_000_000
	path := filepath.Join(t.TempDir(), "rows.csv")
	writeRowsCSV(t, path, n)
	var d *Table
	var err error
	m := memprobe.Measure(func() { d, err = ReadCSV(path, CSVOptions{Columns: []string{"a", "b"}, KeepInvalid: true}) })
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != n || len(d.Data["a"]) != n {
		t.Fatalf("read %d rows", d.Rows)
	}
	limit := uint64(2*8*(n+1) + 8<<20)
	t.Logf("peak heap %.1f MB, allocated %.1f MB (limit %.1f MB)", float64(m.PeakHeap)/1e6, float64(m.Allocated)/1e6, float64(limit)/1e6)
	if m.PeakHeap > limit || m.Allocated > limit {
		t.Errorf("peak heap %d, allocated %d bytes > %d: more than the used columns", m.PeakHeap, m.Allocated, limit)
	}
}

// peakRSSKB returns the process's VmHWM in kB (Linux).
func peakRSSKB() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			return strconv.ParseInt(strings.Fields(string(v))[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// TestFastPathEngaged: ReadCSV reads a quote-free file with fastRows and a
// file with a quote with encoding/csv (so TestFastPathSameAsCSV compares
// the two paths, not one with itself).
func TestFastPathEngaged(t *testing.T) {
	for _, tc := range []struct {
		text string
		fast bool
	}{{"a,b\n1,2\n", true}, {"a,b\n1,\"2\"\n", false}} {
		path := filepath.Join(t.TempDir(), "data.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		shape, err := csvShapeOf(path)
		if err != nil {
			t.Fatal(err)
		}
		p := &csvParser{name: path, opts: CSVOptions{Columns: []string{"a"}, shape: shape}}
		if _, err := p.parse(strings.NewReader(tc.text)); err != nil {
			t.Fatal(err)
		}
		if (p.fast != nil) != tc.fast || shape.lines != 2 {
			t.Errorf("%q: fast path %v (want %v), %d line breaks", tc.text, p.fast != nil, tc.fast, shape.lines)
		}
	}
}
