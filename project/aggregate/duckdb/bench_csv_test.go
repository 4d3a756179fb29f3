//go:build linux && cgo

package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// BenchmarkKDECSV10M measures the embedded engine's memory on issue 20's
// 10⁷-row CSV (TestReleaseScale's shape: two standard-normal columns with
// four decimals, about 190 MB; generated here by DuckDB's COPY … TO in a
// temporary folder): the KDE aggregate query (ℓ = 2, bounds [−4, 4],
// B = 4096) under the memory limit BERNSTEIN_DUCKDB_MEMORY (default
// DefaultMemoryLimit) with BERNSTEIN_DUCKDB_THREADS threads (default every
// core). It reports the peak resident memory of the query (VmHWM, reset
// after the file is written) and its CPU time. Run it alone:
//
//	BERNSTEIN_DUCKDB_MEMORY=256MB go test -tags migrated_fynedo -run - -bench KDECSV10M -benchtime 1x ./project/aggregate/duckdb/
func BenchmarkKDECSV10M(b *testing.B) {
	const n = 10_000_000
	opts := Options{MemoryLimit: os.Getenv("BERNSTEIN_DUCKDB_MEMORY")}
	if s := os.Getenv("BERNSTEIN_DUCKDB_THREADS"); s != "" {
		var err error
		if opts.Threads, err = strconv.Atoi(s); err != nil || opts.Threads < 1 {
			b.Fatalf("BERNSTEIN_DUCKDB_THREADS=%q: want a whole number ≥ 1", s)
		}
	}
	path := filepath.Join(b.TempDir(), "big.csv")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		b.Fatal(err)
	}
	normal := "round(sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()), 4)"
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT %s AS a, %s AS b FROM range(%d)) TO '%s' (FORMAT csv, HEADER)", normal, normal, n, path)); err != nil {
		b.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset the peak resident memory (%v): it includes the generation", err)
	}
	spec := aggregate.Spec{Learner: learners.KindKDE, Bins: aggregate.DefaultBins, N: n}
	for _, name := range []string{"a", "b"} {
		spec.Features = append(spec.Features, aggregate.Feature{Name: name, Bounds: dataset.Bounds{Lo: -4, Hi: 4}, Fill: 0})
	}
	for b.Loop() {
		src, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t0, c0 := time.Now(), cpuSeconds()
		res, err := Run(context.Background(), spec, src, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("memory limit %q, threads %d: query %v (CPU %.1f s, all threads; %d occupied cells); load average %s",
			opts.MemoryLimit, opts.Threads, time.Since(t0).Round(time.Millisecond), cpuSeconds()-c0, len(res.Counts), loadAvg())
	}
	if kb, err := vmHWM(); err == nil {
		b.ReportMetric(float64(kb)/1e3, "peak-RSS-MB")
	}
}
