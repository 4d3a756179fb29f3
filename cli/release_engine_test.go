//go:build linux && cgo

package cli

import (
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	// The embedded DuckDB's driver, to write the test's Parquet file.
	_ "github.com/duckdb/duckdb-go/v2"
)

// TestReleaseChoosesEngine: release --data picks the engine itself
// (issue 20): a CSV under --duckdb-csv-bytes is read into memory, the
// same CSV from the threshold on and a Parquet file go through the
// embedded DuckDB (said on standard error, recorded in the synopsis's
// source, charged to the file's SHA-256 dataset); the SVM on Parquet is
// refused naming its row limit; a declared n that is not the row count is
// refused on both engines.
func TestReleaseChoosesEngine(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	var b strings.Builder
	b.WriteString("x,c\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%g,%d\n", float64(i%50)/5, 3+4*(i%2))
	}
	b.WriteString("n/a,3\n") // filled, never dropped: n = 201
	csv := w.path("records.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	pq := w.path("records.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("COPY (SELECT * FROM read_csv('" + strings.ReplaceAll(csv, "'", "''") + "', header = true, all_varchar = true)) TO '" +
		strings.ReplaceAll(pq, "'", "''") + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	common := []string{"--features", "x", "--bounds", "x=0:10", "--learner", "kde", "--param", "bandwidth=0.1",
		"--epsilon", "0.25", "--k", "6", "--passphrase-file", w.pass}
	for _, c := range []struct {
		name, data string
		extra      []string
		embedded   bool
	}{
		{"small csv", csv, nil, false},
		{"large csv", csv, []string{"--duckdb-csv-bytes", "10"}, true},
		{"parquet", pq, []string{"--n", "201"}, true},
	} {
		out := w.path(strings.ReplaceAll(c.name, " ", "-") + ".synopsis")
		r := te.mustRun(t, append(append([]string{"release", "--data", c.data, "--out", out}, common...), c.extra...)...)
		syn, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		said := strings.Contains(r.stderr, "engine: the embedded DuckDB reads")
		recorded := strings.Contains(string(syn), `"dialect": "duckdb"`)
		if said != c.embedded || recorded != c.embedded || !strings.Contains(string(syn), `"n": 201`) {
			t.Errorf("%s: embedded said %v, recorded %v, want %v; stderr:\n%s\nsynopsis:\n%s", c.name, said, recorded, c.embedded, r.stderr, syn)
		}
		if c.embedded && !strings.Contains(r.stderr, "dataset (the records file's SHA-256)") {
			t.Errorf("%s: stderr does not say which ledger dataset:\n%s", c.name, r.stderr)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"svm on parquet", []string{"--data", pq, "--features", "x", "--label", "c", "--classes", "3,7", "--bounds", "x=0:10", "--learner", "svm"}, "export at most 1000000 rows"},
		{"n in memory", append([]string{"--data", csv, "--n", "200"}, common[:8]...), "200 declared, but"},
		{"n in duckdb", append([]string{"--data", pq, "--n", "200"}, common[:8]...), "the declared n is 200"},
		{"dataset id in memory", append([]string{"--data", csv, "--dataset-id", "survey"}, common[:8]...), "--dataset-id: "},
	} {
		args := append([]string{"release", "--out", w.path(c.name + ".synopsis"), "--epsilon", "0.25", "--passphrase-file", w.pass}, c.args...)
		if r := te.run(args...); r.code == exitOK || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal with %q", c.name, r.code, r.stderr, c.want)
		}
	}
}
