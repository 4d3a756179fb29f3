package peers

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The public grid of the product's GP release and the interpolation at a
// fixed list of points (issue 19): one home for the grid's size rule, so
// that the release (project/release), a hall-gp file (project/synopsis)
// and the simulations of that release (package study) use the same grid,
// and the simulations evaluate it by the same interpolation as the file.

// GPReleaseAxes returns the public grid of a GP release at cover sizes k:
// the Bernstein lattice of the same k (mechanism.Lattice.Axes), axis j
// holding the k_j + 1 points ν/k_j, ν = 0..k_j, so the grid values of the
// release are F_D on the lattice. It returns mechanism.ValidateK's error
// for an invalid k (the GP's own limits, MaxGPAxisPoints and
// MaxGPGridPoints, are NewGPFactor's and NewGPGrid's).
func GPReleaseAxes(k []int) ([][]float64, error) {
	lat, err := mechanism.NewLattice(k)
	if err != nil {
		return nil, err
	}
	return lat.Axes(), nil
}

// GPInterpolation is GPGrid.Eval at a fixed list of points as a sparse
// linear map of the grid values: Apply(values, out) sets out[q] to
// (&GPGrid{Axes: axes, Values: values}).Eval(point q) bit for bit (the
// same corners, weights and order of summation). A simulation that draws
// many releases on one grid evaluates each at the same points with it.
// It is immutable after NewGPInterpolation.
type GPInterpolation struct {
	size  int       // grid values Apply takes
	start []int     // point q's corners are idx[start[q]:start[q+1]]
	idx   []int     // grid indices of the non-zero corners, in Eval's order
	wt    []float64 // their weights
}

// NewGPInterpolation validates axes (as NewGPGrid) and the points
// (row-major, len(points) a multiple of ℓ = len(axes), every coordinate
// not NaN; each is clamped to the grid's box as Eval does) and returns the
// interpolation at them. Memory: at most 2^ℓ corners per point.
func NewGPInterpolation(axes [][]float64, points []float64) (*GPInterpolation, error) {
	total, err := validateGPAxes(axes)
	if err != nil {
		return nil, err
	}
	dim := len(axes)
	if len(points)%dim != 0 {
		return nil, fmt.Errorf("peers: GP interpolation: %d coordinates for points of dimension %d", len(points), dim)
	}
	for i, v := range points {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("peers: GP interpolation: point %d, coordinate %d is NaN", i/dim, i%dim)
		}
	}
	g := &GPGrid{Axes: axes}
	n := len(points) / dim
	m := &GPInterpolation{size: total, start: make([]int, n+1)}
	for q := range n {
		idx, wt := g.corners(points[q*dim : (q+1)*dim])
		for c, at := range idx {
			if at >= 0 {
				m.idx = append(m.idx, at)
				m.wt = append(m.wt, wt[c])
			}
		}
		m.start[q+1] = len(m.idx)
	}
	return m, nil
}

// Points returns the number of points.
func (m *GPInterpolation) Points() int { return len(m.start) - 1 }

// Apply writes the interpolant of the grid values at every point into
// out. It panics if len(values) is not the grid's size or len(out) not
// Points() (programmer misuse).
func (m *GPInterpolation) Apply(values, out []float64) {
	if len(values) != m.size || len(out) != m.Points() {
		panic(fmt.Sprintf("peers: GPInterpolation.Apply: %d values for a grid of %d, %d outputs for %d points", len(values), m.size, len(out), m.Points()))
	}
	for q := range out {
		var sum float64
		for c := m.start[q]; c < m.start[q+1]; c++ {
			sum += m.wt[c] * values[m.idx[c]]
		}
		out[q] = sum
	}
}
