package study

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// axisMatrix is a per-axis evaluation matrix B_j: one row per grid point
// on axis j, one column per basis index ν = 0..k_j, row-major. Row g holds
// b^(h)_{ν,k_j}(grid_g) for ν = 0..k_j (or an indicator row for the
// nearest-lattice baseline).
type axisMatrix struct {
	rows, cols int
	data       []float64
}

// contractor evaluates a lattice tensor on a tensor grid through per-axis
// matrices: out = (B_1 ⊗ … ⊗ B_ℓ)·c, i.e.
//
//	out[g_1,…,g_ℓ] = Σ_ν c[ν_1,…,ν_ℓ] · ∏_j B_j[g_j][ν_j],
//
// in lattice order (row-major, last axis fastest) for both c and out. For
// ℓ = 2 this is B_1·C·B_2ᵀ. The contraction runs axis by axis (mode
// products, last axis first) with gonum BLAS Dgemm, so its cost is
// Σ_j (∏_{i<j} g_i)·g_j·k_j·(∏_{i>j} k_i) instead of ∏g·∏k. A contractor owns
// two scratch buffers and is not safe for concurrent use; make one per
// goroutine (they are cheap).
type contractor struct {
	mats     []axisMatrix
	buf1     []float64
	buf2     []float64
	outShape []int
}

// newContractor returns a contractor for the matrices; it panics if there
// are none (programmer misuse: a model always has ℓ ≥ 1).
func newContractor(mats []axisMatrix) *contractor {
	if len(mats) == 0 {
		panic("study: newContractor with no axes")
	}
	size := 1
	maxSize := 1
	shape := make([]int, len(mats))
	for j, m := range mats {
		shape[j] = m.cols
	}
	for j := len(mats) - 1; j >= 0; j-- {
		shape[j] = mats[j].rows
		size = 1
		for _, s := range shape {
			size *= s
		}
		maxSize = max(maxSize, size)
	}
	out := make([]int, len(mats))
	for j, m := range mats {
		out[j] = m.rows
	}
	return &contractor{mats: mats, buf1: make([]float64, maxSize), buf2: make([]float64, maxSize), outShape: out}
}

// size returns the number of grid points of the result.
func (c *contractor) size() int {
	n := 1
	for _, s := range c.outShape {
		n *= s
	}
	return n
}

// apply contracts coeffs (lattice order, shape = cols of each matrix) and
// returns the grid values. The returned slice is one of the contractor's
// buffers: it is overwritten by the next call.
func (c *contractor) apply(coeffs []float64) []float64 {
	dims := make([]int, len(c.mats))
	want := 1
	for j, m := range c.mats {
		dims[j] = m.cols
		want *= m.cols
	}
	if len(coeffs) != want {
		panic(fmt.Sprintf("study: contractor: %d coefficients, want %d", len(coeffs), want))
	}
	impl := blas64.Implementation()
	src := coeffs
	dst := c.buf1
	for j := len(c.mats) - 1; j >= 0; j-- {
		m := c.mats[j]
		a := 1 // product of the dimensions before axis j (still lattice sized)
		for i := 0; i < j; i++ {
			a *= dims[i]
		}
		b := 1 // product of the dimensions after axis j (already grid sized)
		for i := j + 1; i < len(dims); i++ {
			b *= dims[i]
		}
		n, g := m.cols, m.rows
		if b == 1 {
			// Last axis: dst (a×g) = src (a×n) · Bᵀ (n×g).
			impl.Dgemm(blas.NoTrans, blas.Trans, a, g, n, 1, src, n, m.data, n, 0, dst, g)
		} else {
			// dst_x (g×b) = B (g×n) · src_x (n×b) for every leading index x.
			for x := 0; x < a; x++ {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, g, b, n, 1, m.data, n, src[x*n*b:(x+1)*n*b], b, 0, dst[x*g*b:(x+1)*g*b], b)
			}
		}
		dims[j] = g
		src = dst
		if &dst[0] == &c.buf1[0] {
			dst = c.buf2
		} else {
			dst = c.buf1
		}
	}
	return src[:c.size()]
}
