package viewer

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// grid returns n rows of 2-D queries inside viewerFeatAge × viewerFeatIncome.
func viewerGrid2(n int) []float64 {
	x := make([]float64, 0, 2*n)
	for i := range n {
		x = append(x, 18+72*float64(i%97)/96, -10+20*float64(i%89)/88)
	}
	return x
}

func TestViewerBatchMatchesPointwise(t *testing.T) {
	r, ev := viewerFakeRelease(learners.OutputClassScore, viewerFeatAge, viewerFeatIncome)
	ev.threshold = 50
	const n = 3*viewerBatchChunk + 17 // several chunks and a partial one
	x := viewerGrid2(n)
	var mu sync.Mutex
	var calls, last int
	res, err := viewerEvalBatch(context.Background(), r, x, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if total != n || done < 0 || done > total {
			t.Errorf("progress(%d, %d)", done, total)
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != n || calls > 102 {
		t.Errorf("progress: last %d (want %d), %d calls (want ≤ 102)", last, n, calls)
	}
	for i := range n {
		v, s, _ := ev.EvalData(x[2*i : 2*i+2])
		c, _ := ev.Class(v)
		if res.Value[i] != v || res.NoiseStd[i] != s || res.Class[i] != c {
			t.Fatalf("row %d: got (%g, %g, %s), want (%g, %g, %s)", i, res.Value[i], res.NoiseStd[i], res.Class[i], v, s, c)
		}
	}
}

func TestViewerBatchRejectsOutOfBounds(t *testing.T) {
	r, ev := viewerFakeRelease(learners.OutputDensity, viewerFeatAge, viewerFeatIncome)
	x := viewerGrid2(20)
	x[2*3] = 17           // row 4: age too small
	x[2*7+1] = math.NaN() // row 8: income NaN
	x[2*9+1] = 10.5       // row 10: income too large
	_, err := viewerEvalBatch(context.Background(), r, x, nil)
	if err == nil {
		t.Fatal("no error for out-of-bounds rows")
	}
	for _, want := range []string{"3 query rows", "row 4: age = 17 not in [18, 90]", "row 8: income = NaN", "row 10: income = 10.5"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if ev.calls.Load() != 0 {
		t.Errorf("%d rows evaluated despite the bounds error; want none", ev.calls.Load())
	}

	// Many bad rows: only the first few are listed.
	x = viewerGrid2(50)
	for i := range 50 {
		x[2*i] = 100
	}
	_, err = viewerEvalBatch(context.Background(), r, x, nil)
	if err == nil || !strings.Contains(err.Error(), "… 45 more") || strings.Contains(err.Error(), "row 6:") {
		t.Errorf("error %v: want 5 rows listed and '… 45 more'", err)
	}
}

func TestViewerBatchErrorsAndCancel(t *testing.T) {
	r, ev := viewerFakeRelease(learners.OutputDensity, viewerFeatAge, viewerFeatIncome)
	x := viewerGrid2(2 * viewerBatchChunk)
	ev.failAt = x[2*5000]
	_, err := viewerEvalBatch(context.Background(), r, x, nil)
	if err == nil || !strings.Contains(err.Error(), "fake failure") || !strings.Contains(err.Error(), "row ") {
		t.Errorf("error %v: want the evaluator's failure with its row", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = viewerEvalBatch(ctx, r, viewerGrid2(10), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}

	// Empty batch: no rows, no error.
	res, err := viewerEvalBatch(context.Background(), r, nil, nil)
	if err != nil || res.Len() != 0 {
		t.Errorf("empty batch: %v, %d rows", err, res.Len())
	}
}

func TestViewerExportGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		kind   learners.OutputKind
		golden string
	}{
		{"classifier", learners.OutputClassScore, "viewer_batch_classifier.csv"},
		{"density", learners.OutputDensity, "viewer_batch_density.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ev := viewerFakeRelease(tc.kind, viewerFeatAge, viewerFeature{Name: "value", Lo: -1e-300, Hi: 1})
			ev.threshold = 40
			x := []float64{18, 1e-300, 40.25, 0.5, 90, -1e-300}
			res, err := viewerEvalBatch(context.Background(), r, x, nil)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := viewerWriteCSV(context.Background(), &buf, res, nil); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *viewerUpdateGolden {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update-viewer to create)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("export differs from %s:\n got: %s\nwant: %s", golden, buf.Bytes(), want)
			}
		})
	}
}

// TestViewerExportRoundTrip reads an export back and checks every number
// is reproduced exactly and the columns are as documented.
func TestViewerExportRoundTrip(t *testing.T) {
	r, ev := viewerFakeRelease(learners.OutputProbability, viewerFeatAge, viewerFeatIncome)
	ev.offset = -60
	const n = 2*viewerBatchChunk + 3
	res, err := viewerEvalBatch(context.Background(), r, viewerGrid2(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var last int
	if err := viewerWriteCSV(context.Background(), &buf, res, func(done, total int) { last = done }); err != nil {
		t.Fatal(err)
	}
	if last != n {
		t.Errorf("progress ended at %d, want %d", last, n)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "age,income,value,noise_std,class" {
		t.Fatalf("header %q", got)
	}
	if len(recs) != n+1 {
		t.Fatalf("%d records, want %d", len(recs), n+1)
	}
	for i, rec := range recs[1:] {
		want := []float64{res.X[2*i], res.X[2*i+1], res.Value[i], res.NoiseStd[i]}
		for j, w := range want {
			got, err := strconv.ParseFloat(rec[j], 64)
			if err != nil || got != w {
				t.Fatalf("row %d col %d: %q, want %v", i, j, rec[j], w)
			}
		}
		if rec[4] != res.Class[i] {
			t.Fatalf("row %d: class %q, want %q", i, rec[4], res.Class[i])
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := viewerWriteCSV(ctx, &bytes.Buffer{}, res, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled export: %v", err)
	}
}
