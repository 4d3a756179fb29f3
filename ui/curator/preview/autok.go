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

// With the automatic k the k of a release depends on ε, so the tradeoff
// plot's fixed-k curves understate what a smaller or larger ε would give.
// addAutoKCurve adds the curve a curator would actually get: at each ε of
// the plot, the mean sup-norm error (same study engine, seed and repeats)
// with the k the automatic rule (mechanism.AutoCoverSize, public inputs
// only) picks at that ε, for the current h.

// autoKCurve is the cached curve: the k per ε and the mean errors (and a
// classifier's mean agreement; nil otherwise).
type autoKCurve struct {
	ks    []int
	mean  []float64
	agree []float64
}

// addAutoKCurve appends the automatic-k curve to res.Tradeoff (in the
// function plot's units; a classifier's agreement). req must have KAuto
// set.
func (e *Engine) addAutoKCurve(ctx context.Context, req release.Request, st *previewState, res *Result) error {
	p := st.params
	key := fmt.Sprintf("%s|%d|%s", st.ckey, p.H, e.FitKey)
	curve, err := cached(&e.mu, func() (*autoKCurve, bool) { v := e.autoK[key]; return v, v != nil },
		func() (*autoKCurve, error) { return e.computeAutoKCurve(ctx, req, st) },
		func(v *autoKCurve) { e.autoK[key] = v })
	if err != nil {
		return err
	}
	lo, hi := slices.Min(curve.ks), slices.Max(curve.ks)
	c := plotting.Curve{
		Label: fmt.Sprintf("Bernstein, h = %d, automatic k at each ε (k = %d…%d)", p.H, lo, hi),
		// The current order's colour, dashed: the same h, a different k.
		Colour: max(slices.Index(st.curves.Orders, p.H), 0), Dashed: true, Width: 2.5,
	}
	if curve.agree != nil {
		c.Label = fmt.Sprintf("agreement, h = %d, automatic k at each ε (k = %d…%d)", p.H, lo, hi)
		c.Y = curve.agree
	} else {
		c.Y = make([]float64, len(curve.mean))
		for i, v := range curve.mean {
			c.Y[i] = st.units.Plot(v)
		}
	}
	res.Tradeoff.Curves = append(res.Tradeoff.Curves, c)
	return nil
}

// computeAutoKCurve resolves the automatic k at every ε of the plot and
// simulates each distinct k once (lattice cached per k), with the same
// measures as the tradeoff curves.
func (e *Engine) computeAutoKCurve(ctx context.Context, req release.Request, st *previewState) (*autoKCurve, error) {
	fit, p := st.prep.Fitted, st.params
	dim := len(p.K)
	beta := req.Beta
	if beta == 0 {
		beta = mechanism.DefaultBeta
	}
	out := &autoKCurve{ks: make([]int, len(st.epsGrid)), mean: make([]float64, len(st.epsGrid))}
	agree := st.alsoIndex(study.PointAgreement)
	if agree >= 0 {
		out.agree = make([]float64, len(st.epsGrid))
	}
	byK := map[int][]int{} // k → indices into epsGrid
	for i, eps := range st.epsGrid {
		q := p
		q.Epsilon = eps
		k := mechanism.AutoCoverSize(q, p.H, dim, fit.Sensitivity, beta, fit.StandIn)
		out.ks[i] = k
		byK[k] = append(byK[k], i)
	}
	for k, idx := range byK {
		K := slices.Repeat([]int{k}, dim)
		exact, err := e.latticeValues(ctx, st, K)
		if err != nil {
			return nil, err
		}
		md, err := study.NewModel(K, exact, st.grid, st.truth, []int{p.H})
		if err != nil {
			return nil, err
		}
		eps := make([]float64, len(idx))
		for j, i := range idx {
			eps[j] = st.epsGrid[i]
		}
		sp := st.spec(eps, []int{p.H}, false)
		sp.Sensitivity = fit.NoiseSensitivity(K, p.Noise) // the release's noise at this k
		if st.pts != nil {
			if sp.Points, err = md.AtPoints(*st.pts); err != nil {
				return nil, err
			}
		}
		r, err := md.Run(ctx, sp, nil)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out.mean[i] = r.Mean[0][j]
			if out.agree != nil {
				out.agree[i] = r.Also[agree][0][j]
			}
		}
	}
	return out, nil
}
