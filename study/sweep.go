package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The error-vs-k curve: at the curator's ε and h, the simulated error of
// the release at each candidate cover size, with the k in use marked. Every
// k draws its own lattice noise (the lattice size changes with k), from the
// same seeded plan, so the curve is deterministic.

// LatticeFunc returns F_D on the lattice of cover sizes k, in mechanism's
// lattice order (mechanism.EvaluateLattice on the learner's oracle, or a
// cache of it).
type LatticeFunc func(ctx context.Context, k []int) ([]float64, error)

// KSweep is the simulated error at each candidate cover size at one ε and
// one order.
type KSweep struct {
	Ks     []int     // the cover size of every axis, increasing
	Mean   []float64 // [k index] mean of Spec.Measure; NaN where the ε is invalid at that k
	Also   [][]float64
	Approx []float64 // [k index] noiseless approximation error on the grid
	Chosen int       // index in Ks of the k in use
	Errors []error   // [k index] why Mean is NaN (nil when valid)
}

// Best returns the index in s.Ks of the least mean (ties: the smaller k),
// or −1 when every mean is NaN.
func (s *KSweep) Best() int {
	best := -1
	for i, v := range s.Mean {
		if !math.IsNaN(v) && (best < 0 || v < s.Mean[best]) {
			best = i
		}
	}
	return best
}

// SweepK simulates, for every k of ks (one cover size on every axis of the
// grid) and the chosen one, sp.Repeats releases at sp's single ε and
// single order, scored by sp.Measure and sp.Also on the grid (F_D there is
// truth, lattice order) and, for the point measures, at pts (nil when none
// is asked for). sp.Points and sp.Baseline are ignored: the points are
// bound to each k's model here. The draws are sp.Draws for every k.
// Guarantee: entry i is what Model.Run returns for the model of ks[i] —
// the same releases the tradeoff plot simulates at that k. It returns an
// error if sp has not exactly one ε and one order, ks is empty or holds a
// k < 1, or a model, lattice or run fails; ctx.Err() when cancelled.
// progress (may be nil) gets the finished k.
func SweepK(ctx context.Context, lattice LatticeFunc, grid [][]float64, truth []float64, pts *PointData,
	ks []int, chosen int, sp Spec, progress func(done, total int)) (*KSweep, error) {
	if len(sp.Epsilons) != 1 || len(sp.Orders) != 1 {
		return nil, fmt.Errorf("study: SweepK needs one ε and one order, got %d and %d", len(sp.Epsilons), len(sp.Orders))
	}
	all := slices.Clone(ks)
	if !slices.Contains(all, chosen) {
		all = append(all, chosen)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(ks) == 0 || all[0] < 1 {
		return nil, fmt.Errorf("study: candidate cover sizes %v: need at least one, each ≥ 1", ks)
	}
	if needsPoints(sp.measures()) && pts == nil {
		return nil, errors.New("study: a point measure needs the points")
	}
	out := &KSweep{Ks: all, Chosen: slices.Index(all, chosen),
		Mean: make([]float64, len(all)), Approx: make([]float64, len(all)), Errors: make([]error, len(all))}
	out.Also = make([][]float64, len(sp.Also))
	for a := range out.Also {
		out.Also[a] = make([]float64, len(all))
	}
	sp.Baseline, sp.KeepFirst, sp.Points = false, false, nil
	h := sp.Orders[0]
	for i, k := range all {
		K := slices.Repeat([]int{k}, len(grid))
		exact, err := lattice(ctx, K)
		if err != nil {
			return nil, err
		}
		md, err := NewModel(K, exact, grid, truth, []int{h})
		if err != nil {
			return nil, err
		}
		run := sp
		if needsPoints(sp.measures()) {
			if run.Points, err = md.AtPoints(*pts); err != nil {
				return nil, err
			}
		}
		res, err := md.Run(ctx, run, nil)
		if err != nil {
			return nil, err
		}
		out.Mean[i], out.Approx[i], out.Errors[i] = res.Mean[0][0], res.Approx[0], res.Errors[0]
		for a := range res.Also {
			out.Also[a][i] = res.Also[a][0][0]
		}
		if progress != nil {
			progress(i+1, len(all))
		}
	}
	return out, nil
}

// KCandidates returns the cover sizes of an error-vs-k curve in dim
// dimensions: 1..6, then four steps per doubling (8, 10, 12, 14, 16, 20,
// 24, 28, 32, 40, …) while the lattice (k+1)^dim has at most maxCoefficients values, and
// chosen (whatever its size). The rule is public: it reads only dim,
// chosen and the budget.
func KCandidates(dim, chosen, maxCoefficients int) []int {
	var ks []int
	for k := 1; math.Pow(float64(k+1), float64(dim)) <= float64(maxCoefficients); {
		ks = append(ks, k)
		switch {
		case k < 6:
			k++
		default:
			k += max(2, 1<<(bitLen(k)-3)) // 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, …
		}
	}
	if chosen >= 1 && !slices.Contains(ks, chosen) {
		ks = append(ks, chosen)
		slices.Sort(ks)
	}
	return ks
}

// bitLen is the number of bits of k > 0.
func bitLen(k int) int {
	n := 0
	for ; k > 0; k >>= 1 {
		n++
	}
	return n
}
