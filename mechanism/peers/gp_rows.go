package peers

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
)

// gpRowsBlock is the width of the column blocks of the triangular product
// in SampleRows: block [p0, p0+gpRowsBlock) of the factor needs only its
// first p0+gpRowsBlock rows of Lᵀ.
const gpRowsBlock = 48

// SampleRows writes len(srcs) draws of Sample(scale, srcs[i], ·) into
// out, draw i in out[i·Size() : (i+1)·Size()], drawing z for one sample
// after the other (sources may repeat: a shared source is read in the
// order len(srcs) calls of Sample would). For a one-axis grid with the vectorised kernel (gemm.Fast) the
// factor is applied to all draws in one triangular matrix product (issue
// 19 item 4: figure 1's 1000 paths of 1001 points), each value a chain of
// fused multiply-adds in increasing column order, so it equals Sample's
// value up to rounding; otherwise draw by draw as Sample. Errors as
// Sample, and len(out) ≠ len(srcs)·Size().
func (f *GPFactor) SampleRows(scale float64, srcs []GaussianSource, out []float64) error {
	for _, src := range srcs {
		if src == nil {
			return fmt.Errorf("peers: GPFactor.SampleRows: nil Gaussian source")
		}
	}
	if len(out) != len(srcs)*f.size {
		return fmt.Errorf("peers: GPFactor.SampleRows: output has %d values for %d draws of %d points", len(out), len(srcs), f.size)
	}
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return fmt.Errorf("peers: GPFactor.SampleRows: scale = %v: must be ≥ 0 and finite", scale)
	}
	rows, m := len(srcs), f.size
	if len(f.axes) != 1 || !gemm.Fast() {
		for i, src := range srcs {
			if err := f.Sample(scale, src, out[i*m:(i+1)*m]); err != nil {
				return err
			}
		}
		return nil
	}
	mp := (m + gemm.ColBlock - 1) / gemm.ColBlock * gemm.ColBlock
	f.upperOnce.Do(func() {
		l := f.chol[0]
		f.upper = make([]float64, m*mp)
		for p := range m {
			for q := range p + 1 {
				f.upper[q*mp+p] = l[p*m+q]
			}
		}
	})
	rp := (rows + gemm.RowBlock - 1) / gemm.RowBlock * gemm.RowBlock
	z := make([]float64, rp*m)
	for i, src := range srcs {
		for p := range m {
			z[i*m+p] = src.Gaussian(1)
		}
	}
	g := make([]float64, rp*mp)
	for p0 := 0; p0 < mp; p0 += gpRowsBlock {
		w := min(gpRowsBlock, mp-p0)
		gemm.MulAdd(g[p0:], mp, z, m, 1, f.upper[p0:], mp, rp, min(m, p0+w), w)
	}
	s := scale * math.Sqrt(f.kernel.Amplitude)
	for i := range rows {
		for p, v := range g[i*mp : i*mp+m] {
			out[i*m+p] = v * s
		}
	}
	return nil
}
