package learners

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// kdeChunk is the largest number of data points whose kernel vectors one
// worker of EvalGrid holds at a time; kdeChunkFloats bounds the size of its
// Kronecker buffers (chunk × ∏_{j≥2}(k_j+1) values, 2 MiB), which shrinks
// the chunk for ℓ ≥ 3.
const (
	kdeChunk       = 1024
	kdeChunkFloats = 1 << 18
)

// EvalGrid writes F_D at every point of axes[0] × … × axes[ℓ−1] into out
// (row-major, last axis fastest). It is exact up to floating-point rounding
// (no binning, no truncation beyond kernelTiny): it agrees with Eval to
// about 1e-13 of the peak K (tested to 1e-12). It uses the separability of
// the product kernel: for a chunk of points it builds, per axis j, the
// matrix W_j[i,k] = exp(−(a_jk − d_ij)²/(2b_j²)) (3 exponentials per point
// on a uniform axis such as the mechanism's lattice, see kernelRowUniform);
// the row-wise Kronecker product P of W_2 … W_ℓ and the product W_1ᵀ·P then
// give the chunk's contribution to the whole grid: about ∏_j (k_j+1)
// multiply-adds per point instead of ∏_j (k_j+1) kernel evaluations. Chunks
// are spread over GOMAXPROCS workers. It returns an error if the axes or out
// do not match, or ctx.Err() if cancelled.
func (o *kdeOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	return o.EvalGridProgress(ctx, axes, out, nil)
}

// EvalGridProgress is EvalGrid reporting progress (if not nil) as
// (records processed, n) after each chunk of records, from worker
// goroutines. It lets mechanism.EvaluateLattice evaluate the whole lattice
// in one pass over the data (mechanism.ProgressGridOracle).
func (o *kdeOracle) EvalGridProgress(ctx context.Context, axes [][]float64, out []float64, progress func(done, total int)) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	m1 := len(axes[0])
	rest := len(out) / m1 // columns of P
	chunk := max(16, min(kdeChunk, kdeChunkFloats/rest))
	chunks := (o.n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), chunks)
	acc := make([][]float64, workers)
	errs := make([]error, workers)
	var processed atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := make([]float64, len(out))
			acc[w] = a
			ws := make([][]float64, o.dim)
			for j := range ws {
				ws[j] = make([]float64, chunk*len(axes[j]))
			}
			p := make([]float64, chunk*rest)
			tmp := make([]float64, chunk*rest)
			for c := w; c < chunks; c += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				lo := c * chunk
				hi := min(lo+chunk, o.n)
				o.accumulateChunk(axes, lo, hi, ws, p, tmp, a)
				if progress != nil {
					progress(int(processed.Add(int64(hi-lo))), o.n)
				}
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
	if o.dim == 2 { // P = W_2
		gemmTN(a, ws[0], ws[1], cn, len(axes[0]), len(axes[1]))
		return
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
// exp(−(ax[k] − x[i·dim+j])²·inv2b2) for i ∈ [lo, hi). On a uniform axis
// it uses kernelRowUniform (3 exponentials per row instead of len(ax)).
func kernelMatrix(w, x []float64, dim, j, lo, hi int, ax []float64, inv2b2 float64) {
	m := len(ax)
	uniform := isUniform(ax)
	for i := lo; i < hi; i++ {
		d := x[i*dim+j]
		row := w[(i-lo)*m : (i-lo+1)*m]
		if uniform {
			kernelRowUniform(row, ax[0], (ax[m-1]-ax[0])/float64(m-1), d, inv2b2)
			continue
		}
		for k, a := range ax {
			u := a - d
			row[k] = math.Exp(-u * u * inv2b2)
		}
	}
}

// isUniform reports whether ax is strictly increasing with equal steps up
// to a relative 1e-12 of the step (the mechanism's lattice {p/k}).
func isUniform(ax []float64) bool {
	m := len(ax)
	if m < 3 {
		return false
	}
	h := (ax[m-1] - ax[0]) / float64(m-1)
	if !(h > 0) {
		return false
	}
	for k, a := range ax {
		if math.Abs(a-(ax[0]+float64(k)*h)) > 1e-12*h {
			return false
		}
	}
	return true
}

// kernelTiny is the value below which kernelRowUniform stops its recurrence
// and writes exact zeros: a kernel term below 1e-300 of its peak changes no
// float64 sum of terms that includes any value above 1e-284 of the peak.
const kernelTiny = 1e-300

// kernelRowUniform writes row[k] = exp(−(a0 + k·h − d)²·c) for k < len(row)
// by the recurrence e_{k±1} = e_k·r_k, r_{k±1} = r_k·q with
// q = exp(−2h²c), starting from the lattice point nearest to d so that the
// values decrease away from the start. After k steps a value carries a
// relative error of about (k²/2 + 2k)·u·(1 + z), u = 2⁻⁵³, z its exponent
// (the factor 1 + z is the conditioning of exp itself, which the direct
// formula shares): about 3e-14·(1 + z) for k = 20. Values below kernelTiny
// are written as 0.
func kernelRowUniform(row []float64, a0, h, d, c float64) {
	m := len(row)
	k0 := int(math.Round((d - a0) / h))
	k0 = max(0, min(m-1, k0))
	u0 := a0 + float64(k0)*h - d
	e0 := math.Exp(-u0 * u0 * c)
	row[k0] = e0
	q := math.Exp(-2 * h * h * c)
	// Upwards: ((u+h)² − u²)·c = (2uh + h²)·c.
	e, r := e0, math.Exp(-(2*u0*h+h*h)*c)
	for k := k0 + 1; k < m; k++ {
		e *= r
		r *= q
		if e < kernelTiny {
			clear(row[k:])
			break
		}
		row[k] = e
	}
	// Downwards: ((u−h)² − u²)·c = (−2uh + h²)·c.
	e, r = e0, math.Exp(-(-2*u0*h+h*h)*c)
	for k := k0 - 1; k >= 0; k-- {
		e *= r
		r *= q
		if e < kernelTiny {
			clear(row[:k+1])
			break
		}
		row[k] = e
	}
}

// gemmTN adds Aᵀ·B to c, where A is cn×m1 and B is cn×m2 (both row-major)
// and c is m1×m2 (row-major). Four rows of A and B are combined per pass
// over c, which quarters the loads and stores of c.
func gemmTN(c, a, b []float64, cn, m1, m2 int) {
	i := 0
	for ; i+4 <= cn; i += 4 {
		a0, a1, a2, a3 := a[i*m1:(i+1)*m1], a[(i+1)*m1:(i+2)*m1], a[(i+2)*m1:(i+3)*m1], a[(i+3)*m1:(i+4)*m1]
		b0, b1, b2, b3 := b[i*m2:(i+1)*m2], b[(i+1)*m2:(i+2)*m2], b[(i+2)*m2:(i+3)*m2], b[(i+3)*m2:(i+4)*m2]
		for k := range m1 {
			x0, x1, x2, x3 := a0[k], a1[k], a2[k], a3[k]
			crow := c[k*m2 : (k+1)*m2]
			b0, b1, b2, b3 := b0[:len(crow)], b1[:len(crow)], b2[:len(crow)], b3[:len(crow)]
			for q := range crow {
				crow[q] += x0*b0[q] + x1*b1[q] + x2*b2[q] + x3*b3[q]
			}
		}
	}
	for ; i < cn; i++ {
		arow := a[i*m1 : (i+1)*m1]
		brow := b[i*m2 : (i+1)*m2]
		for k, ak := range arow {
			crow := c[k*m2 : (k+1)*m2]
			brow := brow[:len(crow)]
			for q := range crow {
				crow[q] += ak * brow[q]
			}
		}
	}
}
