//go:build linux && cgo

package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math"
	rand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// junk are values that are not numbers in the number syntax: the
// in-memory path and the query both replace them by the fill value.
var junk = []string{"", "NaN", "abc", "1_0", "inf", "-Infinity", "0x10", "1,5", "1e999", "--1", "."}

// writeData writes n records of the columns of spec as CSV: features
// uniform over 120 % of their bounds (some clipped), a real label or a
// class label, and one value in 25 replaced by junk (if withJunk) or left
// empty. Header names are written as CSV fields (quoted when needed).
func writeData(t *testing.T, path string, spec aggregate.Spec, n int, seed uint64, withJunk bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 20))
	var b strings.Builder
	var names []string
	for _, f := range spec.Features {
		names = append(names, f.Name)
	}
	if spec.Label != nil {
		names = append(names, spec.Label.Name)
	}
	for i, nm := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strings.ReplaceAll(nm, `"`, `""`) + `"`)
	}
	b.WriteByte('\n')
	for range n {
		var s float64
		row := make([]string, len(names))
		for j, f := range spec.Features {
			v := f.Bounds.Lo + (f.Bounds.Hi-f.Bounds.Lo)*(1.2*r.Float64()-0.1)
			s += (v - f.Bounds.Lo) / (f.Bounds.Hi - f.Bounds.Lo)
			row[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if l := spec.Label; l != nil {
			switch {
			case l.Classes != nil:
				row[len(row)-1] = []string{l.Classes.Negative, l.Classes.Positive, " " + l.Classes.Positive + " ", "1.0", "maybe"}[r.IntN(5)]
			default:
				row[len(row)-1] = strconv.FormatFloat(l.Bounds.Lo+(l.Bounds.Hi-l.Bounds.Lo)*(0.3*s+0.4*r.Float64()), 'g', -1, 64)
			}
		}
		for j := range row {
			if r.IntN(25) == 0 {
				row[j] = ""
				if withJunk {
					row[j] = junk[r.IntN(len(junk))]
				}
			}
		}
		for j, v := range row {
			if strings.ContainsAny(v, ",\"") {
				row[j] = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// inMemory reads path like a release does (every row kept, invalid values
// filled, features mapped and clipped by the public bounds, labels mapped
// or coded) and returns the learner's dataset.
func inMemory(t *testing.T, path string, spec aggregate.Spec) learners.Dataset {
	t.Helper()
	var names []string
	fill := map[string]float64{}
	bounds := []dataset.Bounds{}
	for _, f := range spec.Features {
		names = append(names, f.Name)
		fill[f.Name] = f.Fill
		bounds = append(bounds, f.Bounds)
	}
	opts := dataset.CSVOptions{KeepInvalid: true}
	if l := spec.Label; l != nil {
		if l.Classes != nil {
			opts.Classes = map[string]dataset.Classes{l.Name: *l.Classes}
			fill[l.Name] = l.FillClass
		} else {
			fill[l.Name] = l.Fill
		}
		names = append(names, l.Name)
	}
	opts.Columns = names
	tab, err := dataset.ReadCSV(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	tab, _ = tab.WithFilled(fill)
	x, _, err := tab.MapToUnit(names[:len(spec.Features)], bounds)
	if err != nil {
		t.Fatal(err)
	}
	d := learners.Dataset{Dim: len(spec.Features), X: x}
	if l := spec.Label; l != nil {
		if l.Classes != nil {
			d.Labels, _, err = tab.DeclaredLabels(l.Name, *l.Classes, l.FillClass)
		} else {
			d.Labels, _, err = tab.RealLabels(l.Name, l.Bounds)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// cellCounts returns the KDE aggregate of d with B bins, keyed by the
// cell's bin indices.
func cellCounts(d learners.Dataset, B int) map[string]int64 {
	out := map[string]int64{}
	for i := range d.N() {
		key := ""
		for j := range d.Dim {
			key += fmt.Sprintf("%d ", int(min(math.Floor(d.X[i*d.Dim+j]*float64(B)), float64(B-1))))
		}
		out[key]++
	}
	return out
}

func resultCells(r *aggregate.Result) map[string]int64 {
	out := map[string]int64{}
	dim := len(r.Spec.Features)
	for c, n := range r.Counts {
		key := ""
		for j := range dim {
			key += fmt.Sprintf("%d ", r.Cells[c*dim+j])
		}
		out[key] = n
	}
	return out
}

func kdeSpec(names ...string) aggregate.Spec {
	s := aggregate.Spec{Learner: learners.KindKDE, Bins: 64}
	bounds := []dataset.Bounds{{Lo: 0, Hi: 100}, {Lo: -1000, Hi: 2.5e5}, {Lo: -1, Hi: 1}}
	for j, n := range names {
		s.Features = append(s.Features, aggregate.Feature{Name: n, Bounds: bounds[j], Fill: (bounds[j].Lo + bounds[j].Hi) / 2})
	}
	return s
}

func ridgeSpec() aggregate.Spec {
	return aggregate.Spec{Learner: learners.KindRidge, Features: []aggregate.Feature{
		{Name: "x", Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5},
		{Name: "z", Bounds: dataset.Bounds{Lo: -3, Hi: 3}, Fill: 0.1},
	}, Label: &aggregate.Label{Name: "y", Bounds: dataset.Bounds{Lo: -10, Hi: 10}, Fill: 0}}
}

// duckExec runs statements on a fresh in-memory DuckDB (test set-up).
func duckExec(t *testing.T, stmts ...string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// TestKDECountsMatchInMemory runs the KDE query on a generated CSV with
// junk values, out-of-bounds values and empty fields, and on Parquet made
// from it by DuckDB's COPY … TO (text columns, typed DOUBLE columns, and a
// folder of three files), and checks the cells and counts equal the
// in-memory path's, exactly.
func TestKDECountsMatchInMemory(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	spec := kdeSpec("age", "income")
	spec.N = 3000
	csvPath := filepath.Join(dir, "data.csv")
	writeData(t, csvPath, spec, spec.N, 1, true)
	want := cellCounts(inMemory(t, csvPath, spec), spec.Bins)

	pq := filepath.Join(dir, "text.parquet")
	duckExec(t, "COPY (SELECT * FROM read_csv('"+csvPath+"', header = true, all_varchar = true)) TO '"+pq+"' (FORMAT parquet)")
	for _, path := range []string{csvPath, pq} {
		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(ctx, spec, src, Options{MemoryLimit: "256MB", Threads: 2})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := resultCells(res); !maps.Equal(got, want) {
			t.Errorf("%s: %d cells from DuckDB, %d in memory; first differences: %v", filepath.Base(path), len(got), len(want), diff(got, want))
		}
		if _, err := res.Fit(ctx, learners.Values{"bandwidth": {0.05}}); err != nil {
			t.Errorf("%s: Fit: %v", path, err)
		}
	}

	// Typed Parquet (DOUBLE columns, NULL for empty), one file and a folder.
	clean := filepath.Join(dir, "clean.csv")
	writeData(t, clean, spec, spec.N, 2, false)
	want = cellCounts(inMemory(t, clean, spec), spec.Bins)
	folder := filepath.Join(dir, "folder")
	if err := os.Mkdir(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	typed := "SELECT TRY_CAST(age AS DOUBLE) AS age, TRY_CAST(income AS DOUBLE) AS income, row_number() OVER () AS i FROM read_csv('" + clean + "', header = true, all_varchar = true)"
	stmts := []string{"COPY (SELECT age, income FROM (" + typed + ")) TO '" + filepath.Join(dir, "typed.parquet") + "' (FORMAT parquet)"}
	for k := range 3 {
		stmts = append(stmts, fmt.Sprintf("COPY (SELECT age, income FROM (%s) WHERE i %% 3 = %d) TO '%s' (FORMAT parquet)", typed, k, filepath.Join(folder, fmt.Sprintf("part-%d.parquet", k))))
	}
	duckExec(t, stmts...)
	for _, path := range []string{filepath.Join(dir, "typed.parquet"), folder} {
		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(ctx, spec, src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if got := resultCells(res); !maps.Equal(got, want) {
			t.Errorf("%s: %d cells from DuckDB, %d in memory; first differences: %v", filepath.Base(path), len(got), len(want), diff(got, want))
		}
	}
}

func diff(a, b map[string]int64) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("[%s] %d vs %d", k, a[k], b[k]))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("[%s] missing (in memory %d)", k, b[k]))
		}
	}
	return out[:min(len(out), 5)]
}

// TestHostileColumnNamesRun runs the query on a CSV whose header holds
// quotes, semicolons and comment marks: the names are read as columns and
// the counts equal the in-memory path's.
func TestHostileColumnNamesRun(t *testing.T) {
	dir := t.TempDir()
	spec := kdeSpec(`x"; DROP TABLE t; --`, "it's /* c`d", `a""b;`)
	spec.N = 500
	path := filepath.Join(dir, "hostile.csv")
	writeData(t, path, spec, spec.N, 3, true)
	src, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), spec, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := resultCells(res), cellCounts(inMemory(t, path, spec), spec.Bins); !maps.Equal(got, want) {
		t.Errorf("hostile names: counts differ: %v", diff(got, want))
	}
}

// TestRidgeMatchesInMemory checks that ridge regression from the DuckDB
// aggregates (CSV and Parquet) gives the in-memory release's S and range
// and its function to 1e-9 of the range.
func TestRidgeMatchesInMemory(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	spec := ridgeSpec()
	spec.N = 2000
	csvPath := filepath.Join(dir, "data.csv")
	writeData(t, csvPath, spec, spec.N, 4, true)
	pq := filepath.Join(dir, "data.parquet")
	duckExec(t, "COPY (SELECT * FROM read_csv('"+csvPath+"', header = true, all_varchar = true)) TO '"+pq+"' (FORMAT parquet)")
	vals := learners.Values{"C": {3}}
	mem, err := learners.NewRidge().Fit(ctx, inMemory(t, csvPath, spec), vals)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{csvPath, pq} {
		src, _ := Open(path)
		res, err := Run(ctx, spec, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		agg, err := res.Fit(ctx, vals)
		if err != nil {
			t.Fatal(err)
		}
		if agg.Sensitivity != mem.Sensitivity || agg.OutputRange != mem.OutputRange {
			t.Errorf("%s: S %v range %v; in memory %v %v", path, agg.Sensitivity, agg.OutputRange, mem.Sensitivity, mem.OutputRange)
		}
		scale := mem.OutputRange[1]
		for i := range 121 {
			y := []float64{float64(i/11) / 10, float64(i%11) / 10}
			if a, b := agg.Oracle.Eval(y), mem.Oracle.Eval(y); math.Abs(a-b) > 1e-9*scale {
				t.Fatalf("%s: F(%v) = %v from aggregates, %v in memory", path, y, a, b)
			}
		}
	}
}

// TestNaiveBayesCountsMatchInMemory runs the naive Bayes query (declared
// classes "no,yes" and a numeric class "1") and checks the per-class,
// per-feature bin counts against the in-memory labels and features, and
// the fit from them against the in-memory naive Bayes (same S, values
// within the binning bound).
func TestNaiveBayesCountsMatchInMemory(t *testing.T) {
	dir := t.TempDir()
	for _, classes := range []dataset.Classes{{Negative: "no", Positive: "yes"}, {Negative: "0", Positive: "1"}} {
		spec := kdeSpec("a", "b")
		spec.Learner = learners.KindNaiveBayes
		spec.Label = &aggregate.Label{Name: "label", Classes: &classes, FillClass: 1}
		spec.N = 1500
		path := filepath.Join(dir, "nb-"+classes.Negative+".csv")
		writeData(t, path, spec, spec.N, 5, true)
		d := inMemory(t, path, spec)
		want := map[string]int64{}
		for i := range d.N() {
			for j := range d.Dim {
				want[fmt.Sprintf("%d %d %d", int(d.Labels[i]), j+1, int(min(math.Floor(d.X[i*d.Dim+j]*float64(spec.Bins)), float64(spec.Bins-1))))]++
			}
		}
		src, _ := Open(path)
		res, err := Run(context.Background(), spec, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for i, c := range res.Counts {
			got[fmt.Sprintf("%d %d %d", res.Class[i], res.Axis[i], res.Cells[i])] = c
		}
		if !maps.Equal(got, want) {
			t.Errorf("classes %s: counts differ: %v", classes, diff(got, want))
		}
		vals := learners.Values{"bandwidth": {0.1}}
		agg, err := res.Fit(context.Background(), vals)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := learners.NewNaiveBayes().Fit(context.Background(), d, vals)
		if err != nil {
			t.Fatal(err)
		}
		if agg.Sensitivity != mem.Sensitivity {
			t.Errorf("S: aggregates %v, in memory %v", agg.Sensitivity, mem.Sensitivity)
		}
		bound := learners.KDEBinningBound([]float64{0.1, 0.1}, spec.Bins)
		for i := range 121 {
			y := []float64{float64(i/11) / 10, float64(i%11) / 10}
			if a, b := agg.Oracle.Eval(y), mem.Oracle.Eval(y); math.Abs(a-b) > bound+1e-12*mem.OutputRange[1] {
				t.Fatalf("F(%v): aggregates %v, in memory %v: beyond the binning bound %v", y, a, b, bound)
			}
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{filepath.Join(dir, "a*.parquet"), filepath.Join(dir, "missing.csv")} {
		if _, err := Open(p); err == nil {
			t.Errorf("Open(%q) accepted", p)
		}
	}
	other := filepath.Join(dir, "data.json")
	if err := os.WriteFile(other, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(other); err == nil || !strings.Contains(err.Error(), "not a .csv") {
		t.Errorf("Open(json) = %v", err)
	}
}

// TestMalformedCSVFailsClosed checks that DuckDB's refusal of a malformed
// CSV (a row with too many fields) is an error, never a partial aggregate.
func TestMalformedCSVFailsClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(path, []byte("age,income\n1,2\n3,4,5,6\n7,8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := kdeSpec("age", "income")
	src, _ := Open(path)
	if _, err := Run(context.Background(), spec, src, Options{}); err == nil {
		t.Fatal("a malformed CSV gave an aggregate")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "d.csv")
	spec := kdeSpec("age", "income")
	writeData(t, path, spec, 10, 6, false)
	src, _ := Open(path)
	if _, err := Run(ctx, spec, src, Options{}); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
}
