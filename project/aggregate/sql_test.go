package aggregate

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/internal/golden"
)

// goldenSpecs are the specs whose queries are kept under testdata/, one
// file per learner and dialect.
func goldenSpecs() map[string]Spec {
	return map[string]Spec{
		"kde": {Learner: learners.KindKDE, Bins: 4096, Features: []Feature{
			{Name: "age", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 50},
			{Name: "income", Bounds: dataset.Bounds{Lo: -1000, Hi: 2.5e5}, Fill: 0},
		}},
		"naive-bayes": {Learner: learners.KindNaiveBayes, Bins: 1024, Features: []Feature{
			{Name: "x", Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5},
			{Name: "z", Bounds: dataset.Bounds{Lo: -3, Hi: 3}, Fill: 0},
		}, Label: &Label{Name: "outcome", Classes: &dataset.Classes{Negative: "0", Positive: "yes"}, FillClass: -1}},
		"ridge": {Learner: learners.KindRidge, Features: []Feature{
			{Name: "x", Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5},
			{Name: "z", Bounds: dataset.Bounds{Lo: -3, Hi: 3}, Fill: 0.1},
		}, Label: &Label{Name: "y", Bounds: dataset.Bounds{Lo: -10, Hi: 10}, Fill: 0}},
	}
}

// TestQueryGolden keeps the text of every learner's query in every dialect
// under testdata/<learner>.<dialect>.sql. The DuckDB text is run by the
// tests of project/aggregate/duckdb; the Spark text cannot run here:
// TestSparkTextIsDuckDBAfterSubstitutions (project/aggregate/duckdb)
// checks that, after the substitutions listed in docs/aggregates.md, it is
// the DuckDB text, and runs it.
func TestQueryGolden(t *testing.T) {
	for name, spec := range goldenSpecs() {
		for _, d := range Dialects {
			t.Run(name+"/"+string(d), func(t *testing.T) {
				q, err := Query(spec, d, Table("records"))
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", name+"."+string(d)+".sql"), []byte(q))
			})
		}
	}
}

// hostileNames are column names from a curator's file that would break a
// query written by string concatenation.
var hostileNames = []string{
	`a"b`, `x"; DROP TABLE records; --`, "a`b", "c`; DROP TABLE t; --", `it's`, `back\slash'`, "--", "/*", "é ü 名前", ` spaced `,
}

// TestQueryQuotesHostileNames checks that a column name changes the query
// only where the name is written, as one quoted identifier: the query with
// a hostile name equals the query with a plain name after replacing the
// quoted forms, and the quoted form reads back as the name.
func TestQueryQuotesHostileNames(t *testing.T) {
	for _, d := range Dialects {
		for _, name := range hostileNames {
			for kind, spec := range goldenSpecs() {
				plain := spec
				plain.Features = append([]Feature(nil), spec.Features...)
				plain.Features[0].Name = "plain_name"
				hostile := spec
				hostile.Features = append([]Feature(nil), spec.Features...)
				hostile.Features[0].Name = name
				qp, err := Query(plain, d, Table("records"))
				if err != nil {
					t.Fatal(err)
				}
				qh, err := Query(hostile, d, Table(name))
				if err != nil {
					t.Fatalf("%s %s %q: %v", d, kind, name, err)
				}
				qi := QuoteIdent(d, name)
				if got, want := strings.ReplaceAll(qh, qi, QuoteIdent(d, "plain_name")), strings.ReplaceAll(qp, QuoteIdent(d, "records"), QuoteIdent(d, "plain_name")); got != want {
					t.Errorf("%s %s %q: the name changed the query beyond its quoted identifier:\n%s", d, kind, name, qh)
				}
				if back := unquoteIdent(d, qi); back != name {
					t.Errorf("%s: QuoteIdent(%q) = %s reads back as %q", d, name, qi, back)
				}
			}
		}
	}
}

// unquoteIdent reads one quoted identifier, or returns "" if s is not
// exactly one.
func unquoteIdent(d Dialect, s string) string {
	q := byte('"')
	if d == Spark {
		q = '`'
	}
	if len(s) < 2 || s[0] != q || s[len(s)-1] != q {
		return ""
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == q {
			if s[i+1] != q || i+1 == len(s)-1 {
				return ""
			}
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestQuoteStringSpark(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`a`, `'a'`}, {`it's`, `'it\'s'`}, {`a\b`, `'a\\b'`}, {`\'`, `'\\\''`},
	} {
		if got := quoteString(Spark, tc.in); got != tc.want {
			t.Errorf("quoteString(Spark, %q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := quoteString(Postgres, `it's \n`); got != `'it''s \n'` {
		t.Errorf("quoteString(Postgres) = %s", got)
	}
}

func TestSpecValidateRules(t *testing.T) {
	base := goldenSpecs()["ridge"]
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"svm has no aggregate", func(s *Spec) { s.Learner = learners.KindSVM }, "has no aggregate query"},
		{"no features", func(s *Spec) { s.Features = nil }, "0 feature columns"},
		{"empty name", func(s *Spec) { s.Features[0].Name = "" }, "empty column name"},
		{"control character", func(s *Spec) { s.Features[0].Name = "a\nb" }, "control character"},
		{"NUL", func(s *Spec) { s.Features[0].Name = "a\x00b" }, "control character"},
		{"bad bounds", func(s *Spec) { s.Features[0].Bounds = dataset.Bounds{Lo: 1, Hi: 1} }, "invalid bounds"},
		{"fill outside", func(s *Spec) { s.Features[0].Fill = 2 }, "within the public bounds"},
		{"duplicate", func(s *Spec) { s.Features[1].Name = "x" }, "selected twice"},
		{"label twice", func(s *Spec) { s.Label.Name = "x" }, "selected twice"},
		{"no label", func(s *Spec) { s.Label = nil }, "needs a real label"},
		{"bins", func(s *Spec) { s.Learner = learners.KindKDE; s.Label = nil; s.Bins = 1 }, "between 2 and"},
		{"negative n", func(s *Spec) { s.N = -1 }, "must be between 1 and"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			s.Features = append([]Feature(nil), base.Features...)
			l := *base.Label
			s.Label = &l
			tc.edit(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			}
			if _, err := Query(s, DuckDB, Table("t")); err == nil {
				t.Fatal("Query accepted an invalid spec")
			}
		})
	}
}

func TestSourceOnlyDuckDBReadsFiles(t *testing.T) {
	spec := goldenSpecs()["kde"]
	for _, src := range []Source{CSVFile("a.csv"), ParquetFiles("dir/*.parquet")} {
		if _, err := Query(spec, DuckDB, src); err != nil {
			t.Errorf("duckdb: %v", err)
		}
		for _, d := range []Dialect{Postgres, Spark} {
			if _, err := Query(spec, d, src); err == nil || !strings.Contains(err.Error(), "embedded DuckDB") {
				t.Errorf("%s read a file: %v", d, err)
			}
		}
	}
	q, err := Query(spec, DuckDB, CSVFile(`it's.csv`))
	if err != nil || !strings.Contains(q, `read_csv('it''s.csv', header = true, all_varchar = true)`) {
		t.Errorf("CSV path not quoted as a string: %v\n%s", err, q)
	}
}

func ExampleQuery() {
	spec := Spec{Learner: learners.KindKDE, Bins: 8, Features: []Feature{{Name: "age", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 50}}}
	q, err := Query(spec, Postgres, Table("patients"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(q)
	// Output:
	// -- Bernstein Release aggregate query (issue 20): kde, 1 feature column, B = 8 bins per axis, dialect postgres.
	// -- Written from public inputs only (bounds, fill values, classes, bins); run it where the data live
	// -- and give its result table to bernstein. docs/aggregates.md explains every step.
	// WITH src AS (
	//   SELECT TRIM(CAST("age" AS text)) AS t1
	//   FROM "patients"
	// ), parsed AS (
	//   SELECT CASE WHEN t1 ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' THEN CAST(t1 AS double precision) END AS p1
	//   FROM src
	// ), filled AS (
	//   SELECT CASE WHEN p1 BETWEEN (-1.7976931348623157e+308) AND 1.7976931348623157e+308 THEN p1 ELSE 5e+01 END AS v1
	//   FROM parsed
	// ), mapped AS (
	//   SELECT CASE WHEN v1 < 0e+00 THEN 0 WHEN v1 > 1e+02 THEN 1 ELSE LEAST(GREATEST((v1 - 0e+00) / (1e+02 - 0e+00), 0), 1) END AS x1
	//   FROM filled
	// ), binned AS (
	//   SELECT LEAST(CAST(FLOOR(x1 * 8) AS BIGINT), 7) AS b1
	//   FROM mapped
	// )
	// SELECT b1 AS bin_1, COUNT(*) AS records
	// FROM binned
	// GROUP BY b1
	// ORDER BY b1;
}
