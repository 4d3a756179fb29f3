package learners

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
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
// matrix W_j[i,k] = exp(−(a_jk − d_ij)²/(2b_j²)) (2 exponentials per point
// on a uniform axis such as the mechanism's lattice, see kernelRowsProduct
// and kernelRowUniform); the row-wise Kronecker product P of W_2 … W_ℓ and
// the product W_1ᵀ·P then give the chunk's contribution to the whole grid:
// about ∏_j (k_j+1) multiply-adds per point instead of ∏_j (k_j+1) kernel
// evaluations. For ℓ ≥ 2 the product runs on the fused multiply-add kernel
// of internal/gemm where it is vectorised (gemm.Fast), otherwise on gemmTN.
// Chunks are spread over GOMAXPROCS workers. It returns an error if the
// axes or out do not match, or ctx.Err() if cancelled.
func (o *kdeOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	return o.EvalGridProgress(ctx, axes, out, nil)
}

// kdeLayout is the shape of one EvalGrid: the kernel matrices' row strides
// and the accumulator's, padded for gemm.MulAdd when fast. The padding rows
// and columns of the accumulator hold finite sums of kernel values that are
// never read.
type kdeLayout struct {
	fast    bool // W_1ᵀ·P by gemm.MulAdd
	m1      int  // len(axes[0])
	rest    int  // ∏_{j≥2} len(axes[j]): columns of P
	m1Pad   int  // rows of the accumulator: m1, or rounded up to gemm.RowBlock
	restPad int  // row stride of P and of the accumulator
	stride  []int
	axes    []*kernelAxis
}

func (o *kdeOracle) layout(axes [][]float64, total int) *kdeLayout {
	m1 := len(axes[0])
	lay := &kdeLayout{fast: gemm.Fast() && o.dim >= 2, m1: m1, rest: total / m1, m1Pad: m1, stride: make([]int, o.dim), axes: make([]*kernelAxis, o.dim)}
	lay.restPad = lay.rest
	if lay.fast {
		lay.m1Pad = (m1 + gemm.RowBlock - 1) / gemm.RowBlock * gemm.RowBlock
		lay.restPad = (lay.rest + gemm.ColBlock - 1) / gemm.ColBlock * gemm.ColBlock
	}
	for j, ax := range axes {
		lay.stride[j] = len(ax)
		lay.axes[j] = newKernelAxis(ax, o.inv2b2[j])
	}
	lay.stride[0] = lay.m1Pad
	if o.dim == 2 {
		lay.stride[1] = lay.restPad // W_2 is P
	}
	return lay
}

// EvalGridProgress is EvalGrid reporting progress (if not nil) as
// (records processed, n) after each chunk of records, from worker
// goroutines. It lets mechanism.EvaluateLattice evaluate the whole lattice
// in one pass over the data (mechanism.ProgressGridOracle).
func (o *kdeOracle) EvalGridProgress(ctx context.Context, axes [][]float64, out []float64, progress func(done, total int)) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	lay := o.layout(axes, len(out))
	chunk := max(16, min(kdeChunk, kdeChunkFloats/lay.restPad))
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
			a := make([]float64, lay.m1Pad*lay.restPad)
			acc[w] = a
			ws := make([][]float64, o.dim)
			for j := range ws {
				ws[j] = make([]float64, chunk*lay.stride[j])
			}
			p := make([]float64, chunk*lay.restPad)
			tmp := make([]float64, chunk*lay.rest)
			var xb []float64 // the chunk's records, read from o.src
			if o.src != nil {
				xb = make([]float64, chunk*o.dim)
			}
			for c := w; c < chunks; c += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				lo := c * chunk
				hi := min(lo+chunk, o.n)
				o.accumulateChunk(lay, lo, hi, ws, p, tmp, a, xb)
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
		for r := range lay.m1 {
			orow := out[r*lay.rest : (r+1)*lay.rest]
			arow := a[r*lay.restPad : r*lay.restPad+lay.rest]
			for i, v := range arow {
				orow[i] += v
			}
		}
	}
	for i := range out {
		out[i] *= o.scale
	}
	return nil
}

// accumulateChunk adds Σ_{i∈[lo,hi)} ∏_j W_j[i, k_j] to a (unscaled; a is
// m1Pad × restPad). With a record source the records are first read into
// xb (chunk·ℓ values): the same values as o.x would hold.
func (o *kdeOracle) accumulateChunk(lay *kdeLayout, lo, hi int, ws [][]float64, p, tmp, a, xb []float64) {
	cn := hi - lo
	x, xlo, xhi := o.x, lo, hi
	if o.src != nil {
		x, xlo, xhi = xb[:cn*o.dim], 0, cn
		o.src.Records(x, lo, hi)
	}
	for j, ka := range lay.axes {
		kernelMatrix(ws[j][:cn*lay.stride[j]], lay.stride[j], x, o.dim, j, xlo, xhi, ka)
	}
	if o.dim == 2 { // P = W_2
		lay.product(a, ws[0], ws[1], cn)
		return
	}
	// P = row-wise Kronecker product of W_2 … W_ℓ (a column of ones if ℓ = 1).
	width := 1
	pv := p[:cn]
	for i := range pv {
		pv[i] = 1
	}
	for j := 1; j < o.dim; j++ {
		mj := len(lay.axes[j].ax)
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
	if lay.restPad != width { // spread the rows to the padded stride (padding columns of a are ignored)
		for i := cn - 1; i >= 0; i-- {
			copy(p[i*lay.restPad:i*lay.restPad+width], p[i*width:(i+1)*width])
		}
	}
	lay.product(a, ws[0], p, cn)
}

// product adds W_1ᵀ·P to a: W_1 is cn × m1 (row stride m1Pad), P is cn ×
// rest (row stride restPad).
func (lay *kdeLayout) product(a, w1, p []float64, cn int) {
	if lay.fast {
		// A[r][i] = W_1[i][r]: row stride 1, column stride m1Pad.
		gemm.MulAdd(a, lay.restPad, w1, 1, lay.m1Pad, p, lay.restPad, lay.m1Pad, cn, lay.restPad)
		return
	}
	gemmTN(a, w1, p, cn, lay.m1, lay.rest)
}

// kernelAxis is one axis of the grid with what kernelMatrix needs for it.
type kernelAxis struct {
	ax      []float64
	inv2b2  float64
	uniform bool // kernelRowUniform applies
	// If not nil, kernelRowsProduct applies: gsym[m−1+d] = exp(−(d·h)²·c)
	// for |d| ≤ m−1.
	gsym []float64
}

// kernelProductMax bounds the exponents of kernelRowsProduct (see
// newKernelAxis): every factor and partial product lies in
// [e^−600, e^600], far from underflow and overflow.
const kernelProductMax = 600

// newKernelAxis prepares an axis for kernelMatrix. A uniform axis gets the
// product rows of kernelRowsProduct when, with span = a_{m−1} − a_0 and
// reach the largest distance from a point of [0, 1] (where the data lie) to
// its nearest axis value, (reach² + 4·reach·span + span²)·c ≤
// kernelProductMax: for the mechanism's lattice {0, 1/k, …, 1} (reach =
// 1/(2k)) that is every bandwidth above about 0.03.
func newKernelAxis(ax []float64, inv2b2 float64) *kernelAxis {
	ka := &kernelAxis{ax: ax, inv2b2: inv2b2, uniform: isUniform(ax)}
	if !ka.uniform {
		return ka
	}
	m := len(ax)
	span := ax[m-1] - ax[0]
	h := span / float64(m-1)
	reach := max(ax[0], 1-ax[m-1], h/2)
	if (reach*reach+4*reach*span+span*span)*inv2b2 <= kernelProductMax {
		ka.gsym = make([]float64, 2*m-1)
		for d := range m {
			dh := float64(d) * h
			ka.gsym[m-1+d] = math.Exp(-dh * dh * inv2b2)
			ka.gsym[m-1-d] = ka.gsym[m-1+d]
		}
	}
	return ka
}

// kernelMatrix fills the first len(ax) values of each row of w (row stride
// stride, hi−lo rows) with exp(−(ax[k] − x[i·dim+j])²·inv2b2) for
// i ∈ [lo, hi). On a uniform axis it uses kernelRowsProduct where its
// exponents are bounded (2 exponentials per row), else kernelRowUniform
// (3 exponentials per row); on other axes one exponential per value.
func kernelMatrix(w []float64, stride int, x []float64, dim, j, lo, hi int, ka *kernelAxis) {
	ax := ka.ax
	m := len(ax)
	if ka.gsym != nil {
		kernelRowsProduct(w, stride, x, dim, j, lo, hi, ka)
		return
	}
	for i := lo; i < hi; i++ {
		d := x[i*dim+j]
		row := w[(i-lo)*stride : (i-lo)*stride+m]
		if ka.uniform {
			kernelRowUniform(row, ax[0], (ax[m-1]-ax[0])/float64(m-1), d, ka.inv2b2)
			continue
		}
		for k, a := range ax {
			u := a - d
			row[k] = math.Exp(-u * u * ka.inv2b2)
		}
	}
}

// kernelRowsProduct writes the kernel rows of a uniform axis a_k = a_0 + k·h
// as products. With k_0 the axis value nearest to the data point d (clamped
// to the axis), u_0 = a_{k_0} − d and c = 1/(2b²),
//
//	exp(−(a_k − d)²·c) = P·F^k·g_{k−k_0},  P = exp(−(u_0² − 2u_0·k_0·h)·c),
//	F = exp(−2u_0·h·c),  g_δ = exp(−(δ·h)²·c) (ka.gsym, once per axis),
//
// two exponentials per row; P·F^k advances by one product per value. Four
// rows advance together (their products are independent, so they overlap
// in the processor). newKernelAxis chose this only where every exponent is
// bounded (kernelProductMax), so nothing underflows or overflows. A value
// carries a relative error of at most about
// (2k + 3 + 5·(z_P + k·z_F + z_g))·2⁻⁵³, where z_P, z_F and z_g are the
// exponents of P, F and g (exp's conditioning: each exponent is itself
// rounded, which the direct formula exp(−(a_k − d)²·c) shares). Since
// |u_0| ≤ h/2 on the lattice, z_P + k·z_F ≤ (k + 1)·h²·c, and z_g is the
// value's own exponent up to u_0: at k = 20 and b = 0.05, near the peak
// about 2e-14 relative, like the direct formula.
func kernelRowsProduct(w []float64, stride int, x []float64, dim, j, lo, hi int, ka *kernelAxis) {
	a0, c := ka.ax[0], ka.inv2b2
	m := len(ka.ax)
	h := (ka.ax[m-1] - a0) / float64(m-1)
	invH := 1 / h // any nearby k_0 will do: it only centres the products
	start := func(i int) (row, g []float64, p, f float64) {
		d := x[i*dim+j]
		k0 := max(0, min(m-1, int((d-a0)*invH+0.5))) // rounds half up where ≥ 0
		u0 := a0 + float64(k0)*h - d
		return w[(i-lo)*stride : (i-lo)*stride+m], ka.gsym[m-1-k0 : 2*m-1-k0],
			math.Exp(-(u0*u0 - 2*u0*float64(k0)*h) * c), math.Exp(-2 * u0 * h * c)
	}
	i := lo
	for ; i+4 <= hi; i += 4 {
		r0, g0, p0, f0 := start(i)
		r1, g1, p1, f1 := start(i + 1)
		r2, g2, p2, f2 := start(i + 2)
		r3, g3, p3, f3 := start(i + 3)
		r0, r1, r2, r3 = r0[:m], r1[:m], r2[:m], r3[:m]
		g0, g1, g2, g3 = g0[:m], g1[:m], g2[:m], g3[:m]
		for k := range m {
			r0[k], r1[k], r2[k], r3[k] = p0*g0[k], p1*g1[k], p2*g2[k], p3*g3[k]
			p0, p1, p2, p3 = p0*f0, p1*f1, p2*f2, p3*f3
		}
	}
	for ; i < hi; i++ {
		r, g, p, f := start(i)
		for k := range r {
			r[k] = p * g[k]
			p *= f
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
