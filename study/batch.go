package study

import "github.com/bernsteinrelease/bernstein/internal/gemm"

// linearBatch evaluates several linear maps of one repeat's unit draws for
// a chunk of repeats at once (issue 19 item 4): the maps M_s (g_s × m,
// row-major: the per-order basis matrices of a one-axis Model, the Wang et
// al. weights) are stacked side by side, transposed, into bt (m × cols,
// every block padded to gemm.ColBlock columns), and the noise of c repeats
// is the one product Z·bt (c × m times m × cols) by gemm.MulAdd instead of
// c·Σ_s matrix–vector products. Element (i, s, g) is
// Σ_ν M_s[g][ν]·z_i[ν] as a chain of fused multiply-adds in increasing ν
// (gemm's contract): the same value as the per-repeat product up to
// rounding. Immutable after newLinearBatch; apply needs its own buffers per
// goroutine.
type linearBatch struct {
	m, cols int
	off     []int // first column of block s
	rows    []int // g_s
	bt      []float64
}

// newLinearBatch stacks the maps (mats[s] is rows[s] × m, row-major). It
// returns nil when the kernel is not vectorised (gemm.Fast is false):
// callers then keep their per-repeat products.
func newLinearBatch(m int, mats [][]float64, rows []int) *linearBatch {
	if !gemm.Fast() || m == 0 {
		return nil
	}
	lb := &linearBatch{m: m}
	for _, g := range rows {
		lb.off = append(lb.off, lb.cols)
		lb.rows = append(lb.rows, g)
		lb.cols += roundUp(g, gemm.ColBlock)
	}
	lb.bt = make([]float64, m*lb.cols)
	for s, ms := range mats {
		for g := range rows[s] {
			for v, x := range ms[g*m : (g+1)*m] {
				lb.bt[v*lb.cols+lb.off[s]+g] = x
			}
		}
	}
	return lb
}

// roundUp returns n rounded up to a multiple of b.
func roundUp(n, b int) int { return (n + b - 1) / b * b }

// buffers returns a draw buffer (chunk rows of m, padded to gemm.RowBlock
// rows) and an output buffer for chunks of up to chunk repeats.
func (lb *linearBatch) buffers(chunk int) (zs, noise []float64) {
	r := roundUp(chunk, gemm.RowBlock)
	return make([]float64, r*lb.m), make([]float64, r*lb.cols)
}

// apply sets noise (row i: repeat i, lb.cols wide) to zs·bt for the first
// c rows of zs (repeat i's m draws in zs[i·m:(i+1)·m]); rows up to the
// next multiple of gemm.RowBlock are computed from whatever zs holds there
// and must be ignored.
func (lb *linearBatch) apply(zs []float64, c int, noise []float64) {
	r := roundUp(c, gemm.RowBlock)
	clear(noise[:r*lb.cols])
	gemm.MulAdd(noise, lb.cols, zs, lb.m, 1, lb.bt, lb.cols, r, lb.m, lb.cols)
}

// row returns map s of repeat i from apply's output.
func (lb *linearBatch) row(noise []float64, i, s int) []float64 {
	o := i*lb.cols + lb.off[s]
	return noise[o : o+lb.rows[s]]
}
