//go:build linux && cgo

package duckdb

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/internal/memprobe"
)

// TestRunKeepsRecordsOutOfGoMemory runs the KDE query on CSV files of
// 200,000 and 1,200,000 records (3 and 20 MB, B = 64: the same 4,096
// cells) and checks that what the Go side allocates (TotalAlloc, an exact
// upper bound of the Go heap it can have used) does not grow with the
// records: the six times larger file may cost at most 256 KiB more. The
// records stay in DuckDB, under its memory limit; Go holds the aggregate.
func TestRunKeepsRecordsOutOfGoMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 23 MB of CSV; skipped with -short")
	}
	var alloc [2]uint64
	for k, n := range []int{200_000, 1_200_000} {
		path := filepath.Join(t.TempDir(), "big.csv")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintln(w, "age,income")
		for i := range n {
			fmt.Fprintf(w, "%d.%04d,%d.5\n", i%100, i%9973, (i*7919)%250000)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		spec := kdeSpec("age", "income")
		spec.N = n
		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var runErr error
		var cells int
		m := memprobe.Measure(func() {
			res, err := Run(context.Background(), spec, src, Options{MemoryLimit: "256MB"})
			runErr = err
			if err == nil {
				cells = len(res.Counts)
			}
		})
		if runErr != nil {
			t.Fatal(runErr)
		}
		fi, _ := os.Stat(path)
		t.Logf("%d records (%d bytes), %d cells: Go allocated %d bytes", n, fi.Size(), cells, m.Allocated)
		alloc[k] = m.Allocated
	}
	if alloc[1] > alloc[0]+256<<10 {
		t.Errorf("Go allocated %d bytes for 200,000 records and %d for 1,200,000: it grows with the records", alloc[0], alloc[1])
	}
}
