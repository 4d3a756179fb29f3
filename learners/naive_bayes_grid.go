package learners

import (
	"context"
	"math"
)

// EvalGrid writes F_D at every point of axes[0] × … × axes[ℓ−1] into out
// (row-major, last axis fastest), exactly. Because P(y|c) is a product of
// one-dimensional kernel averages, it computes per class and axis the
// average at each axis value (n_c·Σ_j len(axes[j]) kernel evaluations) and
// then the outer products. It returns an error if the axes or out do not
// match, or ctx.Err() if cancelled.
func (o *nbOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	clear(out)
	for c, xc := range o.x {
		nc := len(xc) / o.dim
		if nc == 0 {
			continue
		}
		avg := make([][]float64, o.dim)
		for j, ax := range axes {
			if err := ctx.Err(); err != nil {
				return err
			}
			a := make([]float64, len(ax))
			for k, t := range ax {
				var s float64
				for i := j; i < len(xc); i += o.dim {
					u := t - xc[i]
					s += math.Exp(-u * u * o.inv2b2[j])
				}
				a[k] = s * o.kscale[j] / float64(nc)
			}
			avg[j] = a
		}
		w := float64(nc) / float64(o.n)
		if c == 0 {
			w = -w
		}
		addOuter(out, avg, w)
	}
	return nil
}

// addOuter adds w·⊗_j v[j] to out (row-major, last factor fastest).
func addOuter(out []float64, v [][]float64, w float64) {
	idx := make([]int, len(v))
	for p := range out {
		prod := w
		for j, k := range idx {
			prod *= v[j][k]
		}
		out[p] += prod
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(v[j]) {
				break
			}
			idx[j] = 0
		}
	}
}
