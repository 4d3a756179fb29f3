//go:build linux && cgo

package curator

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
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

// TestCuratorOpensParquetFolder (issue 20: "the curator opens a CSV, a
// Parquet file or a folder of Parquet files"): File ▸ Open takes a folder
// of Parquet files typed as a path (Enter), skips the CSV import step
// (typed columns: no layout to choose), and the window then holds the
// folder's columns and its counted n (both files); a folder with no
// Parquet file is refused in the dialog with the rule named; a single
// Parquet file chosen in the dialog also skips the import step.
func TestCuratorOpensParquetFolder(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	folder := filepath.Join(f.dir, "admissions")
	empty := filepath.Join(f.dir, "empty")
	for _, d := range []string{folder, empty} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range []int{700, 800} {
		q := fmt.Sprintf("COPY (SELECT (i %% 97) / 9.7 AS x, i %% 5 AS y FROM range(%d) t(i)) TO '%s' (FORMAT parquet)",
			n, strings.ReplaceAll(filepath.Join(folder, fmt.Sprintf("part-%d.parquet", i)), "'", "''"))
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	open := func(path string) {
		f.do(func() { c.showOpenDialog() })
		f.do(func() {
			c.openFlow.Path.SetText(path)
			c.openFlow.Path.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		})
	}
	open(empty)
	f.do(func() {
		if !c.openFlow.Dlg.Visible() || !strings.Contains(c.openFlow.Msg.Text, "no .parquet files") {
			t.Errorf("a folder without Parquet files: dialog visible %v, message %q", c.openFlow.Dlg.Visible(), c.openFlow.Msg.Text)
		}
		c.openFlow.Dlg.Hide()
	})
	open(folder)
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if c.importFlow != nil && c.importFlow.dlg.Visible() {
			t.Error("the CSV import step opened for a Parquet folder")
		}
		if c.ds == nil || c.state.Records == nil || !c.state.Records.Folder || c.ds.Rows != 1500 || !slices.Equal(c.ds.Columns, []string{"x", "y"}) {
			t.Errorf("opened: records %+v, rows %v, columns %v; want the folder, 1500 rows, [x y]", c.state.Records, c.ds.Rows, c.ds.Columns)
		}
	})
	open(filepath.Join(folder, "part-0.parquet"))
	f.waitDataset()
	f.waitIdle()
	f.do(func() {
		if c.importFlow != nil && c.importFlow.dlg.Visible() {
			t.Error("the CSV import step opened for a Parquet file")
		}
		if c.ds == nil || c.state.Records == nil || c.state.Records.Folder || c.ds.Rows != 700 {
			t.Errorf("opened: records %+v, rows %v; want the file, 700 rows", c.state.Records, c.ds.Rows)
		}
	})
}
