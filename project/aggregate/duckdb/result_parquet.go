//go:build linux && cgo

package duckdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// ReadResultParquet reads the result table of spec's query, computed by
// an engine of dialect d and saved as a Parquet file (issue 20: "the
// result table (CSV or Parquet)"). The embedded DuckDB copies at most
// spec.N + 1 of its rows to a temporary CSV file (every aggregate row
// counts at least one record, so a longer table is wrong whatever it
// holds, and a hostile file costs memory bounded by the declared n), which
// aggregate.ReadResultCSV then checks exactly as it checks a CSV table.
//
// Guarantees: the Result is the one ReadResultCSV gives for the same
// table written as CSV, except TableHash, which is the SHA-256 of the
// Parquet file's bytes (the file the curator has, recorded in the
// ledger note). Errors name path; an error about a value names its row
// (1-based, the header not counted) and column instead of a line of the
// temporary file. Cancelling ctx interrupts the copy.
func ReadResultParquet(ctx context.Context, path string, spec aggregate.Spec, d aggregate.Dialect, opts Options) (*aggregate.Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if _, err := aggregate.ParseDialect(string(d)); err != nil {
		return nil, err
	}
	if strings.ContainsAny(path, "*?[") {
		return nil, fmt.Errorf("%s: a path with * ? or [ is refused (DuckDB would read it as a pattern)", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if spec.N < 1 {
		return nil, fmt.Errorf("%s: the declared number of records n is %d; the table is read against n ≥ 1", path, spec.N)
	}
	hash, err := dataset.HashFile(path)
	if err != nil {
		return nil, err
	}
	q := fmt.Sprintf("SELECT * FROM read_parquet(%s) LIMIT %d", literal(path), spec.N+1)
	res, err := copyToTemp(ctx, "bernstein-result-", "result.csv", q, opts, func(out string) (*aggregate.Result, error) {
		res, err := aggregate.ReadResultCSV(out, spec, d)
		if err != nil {
			return nil, parquetError(err, out, path)
		}
		return res, nil
	})
	var ce *copyError
	switch {
	case errors.As(err, &ce) && ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &ce):
		// DuckDB's message, first line only (the rest quotes the query);
		// runCopy wraps it once.
		err = ce.err
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, fmt.Errorf("%s: not a result table DuckDB can read as Parquet: %s", path, strings.TrimSpace(msg))
	case err != nil:
		return nil, err
	}
	res.TableHash = hash
	return res, nil
}

// parquetError names the Parquet file in an error about its temporary CSV
// copy, with rows instead of the copy's lines.
func parquetError(err error, tmp, path string) error {
	var ce *dataset.CSVError
	if errors.As(err, &ce) {
		c := *ce
		c.File = path
		if c.Line > 1 {
			c.Rule = fmt.Sprintf("row %d: %s", c.Line-1, c.Rule)
		}
		c.Line, c.Column, c.Lines = 0, 0, nil
		return &c
	}
	return errors.New(strings.ReplaceAll(err.Error(), tmp, path))
}
