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
// core), as Run does it, in its two steps: DuckDB's query, then Go's
// reading of the result table. It reports each step's peak resident
// memory (VmHWM, reset after the file is written and between the steps)
// and the query's CPU time. Run it alone:
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
		// Run's two steps, each with its peak: DuckDB's query (COPY to a
		// result file), then Go's reading of the result table.
		t0, c0 := time.Now(), cpuSeconds()
		src, err = NumericColumns(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		q, err := aggregate.Query(spec, aggregate.DuckDB, src)
		if err != nil {
			b.Fatal(err)
		}
		tmp := b.TempDir()
		out := filepath.Join(tmp, "result.csv")
		if err := runCopy(context.Background(), q, out, filepath.Join(tmp, "spill"), opts); err != nil {
			b.Fatal(err)
		}
		tq, cq := time.Since(t0), cpuSeconds()-c0
		queryKB, _ := vmHWM()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Logf("cannot reset the peak resident memory: %v", err)
		}
		res, err := aggregate.ReadResultCSV(out, spec, aggregate.DuckDB)
		if err != nil {
			b.Fatal(err)
		}
		readKB, _ := vmHWM()
		b.Logf("memory limit %q, threads %d: query %v (CPU %.1f s, all threads; peak %.0f MB), result table read in %v (%d occupied cells; peak %.0f MB); load average %s",
			opts.MemoryLimit, opts.Threads, tq.Round(time.Millisecond), cq, float64(queryKB)/1e3,
			(time.Since(t0) - tq).Round(time.Millisecond), len(res.Counts), float64(readKB)/1e3, loadAvg())
		b.ReportMetric(float64(max(queryKB, readKB))/1e3, "peak-RSS-MB")
	}
}
