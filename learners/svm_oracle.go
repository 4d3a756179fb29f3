package learners

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// svmOracle is the released SVM decision function
// F_D(y) = Σ_i coef_i·(exp(−‖y − sv_i‖²/(2σ²)) + c) = Σ_i coef_i·exp(…) + b
// with the intercept b = c·Σ_i coef_i (c the public intercept constant). It
// is immutable after construction and safe for concurrent use.
type svmOracle struct {
	dim  int
	g    float64 // 1/(2σ²)
	sv   []float64
	coef []float64
	bias float64 // c·Σ coef_i, computed once with compensated summation
}

func newSVMOracle(dim int, sigma, icpt float64, sol *svmSolution) *svmOracle {
	var s ermSum
	for _, c := range sol.coef {
		s.add(c)
	}
	return &svmOracle{dim: dim, g: 1 / (2 * sigma * sigma), sv: sol.sv, coef: sol.coef, bias: icpt * s.value()}
}

func (o *svmOracle) Dim() int { return o.dim }

// Eval returns F_D(y). It panics if len(y) != Dim() (programmer misuse).
func (o *svmOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: query has %d coordinates, oracle has dimension %d", len(y), o.dim))
	}
	var f float64
	for s, c := range o.coef {
		x := o.sv[s*o.dim : (s+1)*o.dim]
		var d2 float64
		for j, v := range y {
			t := v - x[j]
			d2 += t * t
		}
		f += c * math.Exp(-o.g*d2)
	}
	return f + o.bias
}

// EvalGrid writes F_D on the lattice axes[0] × … × axes[ℓ−1] into out in
// row-major order (last axis fastest). The RBF kernel factorises over axes,
// K(y, x) = Π_j exp(−g(y_j − x_j)²), so it tabulates ℓ·k·n_sv exponentials
// once and then needs only multiply-adds per lattice point. It returns
// ctx.Err() if cancelled and panics on a shape mismatch (programmer misuse).
func (o *svmOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	if len(axes) != o.dim {
		panic(fmt.Sprintf("learners: %d grid axes for an oracle of dimension %d", len(axes), o.dim))
	}
	total := 1
	for _, a := range axes {
		total *= len(a)
	}
	if len(out) != total {
		panic(fmt.Sprintf("learners: grid output has %d cells, lattice has %d", len(out), total))
	}
	if total == 0 {
		return nil
	}
	m := len(o.coef)
	// tab[j][g*m + s] = exp(−g(axes[j][g] − sv_sj)²)
	tab := make([][]float64, o.dim)
	for j, a := range axes {
		t := make([]float64, len(a)*m)
		for gi, v := range a {
			row := t[gi*m : (gi+1)*m]
			for s := range m {
				d := v - o.sv[s*o.dim+j]
				row[s] = math.Exp(-o.g * d * d)
			}
		}
		tab[j] = t
	}
	// Split the lattice over the first axis.
	outer := len(axes[0])
	inner := total / outer
	workers := min(runtime.GOMAXPROCS(0), outer)
	var wg sync.WaitGroup
	var next int
	var mu sync.Mutex
	take := func() int {
		mu.Lock()
		defer mu.Unlock()
		if next >= outer || ctx.Err() != nil {
			return -1
		}
		next++
		return next - 1
	}
	for range workers {
		wg.Go(func() {
			prod := make([][]float64, o.dim) // prod[j][s] = coef_s·Π_{i≤j} tab
			for j := range prod {
				prod[j] = make([]float64, m)
			}
			idx := make([]int, o.dim)
			for g0 := take(); g0 >= 0; g0 = take() {
				t0 := tab[0][g0*m : (g0+1)*m]
				for s := range m {
					prod[0][s] = o.coef[s] * t0[s]
				}
				o.fillBlock(tab, axes, prod, idx, out[g0*inner:(g0+1)*inner])
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// fillBlock evaluates the sub-lattice of axes[1:] given prod[0].
func (o *svmOracle) fillBlock(tab, axes, prod [][]float64, idx []int, out []float64) {
	m := len(o.coef)
	last := o.dim - 1
	if last == 0 {
		var f float64
		for _, v := range prod[0] {
			f += v
		}
		out[0] = f + o.bias
		return
	}
	for j := 1; j < o.dim; j++ {
		idx[j] = 0
	}
	refresh := 1 // the lowest axis whose product prefix is stale
	for cell := range out {
		for j := refresh; j < last; j++ {
			t := tab[j][idx[j]*m : (idx[j]+1)*m]
			pj, pp := prod[j], prod[j-1]
			for s := range m {
				pj[s] = pp[s] * t[s]
			}
		}
		t := tab[last][idx[last]*m : (idx[last]+1)*m]
		pp := prod[last-1]
		var f float64
		for s := range m {
			f += pp[s] * t[s]
		}
		out[cell] = f + o.bias
		// odometer
		refresh = last
		for j := last; j >= 1; j-- {
			idx[j]++
			if idx[j] < len(axes[j]) {
				break
			}
			idx[j] = 0
			refresh = j - 1
		}
		refresh = max(refresh, 1)
	}
}
