//go:build linux && cgo

package release

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// duckdbExec runs statements on a fresh in-memory DuckDB.
func duckdbExec(t *testing.T, stmts ...string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("duckdb: %v", err)
		}
	}
}

// sqlString writes s as a DuckDB string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// toParquet writes the CSV file csv as a Parquet file with DuckDB, every
// column as text (so junk values stay junk for the query's number rule).
func toParquet(t *testing.T, csv, out string) {
	t.Helper()
	duckdbExec(t, "COPY (SELECT * FROM read_csv("+sqlString(csv)+", header = true, all_varchar = true)) TO "+sqlString(out)+" (FORMAT parquet)")
}

// recordSource is one source of the same records: the file and the size
// threshold that makes SetSource choose the wanted engine.
type recordSource struct {
	name      string
	path      string
	threshold int64
	engine    Engine
}

// everySource returns the sources of issue 20 holding the records of
// junkCSV (n rows): the in-memory CSV reader (a small file), the embedded
// DuckDB on the same CSV (threshold 1 byte) and on a Parquet file of it.
func everySource(t *testing.T, n int) []recordSource {
	dir := t.TempDir()
	csv := junkCSV(t, dir, n)
	pq := filepath.Join(dir, "records.parquet")
	toParquet(t, csv, pq)
	folder := filepath.Join(dir, "parts")
	return []recordSource{
		{"in-memory CSV", csv, 0, EngineMemory},
		{"DuckDB CSV", csv, 1, EngineDuckDB},
		{"DuckDB Parquet", pq, 0, EngineDuckDB},
		{"DuckDB Parquet folder", parquetFolder(t, csv, folder), 0, EngineDuckDB},
	}
}

// parquetFolder writes the records of csv as two Parquet files in folder
// (odd and even rows) and returns the folder.
func parquetFolder(t *testing.T, csv, folder string) string {
	t.Helper()
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, part := range []string{"a.parquet", "b.parquet"} {
		duckdbExec(t, "COPY (SELECT * EXCLUDE (rn) FROM (SELECT *, row_number() OVER () AS rn FROM read_csv("+sqlString(csv)+
			", header = true, all_varchar = true)) WHERE rn % 2 = "+string(rune('0'+i))+") TO "+sqlString(filepath.Join(folder, part))+" (FORMAT parquet)")
	}
	return folder
}

// TestRulesHoldOnEverySource: the in-memory path's rules hold whichever
// source and engine the records come from (issue 20): every row is kept
// and n is public (the fitted n is the row count, junk rows included; a
// declared n that is not it is refused); missing or non-numeric values
// take the declared fill values (the synopsis's fill rules are the same);
// a label value that is neither declared class takes the declared fill
// class, and a fill class that is not declared is refused; the values on
// the lattice agree with the in-memory ones within the binning bound
// (KDE, naive Bayes) or 1e-9 (ridge, exact sums).
func TestRulesHoldOnEverySource(t *testing.T) {
	const n, B = 300, 1024
	classes := dataset.Classes{Negative: "3", Positive: "7"}
	base := Request{
		Features: []string{"x", "y"},
		Bounds:   map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}, "r": {Lo: -5, Hi: 5}},
		Fill:     map[string]float64{"x": 1},
		Privacy:  mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{4, 4}, H: 1},
	}
	kde := base
	kde.Learner, kde.Params = learners.KindKDE, learners.Values{"bandwidth": {0.15}}
	nb := kde
	nb.Learner, nb.Label, nb.Classes, nb.FillClass = learners.KindNaiveBayes, "c", &classes, "7"
	ridge := base
	ridge.Learner, ridge.Label = learners.KindRidge, "r"
	logistic := nb
	logistic.Learner, logistic.Params = learners.KindLogistic, nil
	sources := everySource(t, n)
	for _, req := range []Request{kde, nb, ridge, logistic} {
		var mem *Prepared
		for _, src := range sources {
			name := string(req.Learner) + "/" + src.name
			r := req
			eng, err := SetSource(&r, RecordsFile{Path: src.path, Threshold: src.threshold, Bins: B, Dataset: "every source"})
			if err != nil || eng != src.engine {
				t.Fatalf("%s: engine %q, %v; want %q", name, eng, err, src.engine)
			}
			p, err := Prepare(context.Background(), r, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if p.Fitted.N != n {
				t.Errorf("%s: n = %d, want every row: %d", name, p.Fitted.N, n)
			}
			if mem == nil {
				mem = p
				if mem.Filled["x"]+mem.Filled["y"] == 0 || req.Label == "c" && mem.Filled["c"] == 0 {
					t.Fatalf("%s: nothing filled: the junk does not test the fill rules", name)
				}
				continue
			}
			if !slices.EqualFunc(p.Fill, mem.Fill, func(a, b synopsis.FillRule) bool {
				return a.Column == b.Column && a.Class == b.Class && (a.Value == nil) == (b.Value == nil) && (a.Value == nil || *a.Value == *b.Value)
			}) {
				t.Errorf("%s: fill rules %+v, in memory %+v", name, p.Fill, mem.Fill)
			}
			if !slices.Equal(p.ClassLabels, mem.ClassLabels) {
				t.Errorf("%s: class labels %q, in memory %q", name, p.ClassLabels, mem.ClassLabels)
			}
			if p.Source == nil || p.Source.Dialect != "duckdb" {
				t.Errorf("%s: source %+v, want the embedded DuckDB recorded", name, p.Source)
			}
			bound := 1e-9
			switch req.Learner {
			case learners.KindKDE, learners.KindNaiveBayes:
				bound = learners.KDEBinningBound([]float64{0.15, 0.15}, B)
			case learners.KindLogistic:
				// Newton passes stop at a certified gradient norm: the two
				// fits' scores differ by at most 2τ (docs/sensitivity.md,
				// "Logistic regression from aggregates"), about 1e-5 here.
				bound = 1e-4
			}
			for i := range p.Exact {
				if d := math.Abs(p.Exact[i] - mem.Exact[i]); d > bound {
					t.Errorf("%s: lattice value %d: %v, in memory %v: %v above %v", name, i, p.Exact[i], mem.Exact[i], d, bound)
				}
			}
		}
	}
	// Refusals, the same on every source.
	for _, src := range sources {
		r := kde
		if _, err := SetSource(&r, RecordsFile{Path: src.path, Threshold: src.threshold, N: n + 1}); err == nil {
			if _, err = Prepare(context.Background(), r, nil); err == nil {
				t.Errorf("%s: a declared n of %d for %d rows was accepted", src.name, n+1, n)
			}
		}
		r = nb
		r.FillClass = "9"
		if _, err := SetSource(&r, RecordsFile{Path: src.path, Threshold: src.threshold}); err == nil {
			_, err = Prepare(context.Background(), r, nil)
			var re *RequestError
			if !errors.As(err, &re) {
				t.Errorf("%s: fill class 9, not declared: %v, want a request error", src.name, err)
			}
		}
	}
}

// TestEmbeddedReleaseLedger: a release through the embedded DuckDB
// without a declared dataset is charged to the dataset of the file's
// SHA-256, the one an in-memory release of the same file is charged to
// (the two share one budget), and its synopsis records DuckDB.
func TestEmbeddedReleaseLedger(t *testing.T) {
	const n = 200
	src := everySource(t, n)[1]
	req := Request{Features: []string{"x"}, Bounds: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}}, Learner: learners.KindKDE,
		Privacy: mechanism.Params{Epsilon: 0.25, Noise: mechanism.NoiseLaplace, K: []int{4}, H: 1}}
	e := newReleaseEnv(t)
	for _, threshold := range []int64{0, 1} {
		r := req
		if _, err := SetSource(&r, RecordsFile{Path: src.path, Threshold: threshold}); err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(context.Background(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.opt.Out = filepath.Join(t.TempDir(), "release.synopsis")
		res, v := releaseAndOpen(t, p, e)
		if (threshold == 1) != (v.File.Source != nil) {
			t.Errorf("threshold %d: synopsis source %+v", threshold, v.File.Source)
		}
		if threshold == 1 && res.Total < 0.5-1e-12 {
			t.Errorf("the DuckDB release is not charged to the in-memory release's dataset: total %v, want 0.5", res.Total)
		}
	}
}

// TestLogisticFromTableRefused: logistic regression needs Newton passes
// over the records; one aggregate table computed elsewhere cannot fit it,
// and the refusal says what to do instead.
func TestLogisticFromTableRefused(t *testing.T) {
	classes := dataset.Classes{Negative: "0", Positive: "1"}
	req := Request{Features: []string{"x"}, Label: "c", Classes: &classes, Learner: learners.KindLogistic,
		Bounds:     map[string]dataset.Bounds{"x": {Lo: 0, Hi: 1}},
		Privacy:    mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{4}, H: 1},
		Aggregates: &Aggregates{Path: filepath.Join(t.TempDir(), "table.csv"), N: 100, Dataset: "d"}}
	_, err := Prepare(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "release it from the records file with the embedded engine") {
		t.Errorf("logistic from a table: %v", err)
	}
}
