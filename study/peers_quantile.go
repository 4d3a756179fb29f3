package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// The peers' error at 95 % (issue 19): the measure of Model.QuantileError
// for a published peer, so the recommendation and the target search
// compare every mechanism alike — the sup-norm error on the grid for a
// density or a regression, the disagreement with the non-private
// classifier at the records for a classifier (a peer built with
// PeerData.Points).

// QuantileError simulates repeats releases of the peer at eps, repeat r
// drawing its unit noise from RepeatSeed(seed, r) (the draws RunPeers
// gives repeat r with PerRepeat{seed}), and returns the TargetQuantile
// error with its confidence interval and the mean error; Mechanism is the
// peer's Kind, Label its legend name, Noise and Delta its noise, K the
// lattice k it was built for, H 0. An ε the peer's theorem refuses (Hall
// et al.: ε ≤ 1) gives infinite errors (no error). Errors: repeats outside
// [20, MaxRepeats], ctx.Err() when cancelled, a failing draw.
func (s *Peer) QuantileError(ctx context.Context, eps float64, repeats int, seed uint64) (TargetPoint, error) {
	out := TargetPoint{Epsilon: eps, Noise: s.noise, Delta: s.Delta, K: slices.Clone(s.k), Mechanism: s.Kind, Label: s.Label,
		Error: math.Inf(1), Low: math.Inf(1), High: math.Inf(1), Mean: math.Inf(1)}
	if err := checkQuantileRepeats(repeats); err != nil {
		return out, err
	}
	scale, err := s.scale(eps)
	if err != nil {
		return out, nil
	}
	newWork := s.newWorker
	if s.newPointWorker != nil {
		newWork = s.newPointWorker
	}
	errs := make([]float64, repeats)
	var next atomic.Int64
	var wg sync.WaitGroup
	werrs := make([]error, runtime.GOMAXPROCS(0))
	for w := range werrs {
		wg.Go(func() {
			work := newWork()
			scales, one := []float64{scale}, []float64{0}
			for {
				r := int(next.Add(1)) - 1
				if r >= repeats || ctx.Err() != nil {
					return
				}
				if err := work(mechanism.NewSimulationNoise(RepeatSeed(seed, r)), scales, one); err != nil {
					werrs[w] = err
					return
				}
				errs[r] = one[0]
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := errors.Join(werrs...); err != nil {
		return out, fmt.Errorf("study: peer %s: %w", s.Label, err)
	}
	out.setErrors(errs)
	return out, nil
}

// disagreement returns the share of the points whose class (value ≥
// threshold) under released differs from truth's.
func disagreement(released, truth []float64, threshold float64) float64 {
	n := 0
	for i, v := range released {
		if (v >= threshold) != (truth[i] >= threshold) {
			n++
		}
	}
	return float64(n) / float64(len(released))
}

// outputPointWorker is the output-perturbation peer's classifier measure:
// the released function at record y is link(⟨ŵ + (Δ₂/ε)·u, ỹ⟩), u the
// repeat's unit draw (the same draw as the sup-norm worker). It returns
// nil without pc.Points.
func outputPointWorker(pc PeerData, m *learners.LinearModel) (func() func(Source, []float64, []float64) error, error) {
	if pc.Points == nil {
		return nil, nil
	}
	dim, p := m.Dim, m.Dim+1
	n := pc.Points.N(dim)
	if n == 0 || len(pc.Points.Truth) != n {
		return nil, fmt.Errorf("study: output perturbation: %d points with %d values of F_D", n, len(pc.Points.Truth))
	}
	lift := make([]float64, n*p)
	base := make([]float64, n)
	for i := range n {
		row := lift[i*p : (i+1)*p]
		m.Lift(pc.Points.X[i*dim:(i+1)*dim], row)
		for j, v := range row {
			base[i] += m.W[j] * v
		}
	}
	truth, thr := pc.Points.Truth, pc.Threshold
	return func() func(Source, []float64, []float64) error {
		z, rel := make([]float64, n), make([]float64, n)
		return func(src Source, scales, out []float64) error {
			u, err := peers.OutputPerturbationNoise(p, 1, 1, src)
			if err != nil {
				return err
			}
			for i := range z {
				z[i] = 0
				for j, v := range lift[i*p : (i+1)*p] {
					z[i] += u[j] * v
				}
			}
			for e, s := range scales {
				out[e] = 0
				if math.IsNaN(s) {
					continue
				}
				for i, v := range z {
					rel[i] = m.Link(base[i] + s*v)
				}
				out[e] = disagreement(rel, truth, thr)
			}
			return nil
		}
	}, nil
}

// pointWorker is the Hall et al. peer's classifier measure: the release
// at record y is I(F_D)(y) + √c·I(G)(y), I the multilinear interpolation
// of the file (peers.GPInterpolation) on the release's grid, G the
// repeat's unit path there (with PeerData.GPOnGrid: F_D(y) + √c·Ĝ(y), Ĝ
// the interpolant of the path on the preview grid). It returns nil
// without pc.Points.
func (r *gpRelease) pointWorker(pc PeerData) func() func(Source, []float64, []float64) error {
	if pc.Points == nil {
		return nil
	}
	dim := len(pc.Grid)
	n := pc.Points.N(dim)
	truth, thr := pc.Points.Truth, pc.Threshold
	f, base := r.factor, r.base
	if r.points == nil {
		base = truth
	}
	return func() func(Source, []float64, []float64) error {
		path := &peers.GPGrid{Values: make([]float64, f.Size())}
		if r.points == nil {
			path.Axes = pc.Grid // sampled on the preview grid
		}
		g := make([]float64, n)
		rel := make([]float64, n)
		return func(src Source, scales, out []float64) error {
			if err := f.Sample(1, src, path.Values); err != nil {
				return err
			}
			if r.points != nil {
				r.points.Apply(path.Values, g)
			} else {
				for i := range n {
					g[i] = path.Eval(pc.Points.X[i*dim : (i+1)*dim])
				}
			}
			for e, s := range scales {
				out[e] = 0
				if math.IsNaN(s) {
					continue
				}
				for i, v := range g {
					rel[i] = base[i] + s*v
				}
				out[e] = disagreement(rel, truth, thr)
			}
			return nil
		}
	}
}
