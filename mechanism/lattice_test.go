package mechanism

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// funcOracle adapts a function to Oracle.
type funcOracle struct {
	dim int
	f   func(y []float64) float64
}

func (o funcOracle) Dim() int                 { return o.dim }
func (o funcOracle) Eval(y []float64) float64 { return o.f(y) }

// gridOracle is a GridOracle over a function; it records its calls.
type gridOracle struct {
	funcOracle
	calls atomic.Int64
}

func (g *gridOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	g.calls.Add(1)
	i := 0
	y := make([]float64, len(axes))
	var rec func(j int)
	rec = func(j int) {
		if j == len(axes) {
			out[i] = g.f(y)
			i++
			return
		}
		for _, v := range axes[j] {
			y[j] = v
			rec(j + 1)
		}
	}
	rec(0)
	return ctx.Err()
}

func TestLatticeOrder(t *testing.T) {
	l, err := NewLattice([]int{2, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if l.Dim() != 3 || l.Size() != 24 {
		t.Fatalf("Dim, Size = %d, %d; want 3, 24", l.Dim(), l.Size())
	}
	// Index = Σ ν_j ∏_{i>j}(k_i+1): strides 8, 2, 1.
	if got := l.Index([]int{1, 2, 1}); got != 1*8+2*2+1 {
		t.Errorf("Index(1,2,1) = %d, want 13", got)
	}
	y := make([]float64, 3)
	l.Point(13, y)
	if !slices.Equal(y, []float64{0.5, 2.0 / 3, 1}) {
		t.Errorf("Point(13) = %v, want [0.5 0.667 1]", y)
	}
	// Point walks the tensor grid of Axes with the last axis fastest.
	axes := l.Axes()
	i := 0
	for _, a := range axes[0] {
		for _, b := range axes[1] {
			for _, c := range axes[2] {
				l.Point(i, y)
				if !slices.Equal(y, []float64{a, b, c}) {
					t.Fatalf("Point(%d) = %v, want %v", i, y, []float64{a, b, c})
				}
				i++
			}
		}
	}
	if axes[1][3] != 1 {
		t.Errorf("last axis value %v, want exactly 1", axes[1][3])
	}
}

func TestNewLatticeValidates(t *testing.T) {
	cases := []struct {
		k     []int
		field string
	}{
		{nil, "k"},
		{[]int{1, 1, 1, 1, 1, 1, 1}, "k"},
		{[]int{3, 0}, "k[1]"},
		{[]int{MaxK + 1}, "k[0]"},
		{[]int{100, 100, 100, 100}, "k"}, // 101⁴ > 10⁷
	}
	for _, c := range cases {
		_, err := NewLattice(c.k)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("NewLattice(%v): err = %v, want a ParamError for %s", c.k, err, c.field)
		}
	}
	if _, err := NewLattice([]int{214, 214, 214}); err != nil { // 215³ = 9 938 375
		t.Errorf("NewLattice(214,214,214): %v", err)
	}
}

func TestEvaluateLatticePointAndGridAgree(t *testing.T) {
	f := func(y []float64) float64 { return y[0]*y[0] - 3*y[1] + y[0]*y[1] }
	l, _ := NewLattice([]int{30, 7})
	var mu sync.Mutex
	var reports [][2]int
	progress := func(done, total int) {
		mu.Lock()
		reports = append(reports, [2]int{done, total})
		mu.Unlock()
	}
	point, err := EvaluateLattice(context.Background(), funcOracle{2, f}, l, progress)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, reports, l.Size())
	g := &gridOracle{funcOracle: funcOracle{2, f}}
	reports = nil
	grid, err := EvaluateLattice(context.Background(), g, l, progress)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, reports, l.Size())
	if g.calls.Load() == 0 {
		t.Error("EvalGrid was not used for a GridOracle")
	}
	y := make([]float64, 2)
	for i := range point {
		l.Point(i, y)
		if point[i] != f(y) || grid[i] != f(y) {
			t.Fatalf("index %d y=%v: point %g, grid %g, want %g", i, y, point[i], grid[i], f(y))
		}
	}
}

func checkProgress(t *testing.T, reports [][2]int, total int) {
	t.Helper()
	if len(reports) == 0 || len(reports) > 101 {
		t.Fatalf("%d progress reports, want 1..101", len(reports))
	}
	last := 0
	for _, r := range reports {
		if r[1] != total || r[0] < last || r[0] > total {
			t.Fatalf("progress report %v (previous done %d, total %d)", r, last, total)
		}
		last = r[0]
	}
	if last != total {
		t.Errorf("progress ended at %d, want %d", last, total)
	}
}

func TestEvaluateLatticeRejectsNonFinite(t *testing.T) {
	l, _ := NewLattice([]int{4, 4})
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		f := func(y []float64) float64 {
			if y[0] == 0.5 && y[1] == 0.25 {
				return bad
			}
			return 1
		}
		for _, o := range []Oracle{funcOracle{2, f}, &gridOracle{funcOracle: funcOracle{2, f}}} {
			_, err := EvaluateLattice(context.Background(), o, l, nil)
			if err == nil || !strings.Contains(err.Error(), "ν = [2 1]") || !strings.Contains(err.Error(), "y = (0.5, 0.25)") {
				t.Errorf("oracle returning %g: err = %v, want it to name ν = [2 1], y = (0.5, 0.25)", bad, err)
			}
		}
	}
}

func TestEvaluateLatticeOraclePanicIsAnError(t *testing.T) {
	l, _ := NewLattice([]int{9})
	f := func(y []float64) float64 {
		if y[0] > 0.75 {
			panic("boom")
		}
		return 0
	}
	_, err := EvaluateLattice(context.Background(), funcOracle{1, f}, l, nil)
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v, want the oracle panic as an error", err)
	}
}

func TestEvaluateLatticeDimMismatch(t *testing.T) {
	l, _ := NewLattice([]int{4, 4})
	if _, err := EvaluateLattice(context.Background(), funcOracle{3, func([]float64) float64 { return 0 }}, l, nil); err == nil {
		t.Error("oracle of dimension 3 on a 2-D lattice: no error")
	}
}

// cancellingOracle cancels its context at its `after`-th evaluation, counts
// all evaluations (n) and records how many had begun once cancel returned
// (atCancel). Other workers keep evaluating while cancel runs, so only the
// evaluations after atCancel measure how promptly the workers stop.
type cancellingOracle struct {
	cancel   context.CancelFunc
	after    int64
	n        atomic.Int64
	atCancel atomic.Int64
}

func (o *cancellingOracle) Dim() int { return 2 }
func (o *cancellingOracle) Eval([]float64) float64 {
	if o.n.Add(1) == o.after {
		o.cancel()
		o.atCancel.Store(o.n.Load())
	}
	return 0
}

func TestEvaluateLatticeAndSanitizeCancel(t *testing.T) {
	k := []int{300, 300} // 90 601 points
	l, _ := NewLattice(k)
	for _, name := range []string{"EvaluateLattice", "Sanitize"} {
		ctx, cancel := context.WithCancel(context.Background())
		o := &cancellingOracle{cancel: cancel, after: 1000}
		var err error
		if name == "EvaluateLattice" {
			_, err = EvaluateLattice(ctx, o, l, nil)
		} else {
			_, err = Sanitize(ctx, o, 1, Params{Epsilon: 1, Noise: NoiseLaplace, K: k, H: 2}, nil)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
		// Each worker stops at its next point: once cancel has
		// returned, at most one more evaluation per worker (one that
		// had passed its check already), and there are at most
		// GOMAXPROCS workers. (The bound used to be 1000+64 counted
		// from the cancelling evaluation; CI saw 1090, because the
		// other workers go on while cancel runs.)
		extra := o.n.Load() - o.atCancel.Load()
		if workers := int64(runtime.GOMAXPROCS(0)); extra > workers {
			t.Errorf("%s: %d evaluations after cancel returned, more than one for each of %d workers", name, extra, workers)
		}
		cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := &gridOracle{funcOracle: funcOracle{2, func([]float64) float64 { return 0 }}}
	if _, err := EvaluateLattice(ctx, g, l, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("grid oracle with cancelled context: err = %v", err)
	}
}
