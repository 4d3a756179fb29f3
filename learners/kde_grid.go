package learners

import (
	"context"
	"math"
	"runtime"
	"sync"
)

// kdeChunk is the number of data points whose kernel vectors are held at a
// time by one worker of EvalGrid.
const kdeChunk = 1024

// EvalGrid writes F_D at every point of axes[0] × … × axes[ℓ−1] into out
// (row-major, last axis fastest), exactly (no binning). It uses the
// separability of the product kernel: for a chunk of points it builds, per
// axis j, the matrix W_j[i,k] = exp(−(a_jk − d_ij)²/(2b_j²)); the row-wise
// Kronecker product P of W_2 … W_ℓ and the product W_1ᵀ·P then give the
// chunk's contribution to the whole grid, ∏_j (k_j+1) multiply-adds per point
// instead of ℓ·∏_j (k_j+1) exponentials. Chunks are spread over GOMAXPROCS
// workers. It returns an error if the axes or out do not match, or ctx.Err()
// if cancelled.
func (o *kdeOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	m1 := len(axes[0])
	rest := len(out) / m1 // columns of P
	chunks := (o.n + kdeChunk - 1) / kdeChunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	acc := make([][]float64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := make([]float64, len(out))
			acc[w] = a
			ws := make([][]float64, o.dim)
			for j := range ws {
				ws[j] = make([]float64, kdeChunk*len(axes[j]))
			}
			p := make([]float64, kdeChunk*rest)
			tmp := make([]float64, kdeChunk*rest)
			for c := w; c < chunks; c += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				lo := c * kdeChunk
				hi := min(lo+kdeChunk, o.n)
				o.accumulateChunk(axes, lo, hi, ws, p, tmp, a)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	clear(out)
	for _, a := range acc {
		for i, v := range a {
			out[i] += v
		}
	}
	for i := range out {
		out[i] *= o.scale
	}
	return nil
}

// accumulateChunk adds Σ_{i∈[lo,hi)} ∏_j W_j[i, k_j] to a (unscaled).
func (o *kdeOracle) accumulateChunk(axes [][]float64, lo, hi int, ws [][]float64, p, tmp, a []float64) {
	cn := hi - lo
	for j, ax := range axes {
		kernelMatrix(ws[j][:cn*len(ax)], o.x, o.dim, j, lo, hi, ax, o.inv2b2[j])
	}
	// P = row-wise Kronecker product of W_2 … W_ℓ (a column of ones if ℓ = 1).
	width := 1
	pv := p[:cn]
	for i := range pv {
		pv[i] = 1
	}
	for j := 1; j < o.dim; j++ {
		mj := len(axes[j])
		wj := ws[j]
		nw := width * mj
		t := tmp[:cn*nw]
		for i := range cn {
			prow := p[i*width : (i+1)*width]
			wrow := wj[i*mj : (i+1)*mj]
			trow := t[i*nw : (i+1)*nw]
			for q, pq := range prow {
				dst := trow[q*mj : (q+1)*mj]
				for k, wk := range wrow {
					dst[k] = pq * wk
				}
			}
		}
		copy(p[:cn*nw], t)
		width = nw
	}
	gemmTN(a, ws[0], p, cn, len(axes[0]), width)
}

// kernelMatrix fills w (row-major, (hi−lo) × len(ax)) with
// exp(−(ax[k] − x[i·dim+j])²·inv2b2) for i ∈ [lo, hi).
func kernelMatrix(w, x []float64, dim, j, lo, hi int, ax []float64, inv2b2 float64) {
	m := len(ax)
	for i := lo; i < hi; i++ {
		d := x[i*dim+j]
		row := w[(i-lo)*m : (i-lo+1)*m]
		for k, a := range ax {
			u := a - d
			row[k] = math.Exp(-u * u * inv2b2)
		}
	}
}

// gemmTN adds Aᵀ·B to c, where A is cn×m1 and B is cn×m2 (both row-major)
// and c is m1×m2 (row-major).
func gemmTN(c, a, b []float64, cn, m1, m2 int) {
	for i := range cn {
		arow := a[i*m1 : (i+1)*m1]
		brow := b[i*m2 : (i+1)*m2]
		for k, ak := range arow {
			crow := c[k*m2 : (k+1)*m2]
			for q, bq := range brow {
				crow[q] += ak * bq
			}
		}
	}
}
