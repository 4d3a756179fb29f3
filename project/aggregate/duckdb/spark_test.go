//go:build linux && cgo

package duckdb

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// sparkToDuckDB rewrites a Spark query of aggregate.Query into DuckDB's
// dialect by exactly the substitutions docs/aggregates.md lists:
// backquoted identifiers become double-quoted, backslash escapes in string
// literals become doubled quotes, STRING becomes VARCHAR, and
// `t RLIKE 'p'` becomes `regexp_matches(t, 'p')`. It knows only the shapes
// Query writes.
func sparkToDuckDB(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '`':
			var name strings.Builder
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '`' {
					if j+1 < len(q) && q[j+1] == '`' {
						name.WriteByte('`')
						j++
						continue
					}
					break
				}
				name.WriteByte(q[j])
			}
			b.WriteString(aggregate.QuoteIdent(aggregate.DuckDB, name.String()))
			i = j
		case '\'':
			var s strings.Builder
			j := i + 1
			for ; j < len(q) && q[j] != '\''; j++ {
				if q[j] == '\\' {
					j++
				}
				s.WriteByte(q[j])
			}
			b.WriteString("'" + strings.ReplaceAll(s.String(), "'", "''") + "'")
			i = j
		default:
			b.WriteByte(c)
		}
	}
	out := strings.ReplaceAll(b.String(), " AS STRING)", " AS VARCHAR)")
	var r strings.Builder
	for line := range strings.Lines(out) {
		for {
			k := strings.Index(line, " RLIKE '")
			if k < 0 {
				break
			}
			s := strings.LastIndexAny(line[:k], " (") + 1
			p := k + len(" RLIKE ")
			e := p + 1 + strings.IndexByte(line[p+1:], '\'') + 1
			line = line[:s] + "regexp_matches(" + line[s:k] + ", " + line[p:e] + ")" + line[e:]
		}
		r.WriteString(line)
	}
	return strings.Replace(r.String(), "dialect spark", "dialect duckdb", 1)
}

func sparkSpecs() map[string]aggregate.Spec {
	kde := kdeSpec("age", "income")
	kde.Features[0].Name = "it's `odd`"
	nb := kdeSpec("a", "b")
	nb.Learner = learners.KindNaiveBayes
	nb.Label = &aggregate.Label{Name: "label", Classes: &dataset.Classes{Negative: `n\o'`, Positive: "1"}, FillClass: -1}
	return map[string]aggregate.Spec{"kde": kde, "naive-bayes": nb, "ridge": ridgeSpec()}
}

// TestSparkTextIsDuckDBAfterSubstitutions is how the Spark dialect is
// checked without Spark: its text, after the documented substitutions, is
// the DuckDB text byte for byte, and that text runs in DuckDB on a table
// (reading the same records as the CSV path, with the same result).
func TestSparkTextIsDuckDBAfterSubstitutions(t *testing.T) {
	dir := t.TempDir()
	for name, spec := range sparkSpecs() {
		t.Run(name, func(t *testing.T) {
			spark, err := aggregate.Query(spec, aggregate.Spark, aggregate.Table("records"))
			if err != nil {
				t.Fatal(err)
			}
			duck, err := aggregate.Query(spec, aggregate.DuckDB, aggregate.Table("records"))
			if err != nil {
				t.Fatal(err)
			}
			got := sparkToDuckDB(spark)
			if got != duck {
				t.Fatalf("the Spark query after the documented substitutions is not the DuckDB query:\n%s\n--- want\n%s", got, duck)
			}
			spec.N = 400
			path := filepath.Join(dir, name+".csv")
			writeData(t, path, spec, spec.N, 7, true)
			db, err := sql.Open("duckdb", "")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TABLE records AS SELECT * FROM read_csv('" + path + "', header = true, all_varchar = true)"); err != nil {
				t.Fatal(err)
			}
			rows := queryRows(t, db, got)
			fromFile, err := aggregate.Query(spec, aggregate.DuckDB, aggregate.CSVFile(path))
			if err != nil {
				t.Fatal(err)
			}
			if want := queryRows(t, db, fromFile); len(rows) == 0 || !slices.Equal(rows, want) {
				t.Errorf("the Spark text (as DuckDB) on the table gave %d rows, the DuckDB query on the file %d; they differ", len(rows), len(want))
			}
		})
	}
}

// queryRows runs q and returns its rows as text.
func queryRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatalf("DuckDB refused the query: %v\n%s", err, q)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
