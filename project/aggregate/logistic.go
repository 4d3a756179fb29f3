package aggregate

// Logistic regression from aggregates (issue 20): one query per Newton
// pass, with the current weights written into it as the margin's
// coefficients (learners.LogisticCoef), returning the sums of the
// log-loss gradient and Hessian in mapped units (learners.LogisticSums).
// learners.FitLogisticAggregates drives the passes; FitLogistic connects
// it to an engine. docs/aggregates.md, "Logistic regression: Newton
// passes"; docs/sensitivity.md, "Logistic regression from aggregates".

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// oneTable refuses the learners whose aggregate is not one table: logistic
// regression needs one pass per Newton iteration (LogisticQuery). Query and
// ReadResultCSV call it, so bernstein aggregate-sql and release
// --aggregates say so.
func oneTable(spec Spec) error {
	if spec.Learner == learners.KindLogistic {
		return specError("learner", "logistic regression needs one pass over the records per Newton iteration, "+
			"with the current weights written into each pass's query, so no single query or result table suffices: "+
			"release it from the CSV or Parquet file itself, where the embedded DuckDB engine runs the passes "+
			"(docs/aggregates.md, \"Logistic regression: Newton passes\")")
	}
	return nil
}

// LogisticColumns returns the header of a pass's result table for ℓ
// features: records, sum_g, sum_g_x1 … sum_g_xℓ, sum_h, sum_h_x1 …
// sum_h_xℓ, sum_h_x1_x1, sum_h_x1_x2, … sum_h_xℓ_xℓ (j ≤ k).
func LogisticColumns(dim int) []string {
	cols := []string{"records", "sum_g"}
	for j := 1; j <= dim; j++ {
		cols = append(cols, fmt.Sprintf("sum_g_x%d", j))
	}
	cols = append(cols, "sum_h")
	for j := 1; j <= dim; j++ {
		cols = append(cols, fmt.Sprintf("sum_h_x%d", j))
	}
	for j := 1; j <= dim; j++ {
		for k := j; k <= dim; k++ {
			cols = append(cols, fmt.Sprintf("sum_h_x%d_x%d", j, k))
		}
	}
	return cols
}

// logisticSpec checks a logistic Spec (Validate, and the learner).
func logisticSpec(spec Spec) error {
	if spec.Learner != learners.KindLogistic {
		return specError("learner", "%s: a Newton pass is for logistic regression", spec.Learner)
	}
	return spec.Validate()
}

// LogisticQuery writes the query of one Newton pass of logistic regression
// in dialect d, reading from src: steps 1–4 of every query (the number
// rule, fill values, declared classes, clipping to the public bounds),
// then per record the margin m = l·(A0 + Σ A_j·x_j) with the coefficients
// written as literals, e = exp(max(−|m|, −700)), ψ = −l·σ(−m) (e/(1+e) for
// m ≥ 0, 1/(1+e) otherwise) and h = e/(1+e)², and one row of sums
// (LogisticColumns): the gradient sums of ψ·x_j cast to exact decimals
// (as ridge's), the Hessian sums in double precision (they only steer
// Newton). It depends on public inputs and coef only; the same inputs give
// the same bytes (golden files).
func LogisticQuery(spec Spec, d Dialect, src Source, coef learners.LogisticCoef) (string, error) {
	if _, err := ParseDialect(string(d)); err != nil {
		return "", err
	}
	if err := logisticSpec(spec); err != nil {
		return "", err
	}
	dim := len(spec.Features)
	if len(coef.A) != dim {
		return "", specError("coefficients", "%d for %d feature columns", len(coef.A), dim)
	}
	terms := []string{lit(coef.A0)}
	for j, a := range coef.A {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return "", specError("coefficients", "%v is not a finite number", a)
		}
		terms = append(terms, fmt.Sprintf("%s * x%d", lit(a), j+1))
	}
	if math.IsNaN(coef.A0) || math.IsInf(coef.A0, 0) {
		return "", specError("coefficients", "%v is not a finite number", coef.A0)
	}
	from, err := src.from(d)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-- Bernstein Release Newton pass (issue 20): logistic, %d feature column%s, dialect %s.\n", dim, plural(dim), d)
	b.WriteString("-- Written from public inputs only (bounds, fill values, classes) and the current weights, the margin's\n")
	b.WriteString("-- coefficients; bernstein runs one such pass per Newton step. docs/aggregates.md explains every step.\n")
	writeMapped(&b, spec, d, src, from)
	xs := make([]string, dim)
	for j := range xs {
		xs[j] = fmt.Sprintf("x%d", j+1)
	}
	x := strings.Join(xs, ", ")
	fmt.Fprintf(&b, ", margin AS (\n  SELECT %s, y, y * (%s) AS m\n  FROM mapped\n)", x, strings.Join(terms, " + "))
	fmt.Fprintf(&b, ", expm AS (\n  SELECT %s, y, m, EXP(GREATEST(-ABS(m), -700)) AS e\n  FROM margin\n)", x)
	fmt.Fprintf(&b, ", terms AS (\n  SELECT %s, -y * CASE WHEN m >= 0 THEN e / (1 + e) ELSE 1 / (1 + e) END AS g,\n         e / ((1 + e) * (1 + e)) AS h\n  FROM expm\n)", x)
	ty := typesOf(d)
	b.WriteString("\nSELECT COUNT(*) AS records")
	exact := func(expr, alias string) {
		fmt.Fprintf(&b, ",\n  SUM(CAST(%s AS %s)) AS %s", expr, ty.exact, alias)
	}
	double := func(expr, alias string) { fmt.Fprintf(&b, ",\n  SUM(%s) AS %s", expr, alias) }
	exact("g", "sum_g")
	for j := 1; j <= dim; j++ {
		exact(fmt.Sprintf("g * x%d", j), fmt.Sprintf("sum_g_x%d", j))
	}
	double("h", "sum_h")
	for j := 1; j <= dim; j++ {
		double(fmt.Sprintf("h * x%d", j), fmt.Sprintf("sum_h_x%d", j))
	}
	for j := 1; j <= dim; j++ {
		for k := j; k <= dim; k++ {
			double(fmt.Sprintf("h * x%d * x%d", j, k), fmt.Sprintf("sum_h_x%d_x%d", j, k))
		}
	}
	b.WriteString("\nFROM terms;\n")
	return b.String(), nil
}

// ReadLogisticPassCSV reads the result table of one pass (LogisticQuery)
// from a CSV file with a header row (the columns of LogisticColumns, in any
// order), by dataset.ReadCSV's strict rules: one row, records a whole
// number. Errors name the file, line and column. It does not compare the
// count with the declared n: learners.FitLogisticAggregates does.
func ReadLogisticPassCSV(path string, spec Spec) (learners.LogisticSums, error) {
	dim := len(spec.Features)
	cols := LogisticColumns(dim)
	t, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: cols})
	if err != nil {
		return learners.LogisticSums{}, err
	}
	for i, c := range t.Columns {
		if !slices.Contains(cols, c) {
			return learners.LogisticSums{}, &dataset.CSVError{File: path, Line: 1, Column: i + 1, ColumnName: c, Rule: fmt.Sprintf("not a column of a logistic pass's table (want %s)", quoteNames(cols))}
		}
	}
	if t.Rows != 1 {
		return learners.LogisticSums{}, &dataset.CSVError{File: path, Rule: fmt.Sprintf("%d data rows; a logistic pass's table is one row of sums", t.Rows)}
	}
	v := func(name string) float64 { c, _ := t.Column(name); return c[0] }
	rec := v("records")
	if rec != math.Trunc(rec) || rec < 0 || rec > 1<<53 {
		return learners.LogisticSums{}, &dataset.CSVError{File: path, Line: 2, ColumnName: "records", Rule: fmt.Sprintf("%v is not a whole number in [0, 2^53]", rec)}
	}
	s := learners.LogisticSums{Records: int64(rec)}
	for _, c := range cols[1:] {
		switch {
		case strings.HasPrefix(c, "sum_g"):
			s.G = append(s.G, v(c))
		case strings.Count(c, "_x") == 2:
			s.HXX = append(s.HXX, v(c))
		default:
			s.H = append(s.H, v(c))
		}
	}
	return s, nil
}

// LogisticTermError is the public error model of a pass computed by an
// engine of dialect d on ℓ features with coefficients of L1 norm ≤ a
// (learners.LogisticPasser.TermError): per record, the margin's rounding
// (ℓ products and ℓ additions, |x_j| ≤ 1: ≤ γ_{ℓ+3}·a) through ψ, which
// is ¼-Lipschitz in the margin; the exponential (assumed within 8 ulp:
// C's exp in DuckDB and PostgreSQL, Java's Math.exp in Spark are within
// 1 ulp), the additions and divisions of ψ (≤ 16u in all); the clamp at
// e⁻⁷⁰⁰ (≤ 10⁻³⁰⁰); and, as for ridge's sums (sumError), the product
// with x_j, the cast to an exact decimal and the reading back of the sum.
// docs/sensitivity.md, "Logistic regression from aggregates".
func LogisticTermError(d Dialect, dim int, a float64) float64 {
	const u = 0x1p-53
	k := float64(dim+3) * u
	return (0.25*k/(1-k)*a + 16*u + 1e-300 + sumError(d, 1)) * (1 + 1e-9)
}

// logisticPasser is the learners.LogisticPasser of an engine: each pass
// writes LogisticQuery, runs it with run (which writes the result table
// as CSV with a header to out) and reads it back.
type logisticPasser struct {
	spec   Spec
	d      Dialect
	src    Source
	dir    string
	passes int
	run    func(ctx context.Context, query, out string) error
}

func (p *logisticPasser) Pass(ctx context.Context, coef learners.LogisticCoef) (learners.LogisticSums, error) {
	q, err := LogisticQuery(p.spec, p.d, p.src, coef)
	if err != nil {
		return learners.LogisticSums{}, err
	}
	p.passes++
	out := filepath.Join(p.dir, fmt.Sprintf("pass-%d.csv", p.passes))
	if err := p.run(ctx, q, out); err != nil {
		return learners.LogisticSums{}, err
	}
	defer os.Remove(out)
	return ReadLogisticPassCSV(out, p.spec)
}

func (p *logisticPasser) TermError(a float64) float64 {
	return LogisticTermError(p.d, len(p.spec.Features), a)
}

// FitLogistic fits logistic regression (learners.FitLogisticAggregates)
// by Newton passes of LogisticQuery in dialect d over src, each run by
// run, which must write the query's one-row result as a CSV file with a
// header row to out (a path in a private temporary folder, removed
// afterwards). spec.N is the public, declared n: every pass must count
// it. The records stay in the engine; Go holds one row of sums per pass.
// Errors: the spec's (learner logistic, n ≥ 1), run's, a pass table's
// (ReadLogisticPassCSV) and the fit's.
func FitLogistic(ctx context.Context, spec Spec, d Dialect, src Source, values learners.Values,
	run func(ctx context.Context, query, out string) error) (*learners.Fitted, error) {
	if err := logisticSpec(spec); err != nil {
		return nil, err
	}
	if spec.N < 1 {
		return nil, specError("n", "declare the public number of records n (at least 1): it is never taken from the aggregates")
	}
	if _, err := src.from(d); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bernstein-logistic-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	p := &logisticPasser{spec: spec, d: d, src: src, dir: dir, run: run}
	return learners.FitLogisticAggregates(ctx, learners.LogisticAggregates{Dim: len(spec.Features), N: spec.N}, p, values)
}
