package ui

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The privacy/utility tradeoff simulation of the curator's preview.
//
// For a fixed lattice (k per axis), the error of a release at the grid
// point g is
//
//	F_D(g) − B̃(g) = [F_D(g) − B^(h)_k(F_D; g)] − λ·(B_1 ⊗ … ⊗ B_ℓ)·Z (g),
//
// where Z holds i.i.d. UNIT noise draws on the lattice (Laplace(1), or
// Normal(0,1) for Gaussian noise), λ = mechanism.NoiseScale(S, ε, …) and
// B_j = b^(h)_{·,k_j}(grid_j) are the per-axis basis matrices. The first
// bracket (the "exact part" E_h) is deterministic and computed once per
// (F_D, k, h); the noise part is linear in Z, so one contraction per repeat
// and order serves every ε (only λ changes). The nearest-lattice baseline
// of Section 4.2 uses the same Z at the nearest lattice point. All noise is
// seeded simulation noise (mechanism.SimulationNoise): this is a preview,
// never a release.
//
// Using the same Z for every ε, order and the baseline within a repeat
// (common random numbers) keeps each averaged curve an unbiased estimate of
// its expected sup-norm error while making the curves directly comparable.

// tradeoffGrid returns the per-axis evaluation grid of the preview for
// dimension dim: the sup-norm is taken over this tensor grid. It has about
// 10⁴ points in total (100×100 for ℓ = 2) and at least 4 points per axis.
func tradeoffGrid(dim int) [][]float64 {
	var n int
	switch dim {
	case 1:
		n = 512
	case 2:
		n = 100
	default:
		n = max(4, int(math.Floor(math.Pow(1e4, 1/float64(dim)))))
	}
	axes := make([][]float64, dim)
	for j := range axes {
		axes[j] = linspace01(n)
	}
	return axes
}

// linspace01 returns n ≥ 2 evenly spaced points from 0 to 1 inclusive.
func linspace01(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / float64(n-1)
	}
	out[n-1] = 1
	return out
}

// tradeoffModel caches everything of the tradeoff simulation that depends
// only on F_D and the lattice: the true values on the grid, the per-order
// basis matrices and exact parts, and the baseline's nearest lattice
// points. It is immutable after newTradeoffModel and safe for concurrent
// use.
type tradeoffModel struct {
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

// newTradeoffModel builds the model from F_D on the lattice (exact, in
// lattice order for k) and on the grid (truth). It returns an error if the
// shapes do not match or values are not finite.
func newTradeoffModel(k []int, exact []float64, grid [][]float64, truth []float64, orders []int) (*tradeoffModel, error) {
	if _, err := mechanism.NewLattice(k); err != nil {
		return nil, err
	}
	lat := mechanism.Lattice{K: k}
	if len(exact) != lat.Size() {
		return nil, fmt.Errorf("preview: %d lattice values for k = %v: want %d", len(exact), k, lat.Size())
	}
	if len(grid) != len(k) {
		return nil, fmt.Errorf("preview: %d grid axes for %d lattice axes", len(grid), len(k))
	}
	gsize := 1
	for _, a := range grid {
		gsize *= len(a)
	}
	if len(truth) != gsize {
		return nil, fmt.Errorf("preview: %d grid values: want %d", len(truth), gsize)
	}
	for i, v := range truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("preview: F_D at grid point %d is %g: must be finite", i, v)
		}
	}
	md := &tradeoffModel{
		k: slices.Clone(k), grid: grid, truth: truth, orders: slices.Clone(orders),
		mats: map[int][]axisMatrix{}, exact: map[int][]float64{}, approx: map[int]float64{},
		m: lat.Size(),
	}
	for _, h := range orders {
		if h < 1 || h > mechanism.MaxH {
			return nil, fmt.Errorf("preview: order h = %d: must be between 1 and %d", h, mechanism.MaxH)
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

// tradeoffSpec is one tradeoff computation: which noise, which ε values,
// how many repeats.
type tradeoffSpec struct {
	Sensitivity float64
	Noise       mechanism.NoiseKind
	Delta       float64
	Epsilons    []float64
	Orders      []int // subset of the model's orders
	Baseline    bool
	Repeats     int
	Seed        uint64
}

// tradeoffResult holds the mean sup-norm error over the repeats.
type tradeoffResult struct {
	Epsilons []float64
	Orders   []int
	Mean     [][]float64 // [order index][ε index]; NaN where ε is invalid for the noise kind
	Baseline []float64   // [ε index]; nil unless requested
	Scales   []float64   // noise scale per ε (NaN where invalid)
	Approx   []float64   // per order: sup-norm error of the noiseless approximation on the grid
	Errors   []error     // per ε: why it is NaN (nil when valid)
}

// maxTradeoffRepeats caps the repeats of one computation.
const maxTradeoffRepeats = 100_000

// run computes the tradeoff curves. progress (may be nil) is called with
// the number of finished repeats, from worker goroutines. It returns
// ctx.Err() when cancelled.
func (md *tradeoffModel) run(ctx context.Context, sp tradeoffSpec, progress func(done, total int)) (*tradeoffResult, error) {
	if sp.Repeats < 1 || sp.Repeats > maxTradeoffRepeats {
		return nil, fmt.Errorf("preview: %d repeats: must be between 1 and %d", sp.Repeats, maxTradeoffRepeats)
	}
	if len(sp.Epsilons) == 0 {
		return nil, errors.New("preview: no ε values")
	}
	for _, h := range sp.Orders {
		if _, ok := md.mats[h]; !ok {
			return nil, fmt.Errorf("preview: order h = %d is not in the model (orders %v)", h, md.orders)
		}
	}
	res := &tradeoffResult{
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

	// perRepeat[r] holds nO·nE order errors then nE baseline errors, so the
	// final sums run in repeat order whatever the scheduling (deterministic).
	stride := nO*nE + nE
	perRepeat := make([]float64, sp.Repeats*stride)
	var next, done atomic.Int64
	workers := min(runtime.GOMAXPROCS(0), sp.Repeats)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cons := make([]*contractor, nO)
			for o, h := range sp.Orders {
				cons[o] = newContractor(md.mats[h])
			}
			z := make([]float64, md.m)
			for {
				r := int(next.Add(1)) - 1
				if r >= sp.Repeats || ctx.Err() != nil {
					return
				}
				src := mechanism.NewSimulationNoise(repeatSeed(sp.Seed, r))
				for i := range z {
					if sp.Noise == mechanism.NoiseGaussian {
						z[i] = src.Gaussian(1)
					} else {
						z[i] = src.Laplace(1)
					}
				}
				out := perRepeat[r*stride : (r+1)*stride]
				for o, h := range sp.Orders {
					supErrors(md.exact[h], cons[o].apply(z), nil, res.Scales, out[o*nE:(o+1)*nE])
				}
				if sp.Baseline {
					supErrors(md.baseExact, z, md.nearest, res.Scales, out[nO*nE:])
				}
				d := int(done.Add(1))
				if progress != nil {
					progress(d, sp.Repeats)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for r := 0; r < sp.Repeats; r++ {
		out := perRepeat[r*stride : (r+1)*stride]
		for o := range nO {
			for i := range nE {
				res.Mean[o][i] += out[o*nE+i]
			}
		}
		for i := range res.Baseline {
			res.Baseline[i] += out[nO*nE+i]
		}
	}
	inv := 1 / float64(sp.Repeats)
	for i, s := range res.Scales {
		valid := !math.IsNaN(s)
		for o := range nO {
			if valid {
				res.Mean[o][i] *= inv
			} else {
				res.Mean[o][i] = math.NaN()
			}
		}
		if res.Baseline != nil {
			if valid {
				res.Baseline[i] *= inv
			} else {
				res.Baseline[i] = math.NaN()
			}
		}
	}
	return res, nil
}

// supErrors sets out[i] = max_g |exact[g] − scales[i]·noise[at(g)]| for
// every valid (non-NaN) scale, where at(g) = g, or idx[g] when idx is not
// nil (the baseline's nearest lattice point).
func supErrors(exact, noise []float64, idx []int, scales []float64, out []float64) {
	clear(out)
	for g, e := range exact {
		n := 0.0
		if idx == nil {
			n = noise[g]
		} else {
			n = noise[idx[g]]
		}
		for i, s := range scales {
			if d := math.Abs(e - s*n); d > out[i] {
				out[i] = d
			}
		}
	}
	// NaN scales produce NaN differences, which never win the comparison,
	// so out[i] stays 0 there; run() replaces those entries by NaN.
}

// repeatSeed derives the seed of repeat r from the base seed (SplitMix64
// finaliser), so repeats are independent streams and results do not depend
// on how repeats are scheduled on workers.
func repeatSeed(base uint64, r int) uint64 {
	z := base + uint64(r+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// epsilonGrid returns the 7 ε values of the tradeoff plot around eps: half
// decades from 10^(c−1.5) to 10^(c+1.5) with c = round(log10 ε). The grid
// only changes when ε crosses a half-decade boundary, so moving the ε
// slider usually just moves the marker.
func epsilonGrid(eps float64) []float64 {
	c := math.Round(math.Log10(eps))
	out := make([]float64, 7)
	for i := range out {
		out[i] = math.Pow(10, c-1.5+0.5*float64(i))
	}
	return out
}
