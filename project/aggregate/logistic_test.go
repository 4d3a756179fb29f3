package aggregate

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/internal/golden"
)

// logisticGoldenSpec is the spec of the Newton pass kept under testdata/.
func logisticGoldenSpec() Spec {
	return Spec{Learner: learners.KindLogistic, Features: []Feature{
		{Name: "age", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 50},
		{Name: "income", Bounds: dataset.Bounds{Lo: -1000, Hi: 2.5e5}, Fill: 0},
	}, Label: &Label{Name: "outcome", Classes: &dataset.Classes{Negative: "no", Positive: "1"}, FillClass: -1}}
}

// logisticGoldenCoef are coefficients with a negative, a tiny and a large
// value, so every literal form is in the golden text.
var logisticGoldenCoef = learners.LogisticCoef{A0: -0.25, A: []float64{1.5e-7, 12.75}}

// TestLogisticQueryGolden keeps a Newton pass's text in every dialect
// under testdata/logistic.<dialect>.sql (PostgreSQL and Spark: text only;
// the DuckDB text runs in project/aggregate/duckdb).
func TestLogisticQueryGolden(t *testing.T) {
	for _, d := range Dialects {
		t.Run(string(d), func(t *testing.T) {
			q, err := LogisticQuery(logisticGoldenSpec(), d, Table("records"), logisticGoldenCoef)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "logistic."+string(d)+".sql"), []byte(q))
		})
	}
}

// TestLogisticQueryQuotesHostileNames: as TestQueryQuotesHostileNames, for
// a feature, the label and the table of a Newton pass.
func TestLogisticQueryQuotesHostileNames(t *testing.T) {
	for _, d := range Dialects {
		for _, name := range hostileNames {
			plain, hostile := logisticGoldenSpec(), logisticGoldenSpec()
			plain.Features[0].Name, hostile.Features[0].Name = "plain_name", name
			hostileLabel := logisticGoldenSpec()
			hostileLabel.Label = &Label{Name: name, Classes: plain.Label.Classes, FillClass: -1}
			qp, err := LogisticQuery(plain, d, Table("records"), logisticGoldenCoef)
			if err != nil {
				t.Fatal(err)
			}
			qh, err := LogisticQuery(hostile, d, Table(name), logisticGoldenCoef)
			if err != nil {
				t.Fatalf("%s %q: %v", d, name, err)
			}
			qi := QuoteIdent(d, name)
			if got, want := strings.ReplaceAll(qh, qi, QuoteIdent(d, "plain_name")), strings.ReplaceAll(qp, QuoteIdent(d, "records"), QuoteIdent(d, "plain_name")); got != want {
				t.Errorf("%s %q: the name changed the query beyond its quoted identifier:\n%s", d, name, qh)
			}
			ql, err := LogisticQuery(hostileLabel, d, Table("records"), logisticGoldenCoef)
			if err != nil {
				t.Fatalf("%s label %q: %v", d, name, err)
			}
			q0, _ := LogisticQuery(logisticGoldenSpec(), d, Table("records"), logisticGoldenCoef)
			if got := strings.Replace(ql, qi, QuoteIdent(d, "outcome"), 1); got != q0 {
				t.Errorf("%s label %q: the name changed the query beyond its quoted identifier:\n%s", d, name, ql)
			}
		}
	}
}

// FuzzLogisticQuery: whatever a feature's name and the coefficients, a
// valid spec gives a query that is the plain-name query with the name's
// quoted form in its place, and the coefficients appear as the literals
// that read back as the same doubles.
func FuzzLogisticQuery(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n, -0.25, 1.5e-7)
	}
	f.Add("x", math.MaxFloat64, -math.SmallestNonzeroFloat64)
	f.Fuzz(func(t *testing.T, name string, a0, a1 float64) {
		spec := logisticGoldenSpec()
		spec.Features[0].Name = name
		coef := learners.LogisticCoef{A0: a0, A: []float64{a1, 2}}
		if spec.Validate() != nil || name == "income" || name == "plain_name" || name == "outcome" || name == "records" {
			return
		}
		for _, d := range Dialects {
			q, err := LogisticQuery(spec, d, Table("records"), coef)
			finite := !math.IsNaN(a0) && !math.IsInf(a0, 0) && !math.IsNaN(a1) && !math.IsInf(a1, 0)
			if (err == nil) != finite {
				t.Fatalf("%s: coefficients %v, %v: err = %v", d, a0, a1, err)
			}
			if !finite {
				continue
			}
			plain := logisticGoldenSpec()
			plain.Features[0].Name = "plain_name"
			qp, err := LogisticQuery(plain, d, Table("records"), coef)
			if err != nil {
				t.Fatal(err)
			}
			if strings.ReplaceAll(q, QuoteIdent(d, name), QuoteIdent(d, "plain_name")) != qp {
				t.Fatalf("%s %q: the name changed the query beyond its quoted identifier", d, name)
			}
			if want := "y * (" + lit(a0) + " + " + lit(a1) + " * x1 + 2e+00 * x2) AS m"; !strings.Contains(q, want) {
				t.Fatalf("%s: margin %q not in the query", d, want)
			}
		}
	})
}

// TestLogisticNeedsPasses: Query and ReadResultCSV refuse logistic
// regression with the reason (bernstein aggregate-sql and release
// --aggregates show it), and a Newton pass is for logistic only.
func TestLogisticNeedsPasses(t *testing.T) {
	spec := logisticGoldenSpec()
	if _, err := Query(spec, Postgres, Table("records")); err == nil || !strings.Contains(err.Error(), "one pass over the records per Newton iteration") {
		t.Errorf("Query(logistic) = %v", err)
	}
	if _, err := ReadResultCSV("nonexistent.csv", spec, DuckDB); err == nil || !strings.Contains(err.Error(), "embedded DuckDB") {
		t.Errorf("ReadResultCSV(logistic) = %v", err)
	}
	if _, err := LogisticQuery(goldenSpecs()["ridge"], DuckDB, Table("records"), logisticGoldenCoef); err == nil || !strings.Contains(err.Error(), "for logistic regression") {
		t.Errorf("LogisticQuery(ridge) = %v", err)
	}
	if _, err := LogisticQuery(spec, DuckDB, Table("records"), learners.LogisticCoef{A: []float64{1}}); err == nil || !strings.Contains(err.Error(), "1 for 2 feature columns") {
		t.Errorf("LogisticQuery(1 coefficient) = %v", err)
	}
	if _, err := LogisticQuery(spec, Postgres, CSVFile("x.csv"), logisticGoldenCoef); err == nil {
		t.Error("LogisticQuery(postgres, CSV file) accepted")
	}
}

func TestReadLogisticPassCSV(t *testing.T) {
	spec := logisticGoldenSpec()
	dir := t.TempDir()
	write := func(text string) string {
		p := filepath.Join(dir, "pass.csv")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := strings.Join(LogisticColumns(2), ",")
	s, err := ReadLogisticPassCSV(write(head+"\n10,-1.5,0.25,-2,2.5,1,1.5,0.5,0.25,0.75\n"), spec)
	if err != nil {
		t.Fatal(err)
	}
	want := learners.LogisticSums{Records: 10, G: []float64{-1.5, 0.25, -2}, H: []float64{2.5, 1, 1.5}, HXX: []float64{0.5, 0.25, 0.75}}
	if s.Records != want.Records || !slices.Equal(s.G, want.G) || !slices.Equal(s.H, want.H) || !slices.Equal(s.HXX, want.HXX) {
		t.Errorf("read %+v, want %+v", s, want)
	}
	for _, tc := range []struct{ text, want string }{
		{head + "\n10,1,1,1,1,1,1,1,1,1\n11,1,1,1,1,1,1,1,1,1\n", "2 data rows"},
		{head + "\n10.5,1,1,1,1,1,1,1,1,1\n", "not a whole number"},
		{head + ",extra\n10,1,1,1,1,1,1,1,1,1,1\n", "not a column of a logistic pass"},
		{"records,sum_g\n1,2\n", "no such column"},
		{head + "\n10,x,1,1,1,1,1,1,1,1\n", "sum_g"},
	} {
		var ce *dataset.CSVError
		if _, err := ReadLogisticPassCSV(write(tc.text), spec); !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a *CSVError containing %q", tc.text, err, tc.want)
		}
	}
}

// TestFitLogisticFakeEngine drives FitLogistic with an engine that
// evaluates the pass in Go from records of known mapped values, checks
// every query it is given is LogisticQuery's for the pass, and compares
// the fit with the in-memory learner: scores within 2τ.
func TestFitLogisticFakeEngine(t *testing.T) {
	spec := logisticGoldenSpec()
	spec.Features = spec.Features[:1]
	spec.Features[0].Bounds, spec.Features[0].Fill = dataset.Bounds{Lo: 0, Hi: 1}, 0.5
	xs := []float64{0.1, 0.2, 0.3, 0.35, 0.4, 0.6, 0.62, 0.7, 0.8, 0.9, 0.45, 0.55}
	ls := []float64{-1, -1, -1, 1, -1, 1, -1, 1, 1, 1, 1, -1}
	spec.N = len(xs)
	data := learners.Dataset{X: xs, Dim: 1, Labels: ls}
	passes := 0
	run := func(ctx context.Context, query, out string) error {
		passes++
		i := strings.Index(query, "y * (")
		if i < 0 || !strings.HasPrefix(query, "-- Bernstein Release Newton pass") {
			return errors.New("not a Newton pass")
		}
		var a0, a1 float64
		expr := query[i+len("y * (") : strings.Index(query[i:], ") AS m")+i]
		parts := strings.Split(expr, " + ")
		a0 = parseLit(t, parts[0])
		a1 = parseLit(t, strings.TrimSuffix(parts[1], " * x1"))
		var g0, g1, h0, h1, h11 float64
		for k, x := range xs {
			m := ls[k] * (a0 + a1*x)
			e := math.Exp(math.Max(-math.Abs(m), -700))
			sig := 1 / (1 + e)
			if m >= 0 {
				sig = e / (1 + e)
			}
			g, h := -ls[k]*sig, e/((1+e)*(1+e))
			g0, g1, h0, h1, h11 = g0+g, g1+g*x, h0+h, h1+h*x, h11+h*x*x
		}
		text := strings.Join(LogisticColumns(1), ",") + "\n" + strings.Join([]string{itoa(len(xs)), ftoa(g0), ftoa(g1), ftoa(h0), ftoa(h1), ftoa(h11)}, ",") + "\n"
		return os.WriteFile(out, []byte(text), 0o600)
	}
	vals := learners.Values{"C": {3}}
	fit, err := FitLogistic(context.Background(), spec, DuckDB, Table("records"), vals, run)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := learners.NewLogistic().Fit(context.Background(), data, vals)
	if err != nil {
		t.Fatal(err)
	}
	tau := 0.01 * 3 / float64(len(xs))
	for _, y := range []float64{0, 0.25, 0.5, 0.75, 1} {
		if d := math.Abs(fit.Oracle.Eval([]float64{y}) - mem.Oracle.Eval([]float64{y})); d > 2*tau {
			t.Errorf("F(%v): aggregates and in memory differ by %.3g > 2τ = %.3g", y, d, 2*tau)
		}
	}
	if fit.Sensitivity != mem.Sensitivity {
		t.Errorf("S = %v, in memory %v", fit.Sensitivity, mem.Sensitivity)
	}
	if passes < 2 {
		t.Errorf("%d passes", passes)
	}
	spec.N = 0
	if _, err := FitLogistic(context.Background(), spec, DuckDB, Table("records"), vals, run); err == nil || !strings.Contains(err.Error(), "declare the public number of records") {
		t.Errorf("n = 0: %v", err)
	}
}

func parseLit(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.Trim(s, "()"), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
