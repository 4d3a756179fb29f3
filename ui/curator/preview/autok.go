package preview

import (
	"context"
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/learners"
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

// autoKCurve is the cached curve: the k per ε and the mean errors.
type autoKCurve struct {
	ks   []int
	mean []float64
}

// addAutoKCurve appends the automatic-k curve to res.Tradeoff and, when the
// predicted error at the current setting exceeds the function's public
// range, a warning saying what would help. req must have KAuto set.
func (e *Engine) addAutoKCurve(ctx context.Context, req release.Request, st *previewState, res *Result) error {
	fit, p := st.prep.Fitted, st.params
	dim := len(p.K)
	key := fmt.Sprintf("%s|%d|%s", st.ckey, p.H, e.FitKey)
	curve, err := cached(&e.mu, func() (*autoKCurve, bool) { v := e.autoK[key]; return v, v != nil },
		func() (*autoKCurve, error) { return e.computeAutoKCurve(ctx, req, st) },
		func(v *autoKCurve) { e.autoK[key] = v })
	if err != nil {
		return err
	}
	lo, hi := slices.Min(curve.ks), slices.Max(curve.ks)
	res.Tradeoff.Curves = append(res.Tradeoff.Curves, plotting.Curve{
		Label: fmt.Sprintf("Bernstein, h = %d, automatic k at each ε (k = %d…%d)", p.H, lo, hi),
		// The current order's colour, dashed: the same h, a different k.
		Y: curve.mean, Colour: max(slices.Index(st.curves.Orders, p.H), 0), Dashed: true, Width: 2.5,
	})
	if pred, err := mechanism.PredictedError(p, fit.Sensitivity, fit.StandIn); err == nil && fit.StandIn.Known(dim) {
		if rng := fit.OutputRange[1] - fit.OutputRange[0]; rng > 0 && pred >= rng {
			res.Warnings = append(res.Warnings, autoKRangeWarning(st.prep, pred, rng))
		}
	}
	return nil
}

// computeAutoKCurve resolves the automatic k at every ε of the plot and
// simulates each distinct k once (lattice and model cached per k).
func (e *Engine) computeAutoKCurve(ctx context.Context, req release.Request, st *previewState) (*autoKCurve, error) {
	fit, p := st.prep.Fitted, st.params
	dim := len(p.K)
	beta := req.Beta
	if beta == 0 {
		beta = mechanism.DefaultBeta
	}
	out := &autoKCurve{ks: make([]int, len(st.epsGrid)), mean: make([]float64, len(st.epsGrid))}
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
		r, err := md.Run(ctx, study.Spec{Sensitivity: fit.Sensitivity, Noise: p.Noise, Delta: p.Delta,
			Epsilons: eps, Orders: []int{p.H}, Repeats: st.repeats, Draws: study.PerRepeat{Seed: previewSeed}}, nil)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out.mean[i] = r.Mean[0][j]
		}
	}
	return out, nil
}

// autoKRangeWarning tells the curator that the predicted error of the
// release exceeds the function's whole public range, with what would help.
func autoKRangeWarning(prep *release.Prepared, pred, rng float64) string {
	help := []string{"a larger ε"}
	if slices.ContainsFunc(prep.Spec.Params, func(s learners.ParamSpec) bool { return s.Name == "bandwidth" || s.Name == "sigma" }) {
		help = append([]string{"a larger bandwidth"}, help...)
	}
	if len(prep.Params.K) > 1 {
		help = append(help, "fewer features")
	}
	return fmt.Sprintf("The predicted error (%.3g) exceeds the function's whole public range (%.3g): every k is worse than publishing zero. What would help: %s.",
		pred, rng, joinOr(help))
}

// joinOr joins a, b and c as "a, b or c".
func joinOr(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " or " + s[len(s)-1]
}
