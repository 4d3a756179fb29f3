//go:build linux && cgo

package duckdb

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestNumericColumnsSameCounts: a Parquet file with a DOUBLE column
// holding NULL, NaN, ±Inf, −0, huge, tiny and out-of-bounds values, an
// INTEGER column and a FLOAT column (kept as text) gives the same KDE
// cells whether the query reads the typed columns as numbers
// (NumericColumns, Run's default) or through their text.
func TestNumericColumnsSameCounts(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "typed.parquet")
	duckExec(t, "COPY (SELECT d::DOUBLE AS d, i::INTEGER AS i, f::FLOAT AS f FROM (VALUES "+
		"(NULL::DOUBLE, 1::INTEGER, 0.1::FLOAT), ('NaN'::DOUBLE, -5, 0.3), ('inf'::DOUBLE, 200, 0.7), ('-inf'::DOUBLE, 50, NULL), "+
		"(-0.0::DOUBLE, 0, 1e30), (1e300, 99, -1), (5e-324, 100, 0.5), (0.1, 33, 0.25), (99.99999999999999, 66, 0.75), (100.0, 12, 0.2)"+
		") AS t(d, i, f)) TO '"+pq+"' (FORMAT parquet)")
	src, err := Open(pq)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := NumericColumns(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	spec := aggregate.Spec{Learner: learners.KindKDE, Bins: 4096, N: 10, Features: []aggregate.Feature{
		{Name: "d", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 50},
		{Name: "i", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 10},
		{Name: "f", Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5},
	}}
	qt, _ := aggregate.Query(spec, aggregate.DuckDB, typed)
	qs, _ := aggregate.Query(spec, aggregate.DuckDB, src)
	if qt == qs {
		t.Fatal("NumericColumns marked no column: the typed query is the text query")
	}
	if got := typedNames(t, typed); !slices.Equal(got, []string{"d", "i"}) {
		t.Errorf("numeric columns %v, want [d i] (FLOAT stays text)", got)
	}
	// Run marks the columns itself; the text path is the query on src as
	// given, run through runCopy directly.
	res, err := Run(context.Background(), spec, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "text.csv")
	if err := runCopy(context.Background(), qs, out, out+".spill", Options{}); err != nil {
		t.Fatal(err)
	}
	text, err := aggregate.ReadResultCSV(out, spec, aggregate.DuckDB)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := resultCells(res), resultCells(text); !maps.Equal(a, b) {
		t.Errorf("typed and text reading differ: %v", diff(a, b))
	}
}

// typedNames lists which of the spec's columns a Source reads as numbers,
// from the query text.
func typedNames(t *testing.T, src aggregate.Source) []string {
	t.Helper()
	var out []string
	for _, n := range []string{"d", "i", "f"} {
		spec := aggregate.Spec{Learner: learners.KindKDE, Features: []aggregate.Feature{{Name: n, Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5}}}
		q, err := aggregate.Query(spec, aggregate.DuckDB, src)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains([]string{"CAST(\"" + n + "\" AS DOUBLE) AS t1"}, firstExpr(q)) {
			out = append(out, n)
		}
	}
	return out
}

// firstExpr returns the first expression of the src step.
func firstExpr(q string) string {
	const mark = "SELECT "
	for i := 0; i+len(mark) < len(q); i++ {
		if q[i:i+len(mark)] == mark {
			rest := q[i+len(mark):]
			for j := range len(rest) {
				if rest[j] == ',' || rest[j] == '\n' {
					return rest[:j]
				}
			}
		}
	}
	return ""
}
