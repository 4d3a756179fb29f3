package learners

// The kernel density estimate from aggregates (issue 20): counts of records
// per fine bin cell instead of the records. Used by project/aggregate.

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// KDEBins are the aggregates of a binned KDE: per occupied cell of the
// grid of B fine bins per axis, its bin index on each axis and the number
// of records in it. Record i with mapped features d_i lies in the cell
// (⌊d_ij·B⌋ clamped to B−1)_j, whose centre is ((bin_j + ½)/B)_j.
type KDEBins struct {
	Dim    int
	B      int     // fine bins per axis (public)
	Cells  []int32 // len(Counts)·Dim bin indices, row-major, each in [0, B)
	Counts []int64 // records per cell, each ≥ 1
	// N is the public number of records. The counts must add up to it:
	// they never define n.
	N int
}

// maxKDEBins is the largest B of KDEBins (project/aggregate.MaxBins).
const maxKDEBins = 1 << 20

// FitKDEBinned fits the KDE of NewKDE to the bin centres weighted by their
// counts:
//
//	F(y) = (1/n) Σ_cells count_c · K_H(y − centre_c),
//
// which is the KDE of the records rounded to their bin centres. The
// centres lie in [0,1]^ℓ and replacing one record changes one rounded
// record, hence one kernel term, so S(F), the lattice-L1 bound, the range
// and the stand-in are exactly those of NewKDE for the same n and
// bandwidths (docs/sensitivity.md, "Binned KDE from aggregates"). Its
// distance from the exact KDE is at most KDEBinningBound.
//
// Errors (public checks only): parameters as NewKDE's Fit; a dimension
// outside 1…4, B outside [2, 2²⁰], a bin index outside [0, B), a count
// below 1, n < 1, or counts that do not add up to n (naming both).
func FitKDEBinned(ctx context.Context, bins KDEBins, values Values) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := kdeSpec.Resolve(values, bins.Dim)
	if err != nil {
		return nil, err
	}
	if err := bins.check(); err != nil {
		return nil, err
	}
	k := newKDEKernel(res["bandwidth"], bins.N)
	o := &binnedKDEOracle{
		dim:    bins.Dim,
		b:      bins.B,
		cells:  slices.Clone(bins.Cells),
		counts: make([]float64, len(bins.Counts)),
		inv2b2: k.inv2b2,
		scale:  k.peak / float64(bins.N),
	}
	for i, c := range bins.Counts {
		o.counts[i] = float64(c)
	}
	return k.fitted(o, res["bandwidth"], fmt.Sprintf("; records binned to B = %d per axis", bins.B)), nil
}

// check validates the bins (public checks; the sum of counts against the
// declared n).
func (k KDEBins) check() error {
	if k.Dim < kdeSpec.MinDim || k.Dim > kdeSpec.MaxDim {
		return fmt.Errorf("%s: %d feature columns; this learner needs between %d and %d", KindKDE, k.Dim, kdeSpec.MinDim, kdeSpec.MaxDim)
	}
	if k.B < 2 || k.B > maxKDEBins {
		return fmt.Errorf("%s: B = %d bins per axis; it must be between 2 and %d", KindKDE, k.B, maxKDEBins)
	}
	if len(k.Cells) != len(k.Counts)*k.Dim {
		return fmt.Errorf("%s: %d bin indices for %d cells of %d axes", KindKDE, len(k.Cells), len(k.Counts), k.Dim)
	}
	if k.N < 1 {
		return fmt.Errorf("%s: n = %d; the public number of records must be at least 1", KindKDE, k.N)
	}
	for i, b := range k.Cells {
		if b < 0 || int(b) >= k.B {
			return fmt.Errorf("%s: cell %d, axis %d: bin %d is outside [0, %d)", KindKDE, i/k.Dim, i%k.Dim+1, b, k.B)
		}
	}
	var total int64
	for i, c := range k.Counts {
		if c < 1 {
			return fmt.Errorf("%s: cell %d: count %d is below 1", KindKDE, i, c)
		}
		if total += c; total > int64(k.N) {
			break
		}
	}
	if total != int64(k.N) {
		return fmt.Errorf("%s: the aggregates count %s records but the declared n is %d: n is public and declared, never taken from the aggregates", KindKDE, countText(total, int64(k.N)), k.N)
	}
	return nil
}

// countText is the total of counts, or "more than n" when the sum stopped
// early.
func countText(total, n int64) string {
	if total > n {
		return fmt.Sprintf("more than %d", n)
	}
	return fmt.Sprint(total)
}

// KDEBinningBound is the largest difference between the binned KDE
// (FitKDEBinned) and the KDE of the records themselves at any y, for
// bandwidths bw (one per axis) and B bins per axis:
//
//	|F_binned(y) − F(y)| ≤ K·e^{−1/2}·Σ_j 1/(2B·b_j),  K = ∏_j 1/(√(2π)·b_j),
//
// the kernel's Lipschitz constant along each axis (K·e^{−1/2}/b_j) times
// half a bin (docs/sensitivity.md, "Binned KDE from aggregates"). It panics
// if B < 1 or a bandwidth is not positive (programmer misuse).
func KDEBinningBound(bw []float64, B int) float64 {
	if B < 1 {
		panic("learners: KDEBinningBound: B < 1")
	}
	peak, s := 1.0, 0.0
	for _, b := range bw {
		if !(b > 0) {
			panic("learners: KDEBinningBound: bandwidth not positive")
		}
		peak *= gaussPeak(b)
		s += 1 / b
	}
	return peak * math.Exp(-0.5) * s / (2 * float64(B))
}

// binnedKDEOracle is F of FitKDEBinned; immutable, safe for concurrent use.
type binnedKDEOracle struct {
	dim    int
	b      int
	cells  []int32   // bin indices, row-major
	counts []float64 // records per cell
	inv2b2 []float64
	scale  float64 // K/n
}

func (o *binnedKDEOracle) Dim() int { return o.dim }

// centre is the mapped coordinate of the centre of bin i.
func (o *binnedKDEOracle) centre(i int32) float64 { return (float64(i) + 0.5) / float64(o.b) }

// Eval returns F(y). It panics if len(y) != Dim() (programmer misuse).
func (o *binnedKDEOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: binned kde Eval: len(y) = %d, want %d", len(y), o.dim))
	}
	var s float64
	for c, w := range o.counts {
		var q float64
		for j, yj := range y {
			u := yj - o.centre(o.cells[c*o.dim+j])
			q += u * u * o.inv2b2[j]
		}
		s += w * math.Exp(-q)
	}
	return s * o.scale
}

// EvalGrid writes F at every point of axes[0] × … × axes[ℓ−1] (row-major,
// last axis fastest). The kernel is separable and the centres lie on the
// fine grid, so per axis it tabulates the kernel between every occupied
// bin and every grid coordinate once; each cell then adds count times the
// Kronecker product of its rows of axes 2…ℓ to the accumulator of its
// axis-1 bin, and the grid is the product of the axis-1 table with the
// accumulators: about cells·∏_{j≥2}(k_j+1) + bins₁·∏_j(k_j+1)
// multiply-adds.
func (o *binnedKDEOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	tables := make([][]float64, o.dim) // per axis: occupied bin row × grid coordinate
	rows := make([][]int32, o.dim)     // per axis: bin → row of its table, −1 if unused
	for j, ax := range axes {
		rows[j] = slices.Repeat([]int32{-1}, o.b)
		var used int32
		for c := range o.counts {
			if b := o.cells[c*o.dim+j]; rows[j][b] < 0 {
				rows[j][b] = used
				used++
				for _, a := range ax {
					u := a - o.centre(b)
					tables[j] = append(tables[j], math.Exp(-u*u*o.inv2b2[j]))
				}
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	m1 := len(axes[0])
	rest := len(out) / m1
	used1 := len(tables[0]) / m1
	acc := make([]float64, used1*rest)
	kron := make([]float64, rest)
	tmp := make([]float64, rest)
	for c, w := range o.counts {
		if c%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		width := 1
		kron[0] = w
		for j := 1; j < o.dim; j++ {
			mj := len(axes[j])
			r := int(rows[j][o.cells[c*o.dim+j]])
			t := tables[j][r*mj : (r+1)*mj]
			for p := range width {
				for k, v := range t {
					tmp[p*mj+k] = kron[p] * v
				}
			}
			width *= mj
			copy(kron[:width], tmp[:width])
		}
		r1 := int(rows[0][o.cells[c*o.dim]])
		a := acc[r1*rest : (r1+1)*rest]
		for p, v := range kron[:rest] {
			a[p] += v
		}
	}
	clear(out)
	gemmTN(out, tables[0], acc, used1, m1, rest)
	for i := range out {
		out[i] *= o.scale
	}
	return nil
}
