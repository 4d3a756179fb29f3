//go:build linux && cgo

package release

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	// The embedded DuckDB (project/aggregate/duckdb's driver, pinned).
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// duckdbTable does what a curator does with their own engine: loads the
// records into a table named "data" (every column as text), runs the
// query bernstein aggregate-sql prints for that table (the text whose
// hash the synopsis records) and saves its result as CSV in out.
func duckdbTable(t *testing.T, dataPath, query, out string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	for _, stmt := range []string{
		"CREATE TABLE data AS SELECT * FROM read_csv(" + lit(dataPath) + ", header = true, all_varchar = true)",
		"COPY (\n" + strings.TrimSuffix(strings.TrimSpace(query), ";") + "\n) TO " + lit(out) + " (FORMAT csv, HEADER true)",
	} {
		if _, err := conn.ExecContext(context.Background(), stmt); err != nil {
			t.Fatalf("duckdb: %v", err)
		}
	}
}

// junkCSV is releaseTestCSV with some values replaced by junk that both
// paths fill: an empty field, a word, a thousands separator.
func junkCSV(t *testing.T, dir string, n int) string {
	lines := strings.Split(strings.TrimSuffix(releaseTestCSV(n), "\n"), "\n")
	for i := 1; i < len(lines); i += 17 {
		f := strings.Split(lines[i], ",")
		f[i%4] = []string{"", "abc", "1_000", "n/a"}[i%4]
		lines[i] = strings.Join(f, ",")
	}
	path := filepath.Join(dir, "records.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReleaseFromDuckDBAggregates: KDE (ℓ = 2) and naive Bayes from
// tables the embedded DuckDB computed with the exact query text
// (aggregate.Query for table "data") agree with the release from the
// records within the binning bound, with the same S and n; the synopsis
// records the query's hash, verifies and evaluates.
func TestReleaseFromDuckDBAggregates(t *testing.T) {
	dir := t.TempDir()
	const n, B = 400, 512
	data := junkCSV(t, dir, n)
	classes := dataset.Classes{Negative: "3", Positive: "7"}
	kde := Request{
		Features: []string{"x", "y"},
		Bounds:   map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}},
		Fill:     map[string]float64{"x": 1},
		Learner:  learners.KindKDE,
		Params:   learners.Values{"bandwidth": {0.15}},
		Privacy:  mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{5, 5}, H: 1},
	}
	nb := kde
	nb.Learner, nb.Params, nb.Label, nb.Classes, nb.FillClass = learners.KindNaiveBayes, learners.Values{"bandwidth": {0.15}}, "c", &classes, "7"
	for _, req := range []Request{kde, nb} {
		opts := dataset.CSVOptions{Columns: usedColumns(req), KeepInvalid: true}
		if req.Classes != nil {
			opts.Classes = map[string]dataset.Classes{"c": classes}
		}
		ds, err := dataset.ReadCSV(data, opts)
		if err != nil {
			t.Fatal(err)
		}
		req.Dataset = ds
		mem, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if mem.Filled["x"]+mem.Filled["y"] == 0 {
			t.Fatalf("%s: no value filled: the junk does not test the fill rule", req.Learner)
		}
		spec := aggregate.Spec{Learner: req.Learner, Bins: B, Features: []aggregate.Feature{
			{Name: "x", Bounds: req.Bounds["x"], Fill: 1}, {Name: "y", Bounds: req.Bounds["y"], Fill: 5}}}
		if req.Classes != nil {
			spec.Label = &aggregate.Label{Name: "c", Classes: &classes, FillClass: 1}
		}
		q, err := aggregate.Query(spec, aggregate.DuckDB, aggregate.Table("data"))
		if err != nil {
			t.Fatal(err)
		}
		table := filepath.Join(dir, string(req.Learner)+"-table.csv")
		duckdbTable(t, data, q, table)

		areq := fromAggregates(req, table, n)
		areq.Aggregates.Bins = B
		p, err := Prepare(context.Background(), areq, nil)
		if err != nil {
			t.Fatalf("%s: %v", req.Learner, err)
		}
		if p.Fitted.Sensitivity != mem.Fitted.Sensitivity || p.Fitted.N != n {
			t.Errorf("%s: S %v n %d; from the records S %v n %d", req.Learner, p.Fitted.Sensitivity, p.Fitted.N, mem.Fitted.Sensitivity, n)
		}
		bound := learners.KDEBinningBound([]float64{0.15, 0.15}, B)
		for i := range p.Exact {
			if d := math.Abs(p.Exact[i] - mem.Exact[i]); d > bound {
				t.Errorf("%s: lattice value %d: from DuckDB's table %v, from the records %v: %v above the binning bound %v", req.Learner, i, p.Exact[i], mem.Exact[i], d, bound)
			}
		}
		e := newReleaseEnv(t)
		_, v := releaseAndOpen(t, p, e)
		if s := v.File.Source; s == nil || s.QuerySHA256 != QueryHash(q) || s.Bins != B || s.Dialect != "duckdb" {
			t.Errorf("%s: source %+v, want the hash %s of the query DuckDB ran", req.Learner, s, QueryHash(q))
		}
		if val, _, err := v.EvalData([]float64{5, 5}); err != nil || !isFinite(val) {
			t.Errorf("%s: evaluating: %v, %v", req.Learner, val, err)
		}
		if len(e.ledger.Entries(NamedDataset("clinic admissions 2026"))) != 1 {
			t.Errorf("%s: the release is not in the ledger", req.Learner)
		}
	}
}

// csvToParquet writes the CSV file in as a Parquet file out with DuckDB,
// its columns typed as DuckDB reads them (counts as integers, bins as
// integers, sums as doubles): what a curator's engine saves.
func csvToParquet(t *testing.T, in, out string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	if _, err := db.Exec("COPY (SELECT * FROM read_csv(" + lit(in) + ", header = true)) TO " + lit(out) + " (FORMAT parquet)"); err != nil {
		t.Fatalf("duckdb: %v", err)
	}
}

// TestReleaseFromParquetResultTable (issue 20: "the result table (CSV or
// Parquet) is loaded by release --aggregates FILE"): the same KDE table
// saved as CSV and as Parquet gives the same lattice values to the last
// bit; the ledger note records the SHA-256 of the Parquet file's bytes;
// a Parquet table breaking a rule is refused with the Parquet file and the
// row named; a table longer than n rows is refused.
func TestReleaseFromParquetResultTable(t *testing.T) {
	const B = 256
	f := newKDEAggregatesFixture(t, B)
	ds, e, header, rows, csvPath := f.ds, f.e, f.header, f.rows, f.path
	pqPath := filepath.Join(e.dir, "kde.parquet")
	csvToParquet(t, csvPath, pqPath)
	prepare := func(path string, n int) (*Prepared, error) {
		req := fromAggregates(kdeRequest(ds), path, n)
		req.Aggregates.Bins = B
		return Prepare(context.Background(), req, nil)
	}
	fromCSV, err := prepare(csvPath, 300)
	if err != nil {
		t.Fatal(err)
	}
	fromPQ, err := prepare(pqPath, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(fromPQ.Exact) != len(fromCSV.Exact) {
		t.Fatalf("%d lattice values from Parquet, %d from CSV", len(fromPQ.Exact), len(fromCSV.Exact))
	}
	for i := range fromCSV.Exact {
		if fromPQ.Exact[i] != fromCSV.Exact[i] {
			t.Errorf("lattice value %d: %v from Parquet, %v from CSV", i, fromPQ.Exact[i], fromCSV.Exact[i])
		}
	}
	res, _ := releaseAndOpen(t, fromPQ, e)
	raw, err := os.ReadFile(pqPath)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	if note := res.Entry.Note; !strings.Contains(note, "table SHA-256 "+hex.EncodeToString(sum[:])) {
		t.Errorf("ledger note %q does not record the Parquet file's SHA-256", note)
	}
	if res.Entry.DatasetPath != absPath(pqPath) {
		t.Errorf("ledger entry's path %q, want %q", res.Entry.DatasetPath, absPath(pqPath))
	}

	// A count of 0 in the third row: refused, naming the file and row.
	bad := slices.Clone(rows)
	bad[2] = slices.Clone(bad[2])
	bad[2][slices.Index(header, "records")] = "0"
	badCSV := writeTable(t, e.dir, "bad.csv", header, bad)
	badPQ := filepath.Join(e.dir, "bad.parquet")
	csvToParquet(t, badCSV, badPQ)
	_, err = prepare(badPQ, 300)
	if err == nil || !strings.Contains(err.Error(), badPQ) || !strings.Contains(err.Error(), "row 3") || strings.Contains(err.Error(), "bernstein-result-") {
		t.Errorf("a zero count in row 3: err = %v, want the Parquet file and row 3 named", err)
	}
	// Declared n smaller than the table's rows: the copy stops at n + 1
	// rows and the counts cannot add up to n.
	_, err = prepare(pqPath, 2)
	if err == nil {
		t.Error("a table of more rows than the declared n = 2: no error")
	}
	// Not a Parquet file.
	junk := filepath.Join(e.dir, "junk.parquet")
	if err := os.WriteFile(junk, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = prepare(junk, 300)
	if err == nil || !strings.Contains(err.Error(), junk) || strings.Contains(err.Error(), "\n") {
		t.Errorf("a CSV named .parquet: err = %v, want a one-line error naming it", err)
	}
}
