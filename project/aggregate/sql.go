package aggregate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// Dialect is an SQL engine the query is written for.
type Dialect string

// The dialects of issue 20: the embedded default and the curator's own
// engines.
const (
	DuckDB   Dialect = "duckdb"
	Postgres Dialect = "postgres"
	Spark    Dialect = "spark"
)

// Dialects lists every dialect, in the order of the command-line help.
var Dialects = []Dialect{DuckDB, Postgres, Spark}

// ParseDialect returns the dialect named s, or an error listing them.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("aggregate: dialect %q: want duckdb, postgres or spark", s)
}

// numberPattern is dataset.ParseNumber's syntax as a regular expression
// that RE2 (DuckDB), POSIX (PostgreSQL) and java.util.regex (Spark) read
// alike: no backslashes, no classes beyond [0-9]. Finiteness is checked
// after the cast (finiteCheck).
const numberPattern = `^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$`

// Source is what the query reads FROM: a table of the curator's engine
// (Table) or, for the embedded DuckDB, a file (CSVFile, ParquetFiles).
type Source struct {
	table string // a table name, quoted per dialect
	csv   string // a CSV file path (DuckDB only)
	pq    string // a Parquet file, folder glob or path (DuckDB only)
	// numeric are columns stored as DOUBLE or integers (WithNumericColumns).
	numeric []string
}

// WithNumericColumns returns s noting that the named columns are stored
// as DOUBLE or as integers of at most 32 bits, or BIGINT (the embedded
// DuckDB reads this from a Parquet file's schema: duckdb.NumericColumns).
// The DuckDB query then reads them as numbers, without step 1's text and
// step 2's pattern: the same values, because the text of a finite such
// value is a decimal in the number syntax that reads back as the same
// double (DuckDB prints doubles in shortest round-trip form; integers
// convert with one correct rounding either way), and NULL and non-finite
// values are filled either way (step 3). Other dialects ignore it, as do
// binary label columns (classes are matched as text).
func (s Source) WithNumericColumns(names ...string) Source {
	s.numeric = append([]string(nil), names...)
	return s
}

// FromClause is the FROM item of the source in dialect d (a quoted table
// name, DuckDB's read_csv or read_parquet call), for an engine that needs
// the source's schema before running the query.
func (s Source) FromClause(d Dialect) (string, error) { return s.from(d) }

// Table reads the records from the named table (one identifier, quoted
// like a column name: "my.table" is one name, not a schema and a table).
func Table(name string) Source { return Source{table: name} }

// CSVFile reads a CSV file with a header row through DuckDB's read_csv,
// every column as text (the number rule is the query's, not DuckDB's
// type detection). DuckDB only.
func CSVFile(path string) Source { return Source{csv: path} }

// ParquetFiles reads a Parquet file, or every file matched by a glob such
// as "folder/*.parquet", through DuckDB's read_parquet. DuckDB only.
func ParquetFiles(pathOrGlob string) Source { return Source{pq: pathOrGlob} }

// from returns the FROM item of the source in dialect d.
func (s Source) from(d Dialect) (string, error) {
	switch {
	case s.csv != "" && d == DuckDB:
		return "read_csv(" + quoteString(d, s.csv) + ", header = true, all_varchar = true)", nil
	case s.pq != "" && d == DuckDB:
		return "read_parquet(" + quoteString(d, s.pq) + ")", nil
	case s.csv != "" || s.pq != "":
		return "", fmt.Errorf("aggregate: reading files directly is for the embedded DuckDB; in %s, read from a table", d)
	case s.table == "":
		return "", fmt.Errorf("aggregate: no source table")
	}
	if err := checkName("table", s.table); err != nil {
		return "", err
	}
	return QuoteIdent(d, s.table), nil
}

// QuoteIdent quotes an identifier for dialect d: "…" with " doubled
// (DuckDB, PostgreSQL), `…` with ` doubled (Spark). Whatever the name
// holds, the result is one identifier.
func QuoteIdent(d Dialect, name string) string {
	if d == Spark {
		return "`" + strings.ReplaceAll(name, "`", "``") + "`"
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// quoteString writes s as a string literal of dialect d: '…' with '
// doubled (DuckDB, PostgreSQL with standard_conforming_strings, the
// default since 9.1); Spark reads backslash escapes in literals, so there
// \ and ' are escaped with a backslash.
func quoteString(d Dialect, s string) string {
	if d == Spark {
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`)
		return "'" + r.Replace(s) + "'"
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// lit writes a float64 so that every dialect reads back the same double:
// the shortest exponent form ("5e-01"), which DuckDB and Spark read as a
// DOUBLE literal and PostgreSQL as an exact numeric converted to the
// nearest double. Negative values are parenthesised.
func lit(v float64) string {
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if v < 0 {
		return "(" + s + ")"
	}
	return s
}

// types of a dialect.
type dialectTypes struct {
	text, double, exact string
	tryCast             bool
}

func typesOf(d Dialect) dialectTypes {
	switch d {
	case Postgres:
		return dialectTypes{text: "text", double: "double precision", exact: "numeric"}
	case Spark:
		return dialectTypes{text: "STRING", double: "DOUBLE", exact: "DECIMAL(38,24)", tryCast: true}
	}
	return dialectTypes{text: "VARCHAR", double: "DOUBLE", exact: "DECIMAL(38,24)", tryCast: true}
}

// matchNumber is the test that text t is in the number syntax.
func matchNumber(d Dialect, t string) string {
	p := quoteString(d, numberPattern)
	switch d {
	case Postgres:
		return t + " ~ " + p
	case Spark:
		return t + " RLIKE " + p
	}
	return "regexp_matches(" + t + ", " + p + ")"
}

// column is one used column of the query, with its aliases t<i>, p<i>,
// v<i>, x<i> in the successive steps.
type column struct {
	name  string
	alias string // "1", "2", …, or "y" for the label
}

// Query writes the aggregate query of spec in dialect d, reading from src.
// It depends on the Spec's public fields only (N is not used). The text
// is deterministic: the same inputs give the same bytes (golden files).
func Query(spec Spec, d Dialect, src Source) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", err
	}
	if err := spec.Validate(); err != nil {
		return "", err
	}
	if err := oneTable(spec); err != nil {
		return "", err
	}
	from, err := src.from(d)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	dim := len(spec.Features)
	fmt.Fprintf(&b, "-- Bernstein Release aggregate query (issue 20): %s, %d feature column%s", spec.Learner, dim, plural(dim))
	if spec.Learner != learners.KindRidge {
		fmt.Fprintf(&b, ", B = %d bins per axis", spec.bins())
	}
	fmt.Fprintf(&b, ", dialect %s.\n", d)
	b.WriteString("-- Written from public inputs only (bounds, fill values, classes, bins); run it where the data live\n")
	b.WriteString("-- and give its result table to bernstein. docs/aggregates.md explains every step.\n")
	cols, binary := writeMapped(&b, spec, d, src, from)
	ty := typesOf(d)

	// 5. The aggregate.
	switch spec.Learner {
	case learners.KindKDE, learners.KindNaiveBayes:
		bins := spec.bins()
		binCols := cols[:dim]
		if binary {
			binCols = cols
		}
		step(&b, "binned", "mapped", binCols, func(c column) string {
			if c.alias == "y" {
				return "y"
			}
			return fmt.Sprintf("LEAST(CAST(FLOOR(x%s * %d) AS BIGINT), %d) AS b%s", c.alias, bins, bins-1, c.alias)
		})
		b.WriteString("\n")
		if spec.Learner == learners.KindKDE {
			b.WriteString("SELECT ")
			for j := range dim {
				fmt.Fprintf(&b, "b%d AS bin_%d, ", j+1, j+1)
			}
			list := make([]string, dim)
			for j := range list {
				list[j] = fmt.Sprintf("b%d", j+1)
			}
			fmt.Fprintf(&b, "COUNT(*) AS records\nFROM binned\nGROUP BY %s\nORDER BY %s;\n", strings.Join(list, ", "), strings.Join(list, ", "))
			break
		}
		for j := range dim {
			if j > 0 {
				b.WriteString("UNION ALL\n")
			}
			fmt.Fprintf(&b, "SELECT CAST(y AS BIGINT) AS class, %d AS feature, b%d AS bin, COUNT(*) AS records FROM binned GROUP BY y, b%d\n", j+1, j+1, j+1)
		}
		b.WriteString("ORDER BY class, feature, bin;\n")
	case learners.KindRidge:
		b.WriteString("\nSELECT COUNT(*) AS records")
		sum := func(expr, alias string) {
			fmt.Fprintf(&b, ",\n  SUM(CAST(%s AS %s)) AS %s", expr, ty.exact, alias)
		}
		for j := 1; j <= dim; j++ {
			sum(fmt.Sprintf("x%d", j), fmt.Sprintf("sum_x%d", j))
		}
		for j := 1; j <= dim; j++ {
			for k := j; k <= dim; k++ {
				sum(fmt.Sprintf("x%d * x%d", j, k), fmt.Sprintf("sum_x%d_x%d", j, k))
			}
		}
		for j := 1; j <= dim; j++ {
			sum(fmt.Sprintf("x%d * y", j), fmt.Sprintf("sum_x%d_y", j))
		}
		sum("y", "sum_y")
		b.WriteString("\nFROM mapped;\n")
	}
	return b.String(), nil
}

// writeMapped writes steps 1–4 of every query (docs/aggregates.md), from
// "WITH" to the CTE "mapped" holding x1 … xℓ in [0, 1] and y (a real
// label in [−1, 1], a binary one coded −1/+1), and returns the used
// columns and whether the label is binary.
func writeMapped(b *strings.Builder, spec Spec, d Dialect, src Source, from string) ([]column, bool) {
	dim := len(spec.Features)
	cols := make([]column, 0, dim+1)
	for j, f := range spec.Features {
		cols = append(cols, column{name: f.Name, alias: strconv.Itoa(j + 1)})
	}
	if spec.Label != nil {
		cols = append(cols, column{name: spec.Label.Name, alias: "y"})
	}
	ty := typesOf(d)
	binary := spec.Label != nil && spec.Label.Classes != nil

	// 1. The used columns as trimmed text, whatever their type in the source.
	b.WriteString("WITH")
	numeric := func(c column) bool {
		return d == DuckDB && !(binary && c.alias == "y") && slices.Contains(src.numeric, c.name)
	}
	step(b, "src", from, cols, func(c column) string {
		if numeric(c) {
			return fmt.Sprintf("CAST(%s AS %s) AS t%s", QuoteIdent(d, c.name), ty.double, c.alias)
		}
		return fmt.Sprintf("TRIM(CAST(%s AS %s)) AS t%s", QuoteIdent(d, c.name), ty.text, c.alias)
	})
	// 2. Numbers in the number syntax (NULL otherwise); class labels coded.
	step(b, "parsed", "src", cols, func(c column) string {
		if binary && c.alias == "y" {
			return classCode(d, spec.Label, "ty")
		}
		if numeric(c) {
			return fmt.Sprintf("t%s AS p%s", c.alias, c.alias)
		}
		return fmt.Sprintf("%s AS p%s", parseNumberSQL(d, "t"+c.alias), c.alias)
	})
	// 3. Missing, non-numeric or non-finite values replaced by the declared fill.
	step(b, "filled", "parsed", cols, func(c column) string {
		if binary && c.alias == "y" {
			return "py AS y"
		}
		p := "p" + c.alias
		return fmt.Sprintf("CASE WHEN %s BETWEEN %s AND %s THEN %s ELSE %s END AS v%s", p, lit(-math.MaxFloat64), lit(math.MaxFloat64), p, lit(fillOf(spec, c.alias)), c.alias)
	})
	// 4. Mapped to [0, 1] (features) or [−1, 1] (real label) by the public bounds, clipped.
	step(b, "mapped", "filled", cols, func(c column) string {
		if binary && c.alias == "y" {
			return "y"
		}
		v := "v" + c.alias
		bd := boundsOf(spec, c.alias)
		unit := fmt.Sprintf("CASE WHEN %s < %s THEN 0 WHEN %s > %s THEN 1 ELSE LEAST(GREATEST((%s - %s) / (%s - %s), 0), 1) END",
			v, lit(bd.Lo), v, lit(bd.Hi), v, lit(bd.Lo), lit(bd.Hi), lit(bd.Lo))
		if c.alias == "y" {
			return fmt.Sprintf("2 * (%s) - 1 AS y", unit)
		}
		return fmt.Sprintf("%s AS x%s", unit, c.alias)
	})

	return cols, binary
}

// classCode codes the trimmed text t of a binary label as the learner
// label, by dataset.Classes.Code's rule: the negative class's text, the
// positive class's text, then (for a class declared as a number) the same
// numeric value; anything else, NULL included, is the fill class. The
// number is read inside its own CASE, after the pattern test (PostgreSQL
// does not promise to evaluate the operands of AND in order).
func classCode(d Dialect, l *Label, t string) string {
	c := l.Classes
	var b strings.Builder
	fmt.Fprintf(&b, "CASE WHEN %s = %s THEN -1 WHEN %s = %s THEN 1", t, quoteString(d, c.Negative), t, quoteString(d, c.Positive))
	for _, cl := range []struct {
		text string
		code int
	}{{c.Negative, -1}, {c.Positive, 1}} {
		if v, err := dataset.ParseNumber(cl.text); err == nil {
			fmt.Fprintf(&b, " WHEN %s = %s THEN %d", parseNumberSQL(d, t), lit(v), cl.code)
		}
	}
	fmt.Fprintf(&b, " ELSE %d END AS py", int(l.FillClass))
	return b.String()
}

// parseNumberSQL is the number read from text t: a double when t is in
// the number syntax, else NULL.
func parseNumberSQL(d Dialect, t string) string {
	ty := typesOf(d)
	cast := "CAST"
	if ty.tryCast {
		cast = "TRY_CAST"
	}
	return fmt.Sprintf("CASE WHEN %s THEN %s(%s AS %s) END", matchNumber(d, t), cast, t, ty.double)
}

func fillOf(s Spec, alias string) float64 {
	if alias == "y" {
		return s.Label.Fill
	}
	j, _ := strconv.Atoi(alias)
	return s.Features[j-1].Fill
}

func boundsOf(s Spec, alias string) dataset.Bounds {
	if alias == "y" {
		return s.Label.Bounds
	}
	j, _ := strconv.Atoi(alias)
	return s.Features[j-1].Bounds
}

// step writes one CTE, "name AS (SELECT expr(c), … FROM from)", after
// "WITH" or the previous step.
func step(b *strings.Builder, name, from string, cols []column, expr func(column) string) {
	if name != "src" {
		b.WriteString(",")
	}
	fmt.Fprintf(b, " %s AS (\n  SELECT ", name)
	for i, c := range cols {
		if i > 0 {
			b.WriteString(",\n         ")
		}
		b.WriteString(expr(c))
	}
	fmt.Fprintf(b, "\n  FROM %s\n)", from)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
