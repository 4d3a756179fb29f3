package study

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// PointData are evaluation points off the grid — in the preview, the
// records as the learner saw them (private: curator only): X row-major in
// [0,1]^ℓ, F_D at every point (EvalPoints), and for a classifier the labels
// (> 0: class +1; nil when there are none).
type PointData struct {
	X      []float64
	Truth  []float64
	Labels []float64
}

// N returns the number of points for dim axes.
func (d PointData) N(dim int) int {
	if dim <= 0 {
		return 0
	}
	return len(d.X) / dim
}

// Points are PointData bound to one Model: the per-axis basis rows of
// every order at every point, the exact parts E_h = F_D − B^(h)_k(F_D) at
// the points, and the baseline's nearest lattice points. Made by AtPoints;
// immutable and safe for concurrent use.
type Points struct {
	md     *Model
	n      int
	truth  []float64
	labels []float64
	rows   map[int][]axisMatrix // per order: per axis n × (k_j+1)
	exact  map[int][]float64    // per order: E_h at the points
	// Baseline: the nearest lattice point of every point and truth − F_D there.
	nearest   []int
	baseExact []float64
}

// MaxPoints caps the points of one Points: every repeat costs about
// (points × lattice size) per order. Callers with more records pass a
// subsample (Thin).
const MaxPoints = 20_000

// AtPoints binds d to the model: the measures PointAgreement and
// PointAccuracy of Run are then scored at these points. Guarantee: the
// release at a point is the value mechanism.Simulate's polynomial takes
// there, up to rounding (TestPointMeasuresMatchSimulate). It returns an
// error if X is not a whole number of points in [0,1]^ℓ, there are none or
// more than MaxPoints, Truth has not one finite value per point, or Labels
// is neither nil nor one value per point. The Points keep Truth and Labels
// (not copied).
func (md *Model) AtPoints(d PointData) (*Points, error) {
	dim := len(md.k)
	n := d.N(dim)
	switch {
	case len(d.X)%dim != 0:
		return nil, fmt.Errorf("study: %d point coordinates: not a multiple of ℓ = %d", len(d.X), dim)
	case n == 0 || n > MaxPoints:
		return nil, fmt.Errorf("study: %d points: must be between 1 and %d (Thin a larger set)", n, MaxPoints)
	case len(d.Truth) != n:
		return nil, fmt.Errorf("study: %d values of F_D for %d points", len(d.Truth), n)
	case d.Labels != nil && len(d.Labels) != n:
		return nil, fmt.Errorf("study: %d labels for %d points", len(d.Labels), n)
	}
	for i, x := range d.X {
		if !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("study: coordinate %d of point %d is %g: must be in [0, 1]", i%dim, i/dim, x)
		}
	}
	for i, v := range d.Truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("study: F_D at point %d is %g: must be finite", i, v)
		}
	}
	p := &Points{md: md, n: n, truth: d.Truth, labels: d.Labels,
		rows: map[int][]axisMatrix{}, exact: map[int][]float64{}}
	coord := make([]float64, n)
	for _, h := range md.orders {
		rows := make([]axisMatrix, dim)
		for j, kj := range md.k {
			for i := range coord {
				coord[i] = d.X[i*dim+j]
			}
			rows[j] = basisMatrix(kj, h, coord)
		}
		p.rows[h] = rows
		approx := p.contractor().apply(h, md.lattice)
		e := make([]float64, n)
		for i := range e {
			e[i] = d.Truth[i] - approx[i]
		}
		p.exact[h] = e
	}
	p.nearest = make([]int, n)
	p.baseExact = make([]float64, n)
	for i := range n {
		li := 0
		for j, kj := range md.k {
			// As mechanism.Polynomial.EvalNearest rounds: ⌊y·k + ½⌋, at most k.
			li = li*(kj+1) + min(int(math.Floor(d.X[i*dim+j]*float64(kj)+0.5)), kj)
		}
		p.nearest[i] = li
		p.baseExact[i] = d.Truth[i] - md.lattice[li]
	}
	return p, nil
}

// target is the scoring target of order h with the unit noise contracted
// at the points.
func (p *Points) target(h int, noise []float64) target {
	return target{truth: p.truth, exact: p.exact[h], noise: noise, labels: p.labels}
}

// baseline is the baseline's target for the unit draws z on the lattice.
func (p *Points) baseline(z []float64) target {
	return target{truth: p.truth, exact: p.baseExact, noise: z, idx: p.nearest, labels: p.labels}
}

// NonPrivateAccuracy returns the fraction of the points whose label the
// non-private classifier F_D (class +1 where ≥ threshold) predicts, or NaN
// without labels. Curator only: it reads the records.
func (p *Points) NonPrivateAccuracy(threshold float64) float64 {
	if p.labels == nil {
		return math.NaN()
	}
	n := 0
	for i, v := range p.truth {
		if (p.labels[i] > 0) == (v >= threshold) {
			n++
		}
	}
	return float64(n) / float64(p.n)
}

// pointContractor evaluates a lattice tensor at the points: for point i,
// Σ_ν c_ν ∏_j B_j[i][ν_j]. The last axis is contracted for every point at
// once with BLAS, the others point by point (cost m/(k_ℓ+1) per point).
// It owns its scratch: one per goroutine.
type pointContractor struct {
	p          *Points
	t          []float64 // n × m/(k_ℓ+1)
	buf1, buf2 []float64
	out        []float64
}

func (p *Points) contractor() *pointContractor {
	last := p.md.k[len(p.md.k)-1] + 1
	r := p.md.m / last
	return &pointContractor{p: p, t: make([]float64, r*p.n), buf1: make([]float64, r), buf2: make([]float64, r), out: make([]float64, p.n)}
}

// apply returns the values at the points of order h's polynomial with
// coefficients c (lattice order). The slice is reused by the next call.
func (pc *pointContractor) apply(h int, c []float64) []float64 {
	rows, k, n := pc.p.rows[h], pc.p.md.k, pc.p.n
	last := rows[len(k)-1]
	w := last.cols
	r := len(c) / w
	// T (n × r) = B_ℓ (n × w) · Cᵀ, C the coefficients as an r × w matrix:
	// row i of T is point i's tensor with the last axis contracted.
	blas64.Implementation().Dgemm(blas.NoTrans, blas.Trans, n, r, w, 1, last.data, w, c, w, 0, pc.t, r)
	if len(k) == 1 {
		copy(pc.out, pc.t)
		return pc.out
	}
	bufs := [2][]float64{pc.buf1, pc.buf2}
	for i := range n {
		cur := pc.t[i*r : (i+1)*r]
		for j, t := len(k)-2, 0; j >= 0; j, t = j-1, 1-t {
			w := k[j] + 1
			size := len(cur) / w
			row := rows[j].data[i*w : (i+1)*w]
			next := bufs[t][:size]
			for a := range next {
				s := 0.0
				for b, v := range cur[a*w : (a+1)*w] {
					s += v * row[b]
				}
				next[a] = s
			}
			cur = next
		}
		pc.out[i] = cur[0]
	}
	return pc.out
}

// Thin returns at most limit of the n rows of x (dim coordinates each) and
// their labels (nil stays nil): every row when n ≤ limit, else the rows
// ⌊i·n/limit⌋ for i = 0..limit−1, evenly spread over the file's order. The
// choice depends on n and limit only, never on the values.
func Thin(x []float64, dim int, labels []float64, limit int) ([]float64, []float64) {
	n := len(x) / dim
	if n <= limit {
		return x, labels
	}
	tx := make([]float64, 0, limit*dim)
	var tl []float64
	for i := range limit {
		r := i * n / limit
		tx = append(tx, x[r*dim:(r+1)*dim]...)
		if labels != nil {
			tl = append(tl, labels[r])
		}
	}
	return tx, tl
}
