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
	k      []int
	grid   [][]float64
	truth  []float64 // F_D on the grid, lattice order (private: curator only)
	orders []int
	mats   map[int][]axisMatrix // per order h: B_j^(h)
	exact  map[int][]float64    // per order h: E_h = truth − B^(h)_k(F_D) on the grid
	approx map[int]float64      // per order h: max_g |E_h(g)|
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
// finite, or an order is outside [1, mechanism.MaxH]. The model keeps grid
// and truth (not copied): the caller must not change them.
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
		k: slices.Clone(k), grid: grid, truth: truth, orders: slices.Clone(orders),
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

// Measure is what one simulated release is scored by.
type Measure int

const (
	// SupError is sup_grid |F_D − release| (the paper's error measure).
	SupError Measure = iota
	// SignAgreement is the fraction of grid points where the classifiers
	// sign(F_D) and sign(release) (class +1 where ≥ 0) agree (Figure 2).
	SignAgreement
)

// Spec is one computation on a Model: the noise, the ε values, the orders
// (and the baseline), the repeats, where the draws come from and the
// measure.
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
	// KeepFirst keeps the grid values of repeat 0 of every order and ε
	// (Result.First), e.g. to draw one simulated release.
	KeepFirst bool
}

// Result holds the mean of the measure over the repeats.
type Result struct {
	Epsilons []float64
	Orders   []int
	Mean     [][]float64   // [order index][ε index]; NaN where ε is invalid for the noise kind
	Baseline []float64     // [ε index]; nil unless requested
	Scales   []float64     // noise scale per ε (NaN where invalid)
	Approx   []float64     // per order: sup-norm error of the noiseless approximation on the grid
	Errors   []error       // per ε: why it is NaN (nil when valid)
	First    [][][]float64 // [order index][ε index]: repeat 0 on the grid (KeepFirst only)
}

// Run simulates sp.Repeats releases of every order (and the baseline) per
// ε and returns the mean of sp.Measure. Guarantee: repeat r of order h at ε
// scores the polynomial mechanism.Simulate would return for the exact
// lattice values, parameters (ε, δ, noise, k, h) and unit draws Z_r of
// sp.Draws, up to floating-point rounding (TestModelMatchesSimulate). The
// noise scale is mechanism.NoiseScale; an ε it refuses is NaN in the
// result with the reason in Errors, not an error. Results depend only on the
// model, sp and the seeds, never on scheduling. progress (may be nil) gets
// the finished repeats. It returns ctx.Err() when cancelled.
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
	res.Mean = make([][]float64, nO)
	for o := range res.Mean {
		res.Mean[o] = make([]float64, nE)
	}
	if sp.Baseline {
		res.Baseline = make([]float64, nE)
	}
	if !anyValid {
		for o := range res.Mean {
			for i := range res.Mean[o] {
				res.Mean[o][i] = math.NaN()
			}
		}
		for i := range res.Baseline {
			res.Baseline[i] = math.NaN()
		}
		return res, nil
	}
	if sp.KeepFirst {
		res.First = make([][][]float64, nO)
		for o := range res.First {
			res.First[o] = make([][]float64, nE)
		}
	}
	series := nO
	if sp.Baseline {
		series++
	}
	sums, err := simulate(ctx, draws, res.Scales, sp.Repeats, series, func() repeatFunc {
		return md.worker(sp, res.First)
	}, progress)
	if err != nil {
		return nil, err
	}
	inv := 1 / float64(sp.Repeats)
	for i, s := range res.Scales {
		valid := !math.IsNaN(s)
		for o := range nO {
			if valid {
				res.Mean[o][i] = sums[o*nE+i] * inv
			} else {
				res.Mean[o][i] = math.NaN()
			}
		}
		if res.Baseline != nil {
			if valid {
				res.Baseline[i] = sums[nO*nE+i] * inv
			} else {
				res.Baseline[i] = math.NaN()
			}
		}
	}
	return res, nil
}

// worker returns the repeat function of one goroutine (own contractors and
// scratch): it draws the m unit values Z of the lattice from src, contracts
// them for every order, and scores each order and the baseline at every
// scale of its ε group. first (may be nil) receives repeat 0's grid values.
func (md *Model) worker(sp Spec, first [][][]float64) repeatFunc {
	cons := make([]*contractor, len(sp.Orders))
	for o, h := range sp.Orders {
		cons[o] = newContractor(md.mats[h])
	}
	z := make([]float64, md.m)
	nO := len(sp.Orders)
	return func(r int, src Source, eps []int, scales, out []float64) error {
		for i := range z {
			if sp.Noise == mechanism.NoiseGaussian {
				z[i] = src.Gaussian(1)
			} else {
				z[i] = src.Laplace(1)
			}
		}
		nE := len(scales)
		for o, h := range sp.Orders {
			noise := cons[o].apply(z)
			md.score(sp.Measure, md.exact[h], noise, nil, scales, out[o*nE:(o+1)*nE])
			if first != nil && r == 0 {
				for i, e := range eps {
					first[o][e] = md.release(md.exact[h], noise, nil, scales[i])
				}
			}
		}
		if sp.Baseline {
			md.score(sp.Measure, md.baseExact, z, md.nearest, scales, out[nO*nE:])
		}
		return nil
	}
}

// score writes the measure of the release truth − (exact − scales[i]·noise)
// for every scale into out (0 for NaN scales).
func (md *Model) score(m Measure, exact, noise []float64, idx []int, scales, out []float64) {
	if m == SignAgreement {
		signAgreement(md.truth, exact, noise, idx, scales, out)
		return
	}
	supErrors(exact, noise, idx, scales, out)
}

// release returns the grid values truth − (exact − s·noise) of one release.
func (md *Model) release(exact, noise []float64, idx []int, s float64) []float64 {
	out := make([]float64, len(exact))
	for g, e := range exact {
		out[g] = md.truth[g] - (e - s*noiseAt(noise, idx, g))
	}
	return out
}

func noiseAt(noise []float64, idx []int, g int) float64 {
	if idx == nil {
		return noise[g]
	}
	return noise[idx[g]]
}

// supErrors sets out[i] = max_g |exact[g] − scales[i]·noise[at(g)]| for
// every valid (non-NaN) scale, where at(g) = g, or idx[g] when idx is not
// nil (the baseline's nearest lattice point).
func supErrors(exact, noise []float64, idx []int, scales []float64, out []float64) {
	clear(out)
	for g, e := range exact {
		n := noiseAt(noise, idx, g)
		for i, s := range scales {
			if d := math.Abs(e - s*n); d > out[i] {
				out[i] = d
			}
		}
	}
	// NaN scales produce NaN differences, which never win the comparison,
	// so out[i] stays 0 there; Run replaces those entries by NaN.
}

// signAgreement sets out[i] to the fraction of grid points g where
// truth[g] and the release truth[g] − (exact[g] − scales[i]·noise[at(g)])
// have the same sign (≥ 0 counts as +1).
func signAgreement(truth, exact, noise []float64, idx []int, scales []float64, out []float64) {
	for i, s := range scales {
		n := 0
		for g, e := range exact {
			if (truth[g] >= 0) == (truth[g]-(e-s*noiseAt(noise, idx, g)) >= 0) {
				n++
			}
		}
		out[i] = float64(n) / float64(len(exact))
	}
}
