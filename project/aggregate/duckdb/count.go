//go:build linux && cgo

package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// Count returns the number of records of src (aggregate.CountQuery) read
// with an embedded DuckDB under the options' limits: every row, as the
// aggregate query reads them (no row is dropped). It is the public n of
// a records file whose n the curator did not declare.
func Count(ctx context.Context, src aggregate.Source, opts Options) (int, error) {
	q, err := aggregate.CountQuery(src, aggregate.DuckDB)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "bernstein-count-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	var n int64
	err = withConn(ctx, filepath.Join(tmp, "spill"), opts, func(conn *sql.Conn) error {
		return conn.QueryRowContext(ctx, q).Scan(&n)
	})
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("duckdb: counting the records: %w", err)
	}
	return int(n), nil
}

// Head writes the first rows records of src, every column as text, as a
// CSV file with a header row and returns its bytes (at most rows records:
// a window's look at a source it does not read into memory).
func Head(ctx context.Context, src aggregate.Source, rows int, opts Options) ([]byte, error) {
	q, err := aggregate.HeadQuery(src, aggregate.DuckDB, rows)
	if err != nil {
		return nil, err
	}
	q = "SELECT COLUMNS(*)::VARCHAR FROM (" + q + ")"
	return copyToTemp(ctx, "bernstein-head-", "head.csv", q, opts, os.ReadFile)
}
