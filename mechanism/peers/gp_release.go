package peers

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The whole-release path of the Hall–Rinaldo–Wasserman mechanism: adding
// the draw to the grid values (GPFactor.Release), the released function on
// the grid (GPGrid, evaluated by multilinear interpolation) and the public
// noise of the interpolant (GPNoise). Used by the product's GP release
// (project/release) and synopsis files of kind hall-gp (project/synopsis).

// At returns K(x, y). It panics if the lengths differ from len(Sigmas)
// (programmer misuse).
func (k GPKernel) At(x, y []float64) float64 {
	if len(x) != len(k.Sigmas) || len(y) != len(k.Sigmas) {
		panic(fmt.Sprintf("peers: GPKernel.At: points of dimension %d and %d for a kernel of dimension %d", len(x), len(y), len(k.Sigmas)))
	}
	var q float64
	for j, s := range k.Sigmas {
		d := (x[j] - y[j]) / s
		q += d * d / 2
	}
	return k.Amplitude * math.Exp(-q)
}

// Axes returns a copy of the grid axes.
func (f *GPFactor) Axes() [][]float64 {
	out := make([][]float64, len(f.axes))
	for j, a := range f.axes {
		out[j] = slices.Clone(a)
	}
	return out
}

// Jitter returns, per axis, the jitter τ_j from the ladder and the rounding
// allowance ρ_j added to the diagonal of K_j before factoring.
func (f *GPFactor) Jitter() (tau, rho []float64) {
	return slices.Clone(f.jitter), slices.Clone(f.round)
}

// Release returns the grid function values + scale·√A·(⊗L_j)z: the
// values of f_D + √c·G on the grid when values = f_D(grid) and
// scale = GPNoiseScale(Δ, ε, δ). Errors as Sample, plus non-finite values
// and a non-finite result.
func (f *GPFactor) Release(values []float64, scale float64, src GaussianSource) (*GPGrid, error) {
	if len(values) != f.size {
		return nil, fmt.Errorf("peers: GP release: %d values for a grid of %d points", len(values), f.size)
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("peers: GP release: value %d = %v: must be finite", i, v)
		}
	}
	noisy := make([]float64, f.size)
	if err := f.Sample(scale, src, noisy); err != nil {
		return nil, err
	}
	for i, v := range values {
		noisy[i] += v
		if math.IsInf(noisy[i], 0) {
			return nil, fmt.Errorf("peers: GP release: noisy value %d overflowed", i)
		}
	}
	return &GPGrid{Axes: f.Axes(), Values: noisy}, nil
}

// GPRelease is the whole Hall–Rinaldo–Wasserman release in one call:
// values = f_D on the grid (row-major, last axis fastest), kernel the GP
// covariance kernel (the kernel of the RKHS in which rkhsSensitivity = Δ
// was proven), 0 < ε ≤ 1, 0 < δ < 1, src the noise source (see
// GaussianSource: only a secure source makes this a release). The result
// is (ε, δ)-DP if Δ is a true bound (Prop. 2.1); see GPFactor for jitter
// and rounding. To release several times on the same grid, build the
// GPFactor once and call GPNoiseScale and GPFactor.Release.
func GPRelease(axes [][]float64, values []float64, kernel GPKernel, rkhsSensitivity, epsilon, delta float64, src GaussianSource) (*GPGrid, error) {
	scale, err := GPNoiseScale(rkhsSensitivity, epsilon, delta)
	if err != nil {
		return nil, err
	}
	f, err := NewGPFactor(axes, kernel)
	if err != nil {
		return nil, err
	}
	return f.Release(values, scale, src)
}

// GPGrid is a function released through its values on a tensor grid
// (strictly increasing axes; Values row-major, last axis fastest) and
// evaluated anywhere by multilinear interpolation, clamped to the grid's
// box. Interpolation uses only the released values and the public grid, so
// it is post-processing and costs no privacy.
type GPGrid struct {
	Axes   [][]float64
	Values []float64
}

// NewGPGrid validates axes and values (as NewGPFactor; len(values) =
// ∏ len(axes[j]), all finite) and returns a GPGrid holding copies.
func NewGPGrid(axes [][]float64, values []float64) (*GPGrid, error) {
	total, err := validateGPAxes(axes)
	if err != nil {
		return nil, err
	}
	if len(values) != total {
		return nil, fmt.Errorf("peers: GP grid: %d values for %d grid points", len(values), total)
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("peers: GP grid: value %d = %v: must be finite", i, v)
		}
	}
	g := &GPGrid{Values: slices.Clone(values)}
	for _, a := range axes {
		g.Axes = append(g.Axes, slices.Clone(a))
	}
	return g, nil
}

// Eval returns the multilinear interpolant at y; each coordinate is first
// clamped to [axes[j][0], axes[j][last]]. It is exact at grid points and
// linear in each coordinate between neighbouring grid values. It panics if
// len(y) ≠ len(Axes) or y has a NaN (programmer misuse: validate queries
// where they come in).
func (g *GPGrid) Eval(y []float64) float64 {
	if len(y) != len(g.Axes) {
		panic(fmt.Sprintf("peers: GPGrid.Eval: query has %d coordinates, grid has %d axes", len(y), len(g.Axes)))
	}
	idx, wt := g.corners(y)
	var sum float64
	for c, at := range idx {
		if at >= 0 {
			sum += wt[c] * g.Values[at]
		}
	}
	return sum
}

// corners returns the 2^ℓ grid indices around y (each coordinate clamped
// to its axis) and their multilinear weights, in the order Eval sums them;
// a corner of weight 0 has index −1.
func (g *GPGrid) corners(y []float64) (idx []int, wt []float64) {
	dim := len(y)
	lo := make([]int, dim)
	w := make([]float64, dim) // weight of the upper neighbour
	stride := make([]int, dim)
	s := 1
	for j := dim - 1; j >= 0; j-- {
		stride[j] = s
		s *= len(g.Axes[j])
	}
	for j, v := range y {
		if math.IsNaN(v) {
			panic(fmt.Sprintf("peers: GPGrid: coordinate %d is NaN", j))
		}
		a := g.Axes[j]
		m := len(a)
		switch {
		case m == 1 || v <= a[0]:
			lo[j], w[j] = 0, 0
		case v >= a[m-1]:
			lo[j], w[j] = m-2, 1
		default:
			i := sort.SearchFloat64s(a, v) // a[i-1] < v ≤ a[i]
			lo[j] = i - 1
			w[j] = (v - a[i-1]) / (a[i] - a[i-1])
		}
	}
	idx = make([]int, 1<<dim)
	wt = make([]float64, 1<<dim)
	for corner := range 1 << dim {
		weight, at := 1.0, 0
		for j := range dim {
			if corner>>j&1 == 1 {
				if w[j] == 0 {
					weight = 0
					break
				}
				weight *= w[j]
				at += (lo[j] + 1) * stride[j]
			} else {
				weight *= 1 - w[j]
				at += lo[j] * stride[j]
			}
		}
		if weight == 0 {
			at = -1
		}
		idx[corner], wt[corner] = at, weight
	}
	return idx, wt
}

// GPNoise is the public description of the noise of a GP release on a
// grid: the released grid values are f_D(grid) + Scale·√A·(⊗_j L_j)z with
// L_jL_jᵀ = K_j + (τ_j + ρ_j)I (GPFactor), so the covariance of the noise
// between grid points p and q is
//
//	Scale²·A·∏_j (exp(−(a_{p_j} − a_{q_j})²/(2σ_j²)) + (τ_j + ρ_j)·[p_j = q_j]),
//
// ρ_j the rounding allowance of an axis of m_j points with jitter τ_j.
type GPNoise struct {
	Kernel GPKernel
	Jitter []float64 // τ_j per axis (GPFactor.Jitter)
	Scale  float64   // √c (GPNoiseScale)
}

// StdAt returns the standard deviation of the noise of g's multilinear
// interpolant at y: √(Σ_{c,c′} w_c·w_c′·Cov(c, c′)) over the 2^ℓ corners
// around y (the interpolant is linear in the grid values). Cost (2^ℓ)²·ℓ.
// It panics on programmer misuse (lengths that differ from g's axes).
func (n GPNoise) StdAt(g *GPGrid, y []float64) float64 {
	if len(y) != len(g.Axes) || len(n.Kernel.Sigmas) != len(g.Axes) || len(n.Jitter) != len(g.Axes) {
		panic(fmt.Sprintf("peers: GPNoise.StdAt: query of %d coordinates, %d kernel widths, %d jitters for %d axes", len(y), len(n.Kernel.Sigmas), len(n.Jitter), len(g.Axes)))
	}
	idx, wt := g.corners(y)
	dim := len(y)
	// Per-axis grid position of every corner.
	pos := make([][]int, len(idx))
	for c, at := range idx {
		if at < 0 {
			continue
		}
		pos[c] = make([]int, dim)
		for j := dim - 1; j >= 0; j-- {
			m := len(g.Axes[j])
			pos[c][j] = at % m
			at /= m
		}
	}
	var v float64
	for c, pc := range pos {
		if pc == nil {
			continue
		}
		for d, pd := range pos {
			if pd == nil {
				continue
			}
			cov := n.Kernel.Amplitude
			for j, s := range n.Kernel.Sigmas {
				a := g.Axes[j]
				z := (a[pc[j]] - a[pd[j]]) / s
				k := math.Exp(-z * z / 2)
				if pc[j] == pd[j] {
					k += n.Jitter[j] + gpAllowance(len(a), n.Jitter[j])
				}
				cov *= k
			}
			v += wt[c] * wt[d] * cov
		}
	}
	return n.Scale * math.Sqrt(math.Max(v, 0))
}
