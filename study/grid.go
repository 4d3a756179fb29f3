package study

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// Linspace01 returns n ≥ 2 evenly spaced points i/(n−1) from 0 to 1
// inclusive (the last one exactly 1). It panics if n < 2 (programmer
// misuse).
func Linspace01(n int) []float64 {
	if n < 2 {
		panic(fmt.Sprintf("study.Linspace01(%d): need at least 2 points", n))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / float64(n-1)
	}
	out[n-1] = 1
	return out
}

// EvalGrid evaluates F_D on the tensor grid axes[0] × … × axes[ℓ−1] in
// lattice order (last axis fastest), with the oracle's own EvalGrid when it
// is a mechanism.GridOracle, else point by point on all cores. progress
// (may be nil) reports points done. It returns ctx.Err() when cancelled
// and an error naming the point when F_D is not finite there.
func EvalGrid(ctx context.Context, o mechanism.Oracle, axes [][]float64, progress func(done, total int)) ([]float64, error) {
	total := 1
	for _, a := range axes {
		total *= len(a)
	}
	out := make([]float64, total)
	if g, ok := o.(mechanism.GridOracle); ok {
		if err := g.EvalGrid(ctx, axes, out); err != nil {
			return nil, err
		}
		if progress != nil {
			progress(total, total)
		}
		return checkFinite(out, "grid point")
	}
	y := make([][]float64, runtime.GOMAXPROCS(0))
	for w := range y {
		y[w] = make([]float64, len(axes))
	}
	err := evalParallel(ctx, out, func(w, g int) float64 {
		yw := y[w]
		r := g
		for j := len(axes) - 1; j >= 0; j-- {
			yw[j] = axes[j][r%len(axes[j])]
			r /= len(axes[j])
		}
		return o.Eval(yw)
	}, progress)
	if err != nil {
		return nil, err
	}
	return checkFinite(out, "grid point")
}

// EvalPoints returns F_D at the n points of x (row-major, dim coordinates
// each) on all cores. It returns ctx.Err() when cancelled and an error
// naming the record when F_D is not finite there.
func EvalPoints(ctx context.Context, o mechanism.Oracle, x []float64, dim int) ([]float64, error) {
	if dim <= 0 || len(x)%dim != 0 {
		return nil, fmt.Errorf("study: %d point coordinates: not a multiple of ℓ = %d", len(x), dim)
	}
	out := make([]float64, len(x)/dim)
	if err := evalParallel(ctx, out, func(_, i int) float64 { return o.Eval(x[i*dim : (i+1)*dim]) }, nil); err != nil {
		return nil, err
	}
	return checkFinite(out, "record")
}

// evalParallel sets out[i] = eval(w, i) for every i, in chunks on
// runtime.GOMAXPROCS(0) workers (w is the worker's index, for its
// scratch). progress (may be nil) reports values done. It returns
// ctx.Err() when cancelled.
func evalParallel(ctx context.Context, out []float64, eval func(w, i int) float64, progress func(done, total int)) error {
	const chunk = 256
	total := len(out)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for w := range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= total || ctx.Err() != nil {
					return
				}
				end := min(start+chunk, total)
				for i := start; i < end; i++ {
					out[i] = eval(w, i)
				}
				d := int(done.Add(int64(end - start)))
				if progress != nil {
					progress(d, total)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func checkFinite(v []float64, what string) ([]float64, error) {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("F_D is %g at %s %d: the learner returned a non-finite value", x, what, i)
		}
	}
	return v, nil
}
