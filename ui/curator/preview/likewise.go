package preview

import (
	"context"
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/study"
)

// Like with like (issue 19, item 1). When the overlay shows an (ε, δ)-DP
// peer (Hall et al.'s GP, at δ = study.PeerDelta of the curator's δ), the
// tradeoff plot gains the Bernstein mechanism at the same (ε, δ): the
// Gaussian mechanism and the Laplace-approx variant of Section 4.2, at the
// curator's h, simulated by the same engine, seed and repeats as the other
// curves. Their k follows the curator's choice: the curator's k, or with the
// automatic k the rule a release would use for that noise and δ
// (mechanism.ResolveK at the curator's ε). A kind the curator already
// chose at that δ is not repeated (its curves are the Bernstein ones). The
// legend then groups every curve by guarantee (study.GuaranteeGroup): the
// curator's curves, bounds and baseline under the curator's guarantee, each
// peer under its own.

// approxDPKinds are the Bernstein noise kinds with an (ε, δ) guarantee, in
// legend order.
var approxDPKinds = []mechanism.NoiseKind{mechanism.NoiseGaussian, mechanism.NoiseLaplaceApprox}

// approxDPLabel names a Bernstein (ε, δ) curve in the legend.
func approxDPLabel(kind mechanism.NoiseKind, h int, k []int) string {
	name := map[mechanism.NoiseKind]string{mechanism.NoiseGaussian: "Gaussian", mechanism.NoiseLaplaceApprox: "Laplace-approx"}[kind]
	return fmt.Sprintf("Bernstein %s, h = %d, k = %s", name, h, KLabel(k))
}

// addApproxDPCurves appends the Bernstein (ε, δ) curves beside the (ε, δ)
// peers of res (none: nothing to add) and groups the legend by guarantee.
// A kind whose k cannot be resolved is left out with a warning naming the
// reason.
func (e *Engine) addApproxDPCurves(ctx context.Context, req release.Request, st *previewState, res *Result) error {
	delta := 0.0
	for _, pc := range res.Peers {
		if pc.Delta > 0 {
			delta = pc.Delta
		}
	}
	if delta == 0 {
		return nil
	}
	fit, p := st.prep.Fitted, st.params
	dim := len(p.K)
	for ci, kind := range approxDPKinds {
		if p.Noise == kind && p.Delta == delta {
			continue
		}
		q := p
		q.Noise, q.Delta = kind, delta
		q.K = req.Privacy.K
		r, err := mechanism.ResolveK(q, dim, req.KAuto, req.Beta, fit.Sensitivity, fit.StandIn)
		switch {
		case err == nil:
			q.K = r.K
		case req.KAuto:
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not shown: %v", approxDPLabel(kind, p.H, p.K), err))
			continue
		default:
			q.K = p.K // the curator's k; ε it refuses are left out of the curve
		}
		y, err := e.approxDPCurve(ctx, st, q)
		if err != nil {
			return err
		}
		// Before the peers of its group, as the curator's Bernstein curves
		// come before the pure peers.
		c := plotting.Curve{Label: approxDPLabel(kind, q.H, q.K), Y: y, Colour: 6 + len(res.Peers) + ci, Width: 2.5,
			Group: study.GuaranteeGroup(delta)}
		at := slices.IndexFunc(res.Tradeoff.Curves, func(c plotting.Curve) bool {
			return slices.ContainsFunc(res.Peers, func(pc study.PeerCurve) bool { return pc.Delta > 0 && pc.Label == c.Label })
		})
		if at < 0 {
			at = len(res.Tradeoff.Curves)
		}
		res.Tradeoff.Curves = slices.Insert(res.Tradeoff.Curves, at, c)
	}
	groupByGuarantee(res.Tradeoff, p.Delta)
	return nil
}

// approxDPCurve is the mean sup-norm error of q (noise, δ, k, h) over the
// plot's ε grid, cached like the Bernstein curves (lattice per k).
func (e *Engine) approxDPCurve(ctx context.Context, st *previewState, q mechanism.Params) ([]float64, error) {
	fit := st.prep.Fitted
	kk := kKey(q.K)
	sens := fit.NoiseSensitivity(q.K, q.Noise) // the release's noise at this k
	key := fmt.Sprintf("likewise|%s|%s|%v|%v|%d|%v|%d", kk, q.Noise, q.Delta, st.epsGrid, st.repeats, sens, q.H)
	r, err := cached(&e.mu, func() (*study.Result, bool) { v := e.curves[key]; return v, v != nil },
		func() (*study.Result, error) {
			exact, err := e.latticeValues(ctx, st, q.K)
			if err != nil {
				return nil, err
			}
			md := st.model
			if kk != st.kk || !slices.Contains(md.Orders(), q.H) {
				if md, err = study.NewModel(q.K, exact, st.grid, st.truth, []int{q.H}); err != nil {
					return nil, err
				}
			}
			return md.Run(ctx, study.Spec{Sensitivity: sens, Noise: q.Noise, Delta: q.Delta,
				Epsilons: st.epsGrid, Orders: []int{q.H}, Repeats: st.repeats, Draws: study.PerRepeat{Seed: previewSeed}}, nil)
		},
		func(v *study.Result) { e.curves[key] = v })
	if err != nil {
		return nil, err
	}
	return r.Mean[0], nil
}

// groupByGuarantee puts every curve without a group (the curator's
// Bernstein curves, baseline, bounds and automatic-k curve) under the
// curator's guarantee δ.
func groupByGuarantee(t *plotting.Tradeoff, curatorDelta float64) {
	for i := range t.Curves {
		if t.Curves[i].Group == "" {
			t.Curves[i].Group = study.GuaranteeGroup(curatorDelta)
		}
	}
}

// latticeValues is F_D on the lattice of k (cached per k, like the
// Bernstein curves' lattice): for curves at another k than the curator's.
func (e *Engine) latticeValues(ctx context.Context, st *previewState, k []int) ([]float64, error) {
	kk := kKey(k)
	return cached(&e.mu, func() ([]float64, bool) { v := e.lattices[kk]; return v, v != nil },
		func() ([]float64, error) {
			lat, err := mechanism.NewLattice(k)
			if err != nil {
				return nil, err
			}
			return mechanism.EvaluateLattice(ctx, st.prep.Fitted.Oracle, lat, nil)
		},
		func(v []float64) { e.lattices[kk] = v })
}
