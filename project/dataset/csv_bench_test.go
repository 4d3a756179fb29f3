package dataset

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"testing"
)

// rowsReader streams a CSV of n rows "i/n,text,i" without holding it.
type rowsReader struct {
	n, i int
	buf  []byte
}

func newRowsReader(n int) *rowsReader {
	return &rowsReader{n: n, buf: []byte("a,label,b\n")}
}

func (r *rowsReader) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.i < r.n {
		r.buf = strconv.AppendFloat(r.buf, float64(r.i)/float64(r.n), 'f', 6, 64)
		r.buf = append(r.buf, ",some text,"...)
		r.buf = strconv.AppendInt(r.buf, int64(r.i), 10)
		r.buf = append(r.buf, '\n')
		r.i++
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	return n, nil
}

// TestParseCSVBoundedMemory streams 10^6 rows (10^7, about 250 MB of CSV,
// with -long) and checks that what stays in memory is the used column only:
// 8 bytes per row, plus slack for the last append growth (≤ 1.25× for large
// slices) and 16 MB for the runtime.
func TestParseCSVBoundedMemory(t *testing.T) {
	n := 1_000_000
	if long() {
		n = 10_000_000
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := ParseCSV(newRowsReader(n), "big.csv", CSVOptions{Columns: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if d.Rows != n || len(d.Data) != 1 {
		t.Fatalf("Rows = %d, columns = %d", d.Rows, len(d.Data))
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	limit := int64(8*n*5/4 + 16<<20)
	t.Logf("heap held after parse: %.1f MB (limit %.1f MB)", float64(held)/1e6, float64(limit)/1e6)
	if held > limit {
		t.Errorf("heap held %d bytes > %d: more than the used column is kept", held, limit)
	}
	runtime.KeepAlive(d)
}

// BenchmarkParseCSV parses 10^5 rows of three columns, two of them numeric.
func BenchmarkParseCSV(b *testing.B) {
	data, err := io.ReadAll(newRowsReader(100_000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCSV(bytes.NewReader(data), "bench.csv", CSVOptions{Columns: []string{"a", "b"}}); err != nil {
			b.Fatal(err)
		}
	}
}
