//go:build linux && cgo

package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	// The DuckDB driver registers "duckdb" with database/sql.
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// DefaultMemoryLimit is DuckDB's memory limit for one run (its
// memory_limit setting): DuckDB spills to its temporary folder beyond it,
// so the process stays well under the 1 GB of issue 20 whatever the data.
const DefaultMemoryLimit = "512MB"

// Options tunes a run. The zero value is the default.
type Options struct {
	// MemoryLimit is DuckDB's memory_limit ("512MB", "2GB"); "" means
	// DefaultMemoryLimit.
	MemoryLimit string
	// Threads is DuckDB's thread count; 0 means every core.
	Threads int
}

// ErrUnknownSource is returned by Open for a path that is neither a CSV
// file, a Parquet file nor a folder.
var ErrUnknownSource = errors.New("not a .csv, .tsv or .parquet file or a folder of .parquet files")

// Open returns the source a path names: a folder reads every *.parquet
// file in it, a file ending in .parquet is Parquet, one ending in .csv,
// .tsv or .txt is CSV (with a header row). Paths holding the glob
// characters * ? [ are refused: DuckDB would expand them.
func Open(path string) (aggregate.Source, error) {
	if strings.ContainsAny(path, "*?[") {
		return aggregate.Source{}, fmt.Errorf("%s: a path with * ? or [ is refused (DuckDB would read it as a pattern)", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return aggregate.Source{}, err
	}
	if fi.IsDir() {
		return aggregate.ParquetFiles(filepath.Join(path, "*.parquet")), nil
	}
	if !fi.Mode().IsRegular() {
		return aggregate.Source{}, fmt.Errorf("%s: not a regular file or a folder", path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return aggregate.ParquetFiles(path), nil
	case ".csv", ".tsv", ".txt":
		return aggregate.CSVFile(path), nil
	}
	return aggregate.Source{}, fmt.Errorf("%s: %w", path, ErrUnknownSource)
}

// Run runs spec's aggregate query on src with an embedded DuckDB (its
// numeric columns read as numbers: NumericColumns) and
// returns the result table, checked by aggregate.ReadResultCSV (Dialect
// DuckDB). The records stay in DuckDB: Go holds only the aggregate.
// Cancelling ctx interrupts the query. Errors: the spec's, DuckDB's
// (a file it cannot read, a malformed CSV), or the result table's.
func Run(ctx context.Context, spec aggregate.Spec, src aggregate.Source, opts Options) (*aggregate.Result, error) {
	src, err := NumericColumns(ctx, src)
	if err != nil {
		return nil, err
	}
	q, err := aggregate.Query(spec, aggregate.DuckDB, src)
	if err != nil {
		return nil, err
	}
	return copyToTemp(ctx, "bernstein-aggregate-", "result.csv", q, opts, func(out string) (*aggregate.Result, error) {
		return aggregate.ReadResultCSV(out, spec, aggregate.DuckDB)
	})
}

// copyToTemp runs COPY (q) TO a CSV file named name (runCopy) in a fresh
// temporary folder named after prefix, where DuckDB also spills, and
// returns what read makes of the file; the folder is removed afterwards.
// runCopy's errors come as a *copyError (its text is runCopy's); the
// folder's and read's as they are.
func copyToTemp[T any](ctx context.Context, prefix, name, q string, opts Options, read func(out string) (T, error)) (T, error) {
	var zero T
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, name)
	if err := runCopy(ctx, q, out, filepath.Join(tmp, "spill"), opts); err != nil {
		return zero, &copyError{err}
	}
	return read(out)
}

// copyError is an error of DuckDB's copy in copyToTemp, told apart from
// the reader's; its text is the copy's.
type copyError struct{ err error }

func (e *copyError) Error() string { return e.err.Error() }
func (e *copyError) Unwrap() error { return e.err }

// runCopy runs COPY (q) TO out as CSV with a header in a fresh in-memory
// DuckDB with the options' limits.
func runCopy(ctx context.Context, q, out, spill string, opts Options) error {
	return withConn(ctx, spill, opts, func(conn *sql.Conn) error {
		body := strings.TrimSuffix(strings.TrimSpace(q), ";")
		copyStmt := "COPY (\n" + body + "\n) TO " + literal(out) + " (FORMAT csv, HEADER true)"
		if _, err := conn.ExecContext(ctx, copyStmt); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("duckdb: aggregate query: %w", err)
		}
		return nil
	})
}

// withConn runs f on one connection of a fresh in-memory DuckDB with the
// options' limits (memory, threads) and spilling to the folder spill.
func withConn(ctx context.Context, spill string, opts Options, f func(*sql.Conn) error) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // settings are per connection: keep one
	if err != nil {
		return fmt.Errorf("duckdb: %w", err)
	}
	defer conn.Close()
	limit := opts.MemoryLimit
	if limit == "" {
		limit = DefaultMemoryLimit
	}
	settings := []string{
		"SET memory_limit = " + literal(limit),
		"SET temp_directory = " + literal(spill),
		"SET preserve_insertion_order = false",
	}
	if opts.Threads > 0 {
		settings = append(settings, fmt.Sprintf("SET threads = %d", opts.Threads))
	}
	for _, s := range settings {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	return f(conn)
}

// literal writes s as a DuckDB string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
