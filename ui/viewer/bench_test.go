package viewer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// BenchmarkViewerBatch measures the batch path of the viewer on 10^6 query
// rows of a 2-D release with k = 20, h = 3 (the issue's "10^6 rows must not
// freeze the window": all of this runs off the UI goroutine): reading the
// query CSV, evaluating value and noise std, and writing the gocsv export.
func BenchmarkViewerBatch(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	fx := viewerFixtureSVM
	fx.k, fx.h, fx.noise, fx.delta = []int{20, 20}, 3, mechanism.NoiseLaplace, 0
	path := fx.write(b, dir, viewerTestSigner(b, 12))
	doc := viewerLoad(path, "")
	if doc.Release == nil {
		b.Fatal(doc.Detail)
	}
	qpath := filepath.Join(dir, "q.csv")
	f, err := os.Create(qpath)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "x1,x2")
	for i := range n {
		fmt.Fprintf(w, "%g,%g\n", float64(i%1000)/999, -5+10*float64(i/1000)/999)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()

	var x []float64
	b.Run("read-csv", func(b *testing.B) {
		for range b.N {
			q, err := viewerReadQueries(context.Background(), qpath, doc.Release, false)
			if err != nil {
				b.Fatal(err)
			}
			x = q.x
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
	})
	var res *viewerBatch
	b.Run("evaluate", func(b *testing.B) {
		for range b.N {
			if res, err = viewerEvalBatch(context.Background(), doc.Release, x, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
	})
	b.Run("export-csv", func(b *testing.B) {
		for range b.N {
			if err := viewerWriteCSV(context.Background(), io.Discard, res, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
	})
}
