//go:build linux

package dataset

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// BenchmarkReadCSV10M reads a generated 10⁷-row, three-column CSV (about
// 190 MB, two columns used) with ReadCSV and reports the peak resident
// memory of the process (VmHWM). It writes the file once, in a temporary
// folder; run it alone: go test -tags migrated_fynedo -run - -bench
// ReadCSV10M -benchtime 1x ./project/dataset/ (docs/performance.md).
func BenchmarkReadCSV10M(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rows.csv")
	writeRowsCSV(b, path, 10_000_000)
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // the peak is the read's (Linux ≥ 4.0)
	b.ResetTimer()
	for b.Loop() {
		var ru0, ru1 syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		d, err := ReadCSV(path, CSVOptions{Columns: []string{"a", "b"}, KeepInvalid: true})
		if err != nil || d.Rows != 10_000_000 {
			b.Fatal(err)
		}
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := func(r syscall.Rusage) float64 {
			return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
		}
		b.ReportMetric(cpu(ru1)-cpu(ru0), "cpu-s/op")
	}
	b.StopTimer()
	if kb, err := peakRSSKB(); err == nil {
		b.ReportMetric(float64(kb)/1e3, "peak-RSS-MB")
	}
}
