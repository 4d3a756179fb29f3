package mechanism

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
)

// Lattice is the cover P = {0, 1/k_1, …, 1} × … × {0, 1/k_ℓ, …, 1} of
// [0,1]^ℓ (Algorithm 1, line 3; Definition 9 with per-axis k_j).
//
// Lattice order is row-major with the LAST axis varying fastest: the point
// ν = (ν_1, …, ν_ℓ) has index Σ_j ν_j·∏_{i>j}(k_i+1) and coordinates
// (ν_1/k_1, …, ν_ℓ/k_ℓ). Coefficients of Polynomial and Synopsis use the same
// order.
//
// Build it with NewLattice; methods on a Lattice whose K breaks the rules of
// NewLattice may panic.
type Lattice struct{ K []int }

// NewLattice validates k (1 ≤ ℓ ≤ MaxDim, 1 ≤ k_j ≤ MaxK,
// ∏(k_j+1) ≤ MaxCoefficients) and returns the lattice, with its own copy of k.
func NewLattice(k []int) (Lattice, error) {
	if err := ValidateK(k); err != nil {
		return Lattice{}, err
	}
	return Lattice{K: append([]int(nil), k...)}, nil
}

// Dim returns ℓ.
func (l Lattice) Dim() int { return len(l.K) }

// Size returns m = ∏(k_j+1), the number of lattice points.
func (l Lattice) Size() int { return coefficientCount(l.K) }

// Axes returns the per-axis coordinates ν/k_j, ν = 0..k_j (the last entry is
// exactly 1). The lattice is their tensor grid in lattice order.
func (l Lattice) Axes() [][]float64 {
	axes := make([][]float64, len(l.K))
	for j, k := range l.K {
		axes[j] = latticeAxis(k)
	}
	return axes
}

func latticeAxis(k int) []float64 {
	a := make([]float64, k+1)
	for nu := range a {
		a[nu] = float64(nu) / float64(k)
	}
	return a
}

// Point writes the coordinates of the lattice point with the given index
// into out. It panics if index ∉ [0, Size()) or len(out) != Dim()
// (programmer misuse).
func (l Lattice) Point(index int, out []float64) {
	if len(out) != len(l.K) {
		panic(fmt.Sprintf("mechanism.Lattice.Point: len(out) = %d: must be Dim() = %d", len(out), len(l.K)))
	}
	if index < 0 || index >= l.Size() {
		panic(fmt.Sprintf("mechanism.Lattice.Point: index = %d: must be in [0, %d)", index, l.Size()))
	}
	for j := len(l.K) - 1; j >= 0; j-- {
		n := l.K[j] + 1
		out[j] = float64(index%n) / float64(l.K[j])
		index /= n
	}
}

// Index returns the lattice-order index of the multi-index nu. It panics if
// len(nu) != Dim() or some ν_j ∉ [0, k_j] (programmer misuse).
func (l Lattice) Index(nu []int) int {
	if len(nu) != len(l.K) {
		panic(fmt.Sprintf("mechanism.Lattice.Index: len(nu) = %d: must be Dim() = %d", len(nu), len(l.K)))
	}
	idx := 0
	for j, v := range nu {
		if v < 0 || v > l.K[j] {
			panic(fmt.Sprintf("mechanism.Lattice.Index: nu[%d] = %d: must be in [0, %d]", j, v, l.K[j]))
		}
		idx = idx*(l.K[j]+1) + v
	}
	return idx
}

// multiIndex returns ν for an index (no checks).
func (l Lattice) multiIndex(index int) []int {
	nu := make([]int, len(l.K))
	for j := len(l.K) - 1; j >= 0; j-- {
		n := l.K[j] + 1
		nu[j] = index % n
		index /= n
	}
	return nu
}

// describe names a lattice point for error messages.
func (l Lattice) describe(index int) string {
	nu := l.multiIndex(index)
	y := make([]string, len(nu))
	for j, v := range nu {
		y[j] = fmt.Sprintf("%g", float64(v)/float64(l.K[j]))
	}
	return fmt.Sprintf("lattice point ν = %v (index %d), y = (%s)", nu, index, strings.Join(y, ", "))
}

// progressReporter serialises progress calls so that done is monotone and
// the callback never runs concurrently with itself. It reports at most
// about 100 times plus a final (total, total).
type progressReporter struct {
	mu    sync.Mutex
	fn    func(done, total int)
	done  int
	total int
}

func (p *progressReporter) add(n int) {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.fn(p.done, p.total)
	p.mu.Unlock()
}

// EvaluateLattice returns the exact oracle values F_D(p) at every lattice
// point, in lattice order (Algorithm 1, lines 3 and 5; no noise).
//
// Point oracles are evaluated in parallel on runtime.GOMAXPROCS(0)
// goroutines, so f.Eval must be safe for concurrent use (the Oracle
// contract). A ProgressGridOracle is asked for the whole grid in one
// EvalGridProgress call; another GridOracle through EvalGrid, in at most 20
// slabs along the first axis (for progress and cancellation), sequentially
// from one goroutine (EvalGrid may parallelise internally). Cancelling ctx stops the work and
// returns ctx.Err(). progress, if non-nil, receives (done, total) in lattice
// points, monotone, at most about 100 times, never concurrently, from worker
// goroutines; on success the last call is (total, total).
//
// It returns an error if f.Dim() != l.Dim(), l is invalid, or f returns NaN
// or ±Inf; that error names the lattice point.
func EvaluateLattice(ctx context.Context, f Oracle, l Lattice, progress func(done, total int)) ([]float64, error) {
	if err := ValidateK(l.K); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("mechanism.EvaluateLattice: nil oracle")
	}
	if d := f.Dim(); d != l.Dim() {
		return nil, paramErr("k", fmt.Sprint(l.K), "has %d cover sizes but the oracle has dimension %d", l.Dim(), d)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	total := l.Size()
	out := make([]float64, total)
	rep := &progressReporter{fn: progress, total: total}
	var err error
	if g, ok := f.(ProgressGridOracle); ok {
		err = evaluateProgressGridOracle(ctx, g, l, out, rep)
	} else if g, ok := f.(GridOracle); ok {
		err = evaluateGridOracle(ctx, g, l, out, rep)
	} else {
		err = evaluatePointOracle(ctx, f, l, out, rep)
	}
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("oracle returned %g at %s: oracle values must be finite", v, l.describe(i))
		}
	}
	return out, nil
}

// evaluateProgressGridOracle evaluates the whole lattice in one call and
// converts the oracle's progress fraction into lattice points (monotone:
// late, smaller reports from other goroutines are ignored).
func evaluateProgressGridOracle(ctx context.Context, g ProgressGridOracle, l Lattice, out []float64, rep *progressReporter) error {
	var mu sync.Mutex
	reported := 0
	err := g.EvalGridProgress(ctx, l.Axes(), out, func(done, total int) {
		if total <= 0 || done < 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		now := int(float64(min(done, total)) / float64(total) * float64(len(out)))
		if now > reported && (now-reported)*100 >= len(out) { // at most ~100 reports
			rep.add(now - reported)
			reported = now
		}
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("oracle grid evaluation: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if reported < len(out) {
		rep.add(len(out) - reported)
		reported = len(out)
	}
	return nil
}

func evaluateGridOracle(ctx context.Context, g GridOracle, l Lattice, out []float64, rep *progressReporter) error {
	axes := l.Axes()
	n0 := len(axes[0])
	stride := len(out) / n0
	slabs := min(n0, 20)
	for s := 0; s < slabs; s++ {
		lo, hi := s*n0/slabs, (s+1)*n0/slabs
		sub := append([][]float64{axes[0][lo:hi]}, axes[1:]...)
		if err := g.EvalGrid(ctx, sub, out[lo*stride:hi*stride]); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return fmt.Errorf("oracle grid evaluation: %w", err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rep.add((hi - lo) * stride)
	}
	return nil
}

func evaluatePointOracle(ctx context.Context, f Oracle, l Lattice, out []float64, rep *progressReporter) error {
	total := len(out)
	const maxReports = 100
	chunk := max(1, (total+maxReports-1)/maxReports)
	nChunks := (total + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nChunks)
	parent := ctx
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	next := make(chan int, nChunks)
	for c := 0; c < nChunks; c++ {
		next <- c
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := -1
			defer func() {
				if r := recover(); r != nil {
					cancel(fmt.Errorf("oracle panicked at %s: %v", l.describe(i), r))
				}
			}()
			y := make([]float64, l.Dim())
			done := ctx.Done()
			for c := range next {
				lo, hi := c*chunk, min((c+1)*chunk, total)
				for i = lo; i < hi; i++ {
					select {
					case <-done:
						return
					default:
					}
					l.Point(i, y)
					out[i] = f.Eval(y)
				}
				rep.add(hi - lo)
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx) // an oracle panic
	}
	return nil
}
