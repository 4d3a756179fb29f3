//go:build linux && cgo

package curator

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	// The embedded DuckDB's driver, to write the test's Parquet file.
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// TestCuratorOpensParquet: a Parquet file opens through the embedded
// DuckDB (issue 20): the window keeps its columns, its first rows and its
// counted n; the data step says so; the preview and the release run the
// aggregate query on the whole file (the synopsis records DuckDB and n);
// the SVM, which keeps every record in memory, is refused with its row
// limit named.
func TestCuratorOpensParquet(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	pq := filepath.Join(f.dir, "records.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1500
	q := fmt.Sprintf("COPY (SELECT (i %% 97) / 9.7 AS x, CASE WHEN i %% 3 = 0 THEN 'yes' ELSE 'no' END AS c FROM range(%d) t(i)) TO '%s' (FORMAT parquet)",
		n, strings.ReplaceAll(pq, "'", "''"))
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	db.Close()
	f.loadCSV(pq)
	if c.ds == nil || c.state.Records == nil || c.ds.Rows != n || len(c.ds.Preview) != 100 {
		t.Fatalf("opened: records %+v, rows %d, preview %d rows", c.state.Records, c.ds.Rows, len(c.ds.Preview))
	}
	dp := c.pages[stepData].(*dataPage)
	if dp.aggregates.status.Hidden || !strings.Contains(dp.aggregates.status.Text, "1500 records counted") {
		t.Errorf("the data step does not say how the file is read: %q", dp.aggregates.status.Text)
	}
	f.do(func() {
		c.state.Learner = learners.KindKDE
		c.state.Features = []string{"x"}
		c.changed()
	})
	f.typeBounds("0", "10")
	res := f.preview()
	if res == nil {
		t.Fatal("no preview")
	}
	if _, err := keys.WriteKeyPair(c.opts.KeyPath, []byte("pass"), "curator", false); err != nil {
		t.Fatal(err)
	}
	rp := c.pages[stepRelease].(*releasePage)
	f.do(func() { curatorType(rp.out, filepath.Join(f.dir, "parquet.synopsis")) })
	f.do(func() { c.startRelease() })
	fl := c.release
	if fl == nil {
		t.Fatal("no release dialog")
	}
	f.waitIdentity(fl)
	if !strings.Contains(fl.identity.finding.Text, "SHA-256 of the records file") {
		t.Errorf("the release dialog does not name the file's dataset: %q", fl.identity.finding.Text)
	}
	f.do(func() { curatorType(fl.pass, "pass") })
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	o := f.waitRelease()
	if o.err != nil {
		t.Fatalf("release from a Parquet file: %v", o.err)
	}
	if s := o.res.Synopsis; s.Source == nil || s.Source.Dialect != "duckdb" || s.Learner.N != n {
		t.Errorf("synopsis source %+v, n %d; want the embedded DuckDB and n %d", s.Source, s.Learner.N, n)
	}
	f.do(func() {
		req, err := c.state.request(c.ds)
		if err != nil || req.Dataset != nil || req.Aggregates == nil || req.Aggregates.Records != pq || req.Aggregates.N != n {
			t.Errorf("request: %v, aggregates %+v", err, req.Aggregates)
		}
		c.state.Learner = learners.KindSVM
		c.state.Label, c.state.Negative, c.state.Positive = "c", "no", "yes"
		_, err = c.state.request(c.ds)
		if err == nil || !strings.Contains(err.Error(), "at most 1000000 rows") {
			t.Errorf("svm on a Parquet file: %v, want a refusal naming the row limit", err)
		}
	})
}
