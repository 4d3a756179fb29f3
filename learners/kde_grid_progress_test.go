package learners

import (
	"context"
	"math/rand/v2" // seeded test data
	"sync"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestKDEEvalGridProgress checks that EvalGridProgress gives the same grid
// as EvalGrid and reports every record exactly once: the largest report is
// (n, n), however the workers interleave.
func TestKDEEvalGridProgress(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4)) // seeded test data
	n := 5000
	x := make([]float64, 2*n)
	for i := range x {
		x[i] = r.Float64()
	}
	f, err := NewKDE().Fit(context.Background(), Dataset{Dim: 2, X: x}, Values{"bandwidth": {0.1}})
	if err != nil {
		t.Fatal(err)
	}
	type progressOracle interface {
		EvalGridProgress(ctx context.Context, axes [][]float64, out []float64, progress func(done, total int)) error
	}
	g, ok := f.Oracle.(progressOracle)
	if !ok {
		t.Fatalf("KDE oracle %T has no EvalGridProgress", f.Oracle)
	}
	axes := [][]float64{{0, 0.25, 0.5, 0.75, 1}, {0, 0.5, 1}}
	got := make([]float64, 15)
	var mu sync.Mutex
	maxDone := 0
	if err := g.EvalGridProgress(context.Background(), axes, got, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total != n || done < 1 || done > n {
			t.Errorf("progress (%d, %d): want 1 ≤ done ≤ n = %d", done, total, n)
		}
		maxDone = max(maxDone, done)
	}); err != nil {
		t.Fatal(err)
	}
	if maxDone != n {
		t.Errorf("progress reached %d of %d records", maxDone, n)
	}
	want := make([]float64, 15)
	if err := f.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), axes, want); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("grid value %d: %v with progress, %v without", i, got[i], want[i])
		}
	}
}
