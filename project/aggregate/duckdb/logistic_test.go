//go:build linux && cgo

package duckdb

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// logisticSpec is a logistic spec on two features (one with a hostile
// name) and a text class label.
func logisticSpec(n int) aggregate.Spec {
	s := kdeSpec("age", `in"come; --`)
	s.Learner = learners.KindLogistic
	s.Bins = 0
	s.Label = &aggregate.Label{Name: "label", Classes: &dataset.Classes{Negative: "no", Positive: "yes"}, FillClass: -1}
	s.N = n
	return s
}

// checkLogisticLattice compares a fit from passes with the in-memory fit
// of the same records: the same S and range, and scores within 2τ of each
// other on the 11 × 11 lattice (both are within τ of w*, ‖ỹ‖ ≤ 1), so the
// released lattices' exact values differ by at most 2τ.
func checkLogisticLattice(t *testing.T, what string, agg, mem *learners.Fitted, n int, c float64) {
	t.Helper()
	if agg.Sensitivity != mem.Sensitivity || agg.OutputRange != mem.OutputRange {
		t.Errorf("%s: S %v range %v; in memory %v %v", what, agg.Sensitivity, agg.OutputRange, mem.Sensitivity, mem.OutputRange)
	}
	tau := 0.01 * c / float64(n)
	worst := 0.0
	for i := range 121 {
		y := []float64{float64(i/11) / 10, float64(i%11) / 10}
		worst = math.Max(worst, math.Abs(agg.Oracle.Eval(y)-mem.Oracle.Eval(y)))
	}
	if worst > 2*tau {
		t.Errorf("%s: lattice values differ by up to %.3g > 2τ = %.3g", what, worst, 2*tau)
	}
	t.Logf("%s: lattice values differ by up to %.3g (2τ = %.3g)", what, worst, 2*tau)
}

// TestLogisticMatchesInMemory fits logistic regression by Newton passes on
// the embedded DuckDB from a generated CSV (junk values, empty fields,
// out-of-bounds values, labels that are neither class) and from Parquet
// made from it by COPY … TO, and compares with the in-memory fit of the
// same file (checkLogisticLattice).
func TestLogisticMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	spec := logisticSpec(2500)
	path := filepath.Join(dir, "data.csv")
	writeData(t, path, spec, spec.N, 9, true)
	pq := filepath.Join(dir, "data.parquet")
	duckExec(t, "COPY (SELECT * FROM read_csv('"+path+"', header = true, all_varchar = true)) TO '"+pq+"' (FORMAT parquet)")
	d := inMemory(t, path, spec)
	for _, c := range []float64{1, 50} {
		vals := learners.Values{"C": {c}, "intercept": {1.5}}
		mem, err := learners.NewLogistic().Fit(context.Background(), d, vals)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, pq} {
			src, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			agg, err := FitLogistic(context.Background(), spec, src, vals, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkLogisticLattice(t, fmt.Sprintf("%s C=%g", filepath.Base(p), c), agg, mem, spec.N, c)
		}
	}
}

// TestLogisticRefusesWrongN: every pass counts the records, and a count
// that is not the declared n fails (n is public, never taken from data).
func TestLogisticRefusesWrongN(t *testing.T) {
	spec := logisticSpec(300)
	path := filepath.Join(t.TempDir(), "data.csv")
	writeData(t, path, spec, 299, 3, false)
	src, _ := Open(path)
	if _, err := FitLogistic(context.Background(), spec, src, nil, Options{}); err == nil || !strings.Contains(err.Error(), "counted 299 records but the declared n is 300") {
		t.Errorf("FitLogistic = %v", err)
	}
}

// TestLogisticCancelled: a cancelled context stops the passes.
func TestLogisticCancelled(t *testing.T) {
	spec := logisticSpec(100)
	path := filepath.Join(t.TempDir(), "data.csv")
	writeData(t, path, spec, 100, 3, false)
	src, _ := Open(path)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitLogistic(ctx, spec, src, nil, Options{}); err == nil {
		t.Error("FitLogistic ran with a cancelled context")
	}
}

// TestPostgresLogisticMatchesInMemory runs the postgres-dialect Newton
// passes on a private PostgreSQL server (startPostgres: skipped visibly
// only where PostgreSQL is absent, never in CI) over the records of a
// generated CSV with junk values, and compares the fit with the in-memory
// one (checkLogisticLattice) — the error model of PostgreSQL's numeric
// cast (15 significant digits) included.
func TestPostgresLogisticMatchesInMemory(t *testing.T) {
	s := startPostgres(t)
	saved := junk
	junk = pgJunk
	defer func() { junk = saved }()
	spec := logisticSpec(2000)
	path := filepath.Join(t.TempDir(), "data.csv")
	writeData(t, path, spec, spec.N, 11, true)
	s.loadTable(t, spec, path)
	d := inMemory(t, path, spec)
	vals := learners.Values{"C": {5}}
	mem, err := learners.NewLogistic().Fit(context.Background(), d, vals)
	if err != nil {
		t.Fatal(err)
	}
	passes := 0
	agg, err := aggregate.FitLogistic(context.Background(), spec, aggregate.Postgres, aggregate.Table("records"), vals, func(ctx context.Context, query, out string) error {
		passes++
		body := strings.TrimSuffix(strings.TrimSpace(query), ";")
		return os.WriteFile(out, s.psql(t, "COPY (\n"+body+"\n) TO STDOUT WITH (FORMAT csv, HEADER true);\n"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	checkLogisticLattice(t, fmt.Sprintf("postgres (%d passes)", passes), agg, mem, spec.N, 5)
}
