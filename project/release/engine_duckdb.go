//go:build linux && cgo

package release

import (
	"context"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/aggregate/duckdb"
)

// EmbeddedEngineAvailable reports whether this build has the embedded
// DuckDB (Linux with cgo).
const EmbeddedEngineAvailable = true

// embeddedSource is the DuckDB source of a records file.
func embeddedSource(info SourceInfo) (aggregate.Source, error) { return duckdb.Open(info.Path) }

// countEmbedded counts the records of a source with the embedded DuckDB.
func countEmbedded(ctx context.Context, info SourceInfo) (int, error) {
	src, err := embeddedSource(info)
	if err != nil {
		return 0, err
	}
	return duckdb.Count(ctx, src, duckdb.Options{})
}

// runEmbeddedQuery runs spec's aggregate query on a source with the
// embedded DuckDB (its default memory limit, every core).
func runEmbeddedQuery(ctx context.Context, spec aggregate.Spec, info SourceInfo) (*aggregate.Result, error) {
	src, err := embeddedSource(info)
	if err != nil {
		return nil, err
	}
	return duckdb.Run(ctx, spec, src, duckdb.Options{})
}

// readResultParquet reads a result table saved as Parquet with the
// embedded DuckDB (duckdb.ReadResultParquet).
func readResultParquet(ctx context.Context, path string, spec aggregate.Spec, d aggregate.Dialect) (*aggregate.Result, error) {
	return duckdb.ReadResultParquet(ctx, path, spec, d, duckdb.Options{})
}

// fitEmbeddedLogistic fits logistic regression by Newton passes over a
// source with the embedded DuckDB (duckdb.FitLogistic).
func fitEmbeddedLogistic(ctx context.Context, spec aggregate.Spec, info SourceInfo, values learners.Values) (*learners.Fitted, error) {
	src, err := embeddedSource(info)
	if err != nil {
		return nil, err
	}
	return duckdb.FitLogistic(ctx, spec, src, values, duckdb.Options{})
}

// CountRecords returns the number of records of a source with the
// embedded DuckDB (every row; the public n of the source).
func CountRecords(ctx context.Context, info SourceInfo) (int, error) { return countEmbedded(ctx, info) }

// SourceHead returns the first rows records of a source as CSV text with
// a header row, read by the embedded DuckDB (every column as text).
func SourceHead(ctx context.Context, info SourceInfo, rows int) ([]byte, error) {
	src, err := embeddedSource(info)
	if err != nil {
		return nil, err
	}
	return duckdb.Head(ctx, src, rows, duckdb.Options{})
}
