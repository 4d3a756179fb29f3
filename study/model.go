package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// For a fixed lattice (k per axis), the error of a simulated release at the
// grid point g is
//
//	F_D(g) − B̃(g) = [F_D(g) − B^(h)_k(F_D; g)] − λ·(B_1 ⊗ … ⊗ B_ℓ)·Z (g),
//
// where Z holds i.i.d. UNIT noise draws on the lattice (Laplace(1), or
// Normal(0,1) for Gaussian noise), λ = mechanism.NoiseScale(S, ε, …) and
// B_j = b^(h)_{·,k_j}(grid_j) are the per-axis basis matrices. The first
// bracket (the "exact part" E_h) is deterministic and computed once per
// (F_D, k, h); the noise part is linear in Z, so one contraction per repeat
// and order serves every ε that shares the draws (only λ changes). The
// nearest-lattice baseline of Section 4.2 uses the same Z at the nearest
// lattice point.

// Model is the Bernstein side of a study: everything that depends only on
// F_D and the lattice — the true values on the grid, the per-order basis
// matrices and exact parts, and the baseline's nearest lattice points. It is
// immutable after NewModel and safe for concurrent use.
type Model struct {
	k       []int
	grid    [][]float64
	lattice []float64 // F_D on the lattice (private: curator only)
	truth   []float64 // F_D on the grid, lattice order (private: curator only)
	orders  []int
	mats    map[int][]axisMatrix // per order h: B_j^(h)
	exact   map[int][]float64    // per order h: E_h = truth − B^(h)_k(F_D) on the grid
	approx  map[int]float64      // per order h: max_g |E_h(g)|
	// Baseline (nearest lattice point): index of the nearest lattice point
	// of every grid point and truth − F_D(nearest).
	nearest   []int
	baseExact []float64
	m         int // lattice size ∏(k_j+1)
}

// NewModel builds the model of orders h from F_D on the lattice of cover
// sizes k (exact, in lattice order) and on the tensor grid (truth, lattice
// order over grid). Guarantee: Run's errors are those of the iterated
// Bernstein polynomials of mechanism (Definition 9 of Aldà & Rubinstein
// 2017) evaluated on grid. It returns an error if k is invalid
// (mechanism.NewLattice), the shapes do not match, a value of truth is not
// finite, or an order is outside [1, mechanism.MaxH]. The model keeps
// exact, grid and truth (not copied): the caller must not change them.
func NewModel(k []int, exact []float64, grid [][]float64, truth []float64, orders []int) (*Model, error) {
	if _, err := mechanism.NewLattice(k); err != nil {
		return nil, err
	}
	lat := mechanism.Lattice{K: k}
	if len(exact) != lat.Size() {
		return nil, fmt.Errorf("study: %d lattice values for k = %v: want %d", len(exact), k, lat.Size())
	}
	if len(grid) != len(k) {
		return nil, fmt.Errorf("study: %d grid axes for %d lattice axes", len(grid), len(k))
	}
	gsize := 1
	for _, a := range grid {
		gsize *= len(a)
	}
	if len(truth) != gsize {
		return nil, fmt.Errorf("study: %d grid values: want %d", len(truth), gsize)
	}
	for i, v := range truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("study: F_D at grid point %d is %g: must be finite", i, v)
		}
	}
	md := &Model{
		k: slices.Clone(k), grid: grid, lattice: exact, truth: truth, orders: slices.Clone(orders),
		mats: map[int][]axisMatrix{}, exact: map[int][]float64{}, approx: map[int]float64{},
		m: lat.Size(),
	}
	for _, h := range orders {
		if h < 1 || h > mechanism.MaxH {
			return nil, fmt.Errorf("study: order h = %d: must be between 1 and %d", h, mechanism.MaxH)
		}
		mats := make([]axisMatrix, len(k))
		for j, kj := range k {
			mats[j] = basisMatrix(kj, h, grid[j])
		}
		md.mats[h] = mats
		approxGrid := newContractor(mats).apply(exact)
		e := make([]float64, gsize)
		sup := 0.0
		for g := range e {
			e[g] = truth[g] - approxGrid[g]
			sup = math.Max(sup, math.Abs(e[g]))
		}
		md.exact[h] = e
		md.approx[h] = sup
	}
	// Nearest lattice point per axis, as mechanism.Polynomial.EvalNearest
	// rounds: ν = ⌊y·k + ½⌋ (half up), at most k.
	near := make([][]int, len(k))
	for j, kj := range k {
		near[j] = make([]int, len(grid[j]))
		for i, y := range grid[j] {
			near[j][i] = min(int(math.Floor(y*float64(kj)+0.5)), kj)
		}
	}
	md.nearest = make([]int, gsize)
	md.baseExact = make([]float64, gsize)
	idx := make([]int, len(k))
	for g := 0; g < gsize; g++ {
		r := g
		for j := len(k) - 1; j >= 0; j-- {
			idx[j] = r % len(grid[j])
			r /= len(grid[j])
		}
		li := 0
		for j, kj := range k {
			li = li*(kj+1) + near[j][idx[j]]
		}
		md.nearest[g] = li
		md.baseExact[g] = truth[g] - exact[li]
	}
	return md, nil
}

// basisMatrix returns the len(ys)×(k+1) matrix of b^(h)_{ν,k}(y).
func basisMatrix(k, h int, ys []float64) axisMatrix {
	b := mechanism.NewIteratedBasis(k, h)
	m := axisMatrix{rows: len(ys), cols: k + 1, data: make([]float64, len(ys)*(k+1))}
	for i, y := range ys {
		b.At(y, m.data[i*(k+1):(i+1)*(k+1)])
	}
	return m
}

// Approx returns the noiseless approximation error max_g |E_h(g)| of order
// h on the grid (NaN if h is not one of the model's orders).
func (md *Model) Approx(h int) float64 {
	a, ok := md.approx[h]
	if !ok {
		return math.NaN()
	}
	return a
}

// Orders returns the orders the model was built for.
func (md *Model) Orders() []int { return slices.Clone(md.orders) }

// Spec is one computation on a Model: the noise, the ε values, the orders
// (and the baseline), the repeats, where the draws come from and the
// measures.
type Spec struct {
	Sensitivity float64
	Noise       mechanism.NoiseKind
	Delta       float64
	Epsilons    []float64
	Orders      []int // subset of the model's orders
	Baseline    bool
	Repeats     int   // 1..MaxRepeats
	Draws       Draws // nil: PerRepeat{Seed: 0}
	Measure     Measure
	// Also lists further measures scored on the SAME simulated releases
	// as Measure (Result.Also), e.g. the agreement of a classifier beside
	// its sup-norm error.
	Also []Measure
	// Threshold is the class boundary of the sign measures (SignAgreement,
	// PointAgreement, PointAccuracy) in the learner's units: class +1
	// where the value is ≥ Threshold (0 for a class score, ½ for a
	// probability). It must be finite.
	Threshold float64
	// Points are the evaluation points of the point measures
	// (PointAgreement, PointAccuracy), made by this model's AtPoints.
	Points *Points
	// KeepFirst keeps the grid values of repeat 0 of every order and ε
	// (Result.First), e.g. to draw one simulated release.
	KeepFirst bool
}

// Result holds the mean of the measures over the repeats.
type Result struct {
	Epsilons []float64
	Orders   []int
	Mean     [][]float64   // [order index][ε index]; NaN where ε is invalid for the noise kind
	Baseline []float64     // [ε index]; nil unless requested
	Scales   []float64     // noise scale per ε (NaN where invalid)
	Approx   []float64     // per order: sup-norm error of the noiseless approximation on the grid
	Errors   []error       // per ε: why it is NaN (nil when valid)
	First    [][][]float64 // [order index][ε index]: repeat 0 on the grid (KeepFirst only)
	// Also[a] is Mean for the measure Spec.Also[a] (same releases), and
	// AlsoBaseline[a] its Baseline (nil unless requested).
	Also         [][][]float64
	AlsoBaseline [][]float64
}

// Run simulates sp.Repeats releases of every order (and the baseline) per
// ε and returns the mean of sp.Measure (and of every measure of sp.Also,
// scored on the same releases). Guarantee: repeat r of order h at ε
// scores the polynomial mechanism.Simulate would return for the exact
// lattice values, parameters (ε, δ, noise, k, h) and unit draws Z_r of
// sp.Draws, up to floating-point rounding (TestModelMatchesSimulate,
// TestPointMeasuresMatchSimulate). The noise scale is mechanism.NoiseScale;
// an ε it refuses is NaN in the result with the reason in Errors, not an
// error. Results depend only on the model, sp and the seeds, never on
// scheduling. progress (may be nil) gets the finished repeats. It returns
// ctx.Err() when cancelled, and an error naming the rule when a measure is
// unknown, a point measure has no Points of this model (or accuracy no
// labels), or the threshold is not finite.
func (md *Model) Run(ctx context.Context, sp Spec, progress func(done, total int)) (*Result, error) {
	if len(sp.Epsilons) == 0 {
		return nil, errors.New("study: no ε values")
	}
	if sp.Repeats < 1 || sp.Repeats > MaxRepeats {
		return nil, fmt.Errorf("study: %d repeats: must be between 1 and %d", sp.Repeats, MaxRepeats)
	}
	for _, h := range sp.Orders {
		if _, ok := md.mats[h]; !ok {
			return nil, fmt.Errorf("study: order h = %d is not in the model (orders %v)", h, md.orders)
		}
	}
	measures := sp.measures()
	if err := md.checkMeasures(measures, sp); err != nil {
		return nil, err
	}
	draws := sp.Draws
	if draws == nil {
		draws = PerRepeat{}
	}
	res := &Result{
		Epsilons: slices.Clone(sp.Epsilons), Orders: slices.Clone(sp.Orders),
		Scales: make([]float64, len(sp.Epsilons)), Errors: make([]error, len(sp.Epsilons)),
	}
	anyValid := false
	for i, eps := range sp.Epsilons {
		// h only matters for validation here; the scale does not depend on it.
		p := mechanism.Params{Epsilon: eps, Delta: sp.Delta, Noise: sp.Noise, K: md.k, H: 1}
		s, err := mechanism.NoiseScale(sp.Sensitivity, p)
		if err != nil {
			res.Scales[i], res.Errors[i] = math.NaN(), err
			continue
		}
		res.Scales[i] = s
		anyValid = true
	}
	for _, h := range sp.Orders {
		res.Approx = append(res.Approx, md.approx[h])
	}
	nO, nE := len(sp.Orders), len(sp.Epsilons)
	perMeasure := nO // series per measure: the orders, then the baseline
	if sp.Baseline {
		perMeasure++
	}
	var sums []float64
	if anyValid {
		if sp.KeepFirst {
			res.First = make([][][]float64, nO)
			for o := range res.First {
				res.First[o] = make([][]float64, nE)
			}
		}
		var err error
		lb := md.linearBatch(sp.Orders)
		sums, err = simulate(ctx, draws, res.Scales, sp.Repeats, perMeasure*len(measures), func() chunkFunc {
			return md.worker(sp, measures, res.First, lb)
		}, progress)
		if err != nil {
			return nil, err
		}
	}
	// mean returns the mean of series s of measure a per ε (NaN where the
	// scale is invalid, or everywhere when no ε is valid).
	inv := 1 / float64(sp.Repeats)
	mean := func(a, s int) []float64 {
		out := make([]float64, nE)
		for i, sc := range res.Scales {
			out[i] = math.NaN()
			if sums != nil && !math.IsNaN(sc) {
				out[i] = sums[(a*perMeasure+s)*nE+i] * inv
			}
		}
		return out
	}
	for a := range measures {
		byOrder := make([][]float64, nO)
		for o := range byOrder {
			byOrder[o] = mean(a, o)
		}
		var base []float64
		if sp.Baseline {
			base = mean(a, nO)
		}
		if a == 0 {
			res.Mean, res.Baseline = byOrder, base
			continue
		}
		res.Also = append(res.Also, byOrder)
		res.AlsoBaseline = append(res.AlsoBaseline, base)
	}
	if !sp.Baseline {
		res.AlsoBaseline = nil
	}
	return res, nil
}

// linearBatch returns the orders' basis matrices stacked for chunked
// products (one axis only: for ℓ ≥ 2 the per-repeat mode products of the
// contractor are already matrix products), or nil.
func (md *Model) linearBatch(orders []int) *linearBatch {
	if len(md.k) != 1 {
		return nil
	}
	mats := make([][]float64, len(orders))
	rows := make([]int, len(orders))
	for o, h := range orders {
		mats[o], rows[o] = md.mats[h][0].data, md.mats[h][0].rows
	}
	return newLinearBatch(md.m, mats, rows)
}

// worker returns the chunk function of one goroutine (own contractors and
// scratch): for each repeat of the chunk it draws the m unit values Z of
// the lattice from its source, contracts them for every order (on the
// grid — for the whole chunk in one product when lb is not nil — and at
// sp.Points when a point measure is asked for), and scores each measure of
// each order and the baseline at every scale of its ε group. first (may be
// nil) receives repeat 0's grid values.
func (md *Model) worker(sp Spec, measures []Measure, first [][][]float64, lb *linearBatch) chunkFunc {
	cons := make([]*contractor, len(sp.Orders))
	for o, h := range sp.Orders {
		cons[o] = newContractor(md.mats[h])
	}
	var pc *pointContractor
	if needsPoints(measures) {
		pc = sp.Points.contractor()
	}
	var zs, noise []float64
	if lb != nil {
		zs, noise = lb.buffers(simChunk)
	} else {
		zs = make([]float64, simChunk*md.m)
	}
	nO := len(sp.Orders)
	perMeasure := nO
	if sp.Baseline {
		perMeasure++
	}
	return func(r0 int, srcs []Source, eps []int, scales, out []float64) error {
		m := md.m
		for i, src := range srcs {
			z := zs[i*m : (i+1)*m]
			for v := range z {
				if sp.Noise == mechanism.NoiseGaussian {
					z[v] = src.Gaussian(1)
				} else {
					z[v] = src.Laplace(1)
				}
			}
		}
		if lb != nil {
			lb.apply(zs, len(srcs), noise)
		}
		nE := len(scales)
		stride := len(out) / len(srcs)
		for i := range srcs {
			z := zs[i*m : (i+1)*m]
			series := func(a, s int) []float64 {
				return out[i*stride+(a*perMeasure+s)*nE : i*stride+(a*perMeasure+s+1)*nE]
			}
			for o, h := range sp.Orders {
				var nz []float64
				if lb != nil {
					nz = lb.row(noise, i, o)
				} else {
					nz = cons[o].apply(z)
				}
				grid := target{truth: md.truth, exact: md.exact[h], noise: nz}
				var pts target
				if pc != nil {
					pts = sp.Points.target(h, pc.apply(h, z))
				}
				for a, m := range measures {
					tg := grid
					if m.atPoints() {
						tg = pts
					}
					score(m, sp.Threshold, tg, scales, series(a, o))
				}
				if first != nil && r0+i == 0 {
					for j, e := range eps {
						first[o][e] = grid.release(scales[j])
					}
				}
			}
			if sp.Baseline {
				grid := target{truth: md.truth, exact: md.baseExact, noise: z, idx: md.nearest}
				for a, m := range measures {
					tg := grid
					if m.atPoints() {
						tg = sp.Points.baseline(z)
					}
					score(m, sp.Threshold, tg, scales, series(a, nO))
				}
			}
		}
		return nil
	}
}
