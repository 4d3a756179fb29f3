package mechanism

import (
	"context"
	"math"
	"testing"
)

// progressGridOracle is a ProgressGridOracle over a function: it evaluates
// the grid like gridOracle and reports progress in `steps` unit steps, in
// scrambled order (as concurrent workers may).
type progressGridOracle struct {
	gridOracle
	steps int
}

func (g *progressGridOracle) EvalGridProgress(ctx context.Context, axes [][]float64, out []float64, progress func(done, total int)) error {
	if err := g.EvalGrid(ctx, axes, out); err != nil {
		return err
	}
	if progress != nil {
		for i := 1; i <= g.steps; i++ {
			done := i
			if i%7 == 3 && i > 1 { // an out-of-order late report
				done = i - 1
			}
			progress(done, g.steps)
		}
	}
	return nil
}

func TestEvaluateLatticeProgressGridOracle(t *testing.T) {
	f := func(y []float64) float64 { return math.Sin(3*y[0]) + y[1]*y[1] }
	l := Lattice{K: []int{30, 40}}
	g := &progressGridOracle{gridOracle: gridOracle{funcOracle: funcOracle{dim: 2, f: f}}, steps: 10_000}
	var reports, last int
	got, err := EvaluateLattice(context.Background(), g, l, func(done, total int) {
		reports++
		if total != l.Size() || done <= last || done > total {
			t.Errorf("progress (%d, %d) after %d: want monotone, ≤ total = %d", done, total, last, l.Size())
		}
		last = done
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := g.calls.Load(); c != 1 {
		t.Errorf("%d grid calls: want one call for the whole lattice", c)
	}
	if last != l.Size() || reports > 101 {
		t.Errorf("progress ended at %d of %d after %d reports; want the total, at most 101 reports", last, l.Size(), reports)
	}
	want, err := EvaluateLattice(context.Background(), funcOracle{dim: 2, f: f}, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lattice value %d: %v by grid, %v by points", i, got[i], want[i])
		}
	}
}
