//go:build linux && cgo

package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// numericTypes are the DuckDB column types read as numbers without the
// text step (aggregate.Source.WithNumericColumns): their finite values'
// text reads back as the same double. FLOAT is not among them (its text
// is the shortest float32 form, which reads back as another double than
// its conversion), nor DECIMAL, HUGEINT or UBIGINT.
var numericTypes = []string{"DOUBLE", "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UINTEGER", "USMALLINT", "UTINYINT"}

// NumericColumns returns src with the columns its schema stores in one of
// numericTypes marked (WithNumericColumns), read by DESCRIBE on an
// in-memory DuckDB: a Parquet file's schema; a CSV file is read as text
// (all_varchar), so none of its columns is. The schema is metadata, not
// records: nothing here depends on the values. This removes the text
// conversion and pattern test from the query for such columns, the
// largest part of its time (docs/performance.md).
func NumericColumns(ctx context.Context, src aggregate.Source) (aggregate.Source, error) {
	from, err := src.FromClause(aggregate.DuckDB)
	if err != nil {
		return src, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return src, fmt.Errorf("duckdb: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "DESCRIBE SELECT * FROM "+from)
	if err != nil {
		return src, fmt.Errorf("duckdb: reading the schema: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return src, err
	}
	var numeric []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return src, fmt.Errorf("duckdb: reading the schema: %w", err)
		}
		name, _ := vals[0].(string)
		typ, _ := vals[1].(string)
		if slices.Contains(numericTypes, typ) {
			numeric = append(numeric, name)
		}
	}
	if err := rows.Err(); err != nil {
		return src, fmt.Errorf("duckdb: reading the schema: %w", err)
	}
	return src.WithNumericColumns(numeric...), nil
}
