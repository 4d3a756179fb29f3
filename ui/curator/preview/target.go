package preview

import (
	"context"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/study"
)

// Accuracy first (issue 19 item 3): the curator types the error it can
// accept and the engine proposes the smallest ε with the noise kind, h and
// k that reach it (study.FindEpsilon), from the preview's fit of the same
// Input — the private data or the stand-in the preview runs on — on the
// preview's grid and records, with the preview's seed.

// Target is a finished search with what the curator's window needs to
// show it: the errors as ErrorText writes them.
type Target struct {
	*study.TargetResult
	// Units, UnitName and RangeText are the preview's (ErrorText).
	Units     study.Units
	UnitName  string
	RangeText string
	// StandIn is the Input's stand-in label ("" for the private data).
	StandIn string
}

// ErrorText writes an error of the search: a classifier's disagreement
// as a share of the records, else as Result.ErrorText does.
func (t *Target) ErrorText(v float64) string {
	r := Result{Classifier: t.Classifier, Units: t.Units, UnitName: t.UnitName, RangeText: t.RangeText}
	return r.Error95Text(v)
}

// FindEpsilon searches the smallest ε whose simulated releases reach
// target: in the function plot's units, or as a share of the public range
// when share is set (a classifier's disagreement is a share either way).
// The fit is the preview's (computed or reused as Compute does, so the
// engine's lock is held only for that); the search then runs on the fit's
// oracle alone. The curator's δ enters when its noise kind has one, its
// manual k when k is not automatic. It returns ctx.Err() when cancelled
// and the errors of the fit and of study.FindEpsilon.
func (e *Engine) FindEpsilon(ctx context.Context, in Input, target float64, share bool, progress func(done, total int)) (*Target, error) {
	e.run.Lock()
	st, err := e.simulate(ctx, in.Request, func(Stage, int, int) {})
	e.run.Unlock()
	if err != nil {
		return nil, err
	}
	pr, err := study.TargetProblemOf(ctx, st.prep.Fitted, st.prep.Spec.Output.Kind, st.prep.LearnerData())
	if err != nil {
		return nil, err
	}
	req := in.Request
	if req.Privacy.Noise != mechanism.NoiseLaplace {
		pr.Delta = req.Privacy.Delta
	}
	if !req.KAuto && len(st.params.K) > 0 && !slices.ContainsFunc(st.params.K, func(k int) bool { return k != st.params.K[0] }) {
		pr.K = st.params.K[0]
	}
	pr.Beta, pr.Seed = req.Beta, previewSeed
	// The published peers that apply are candidates too; the search
	// rebuilds them at the k of every ε it tries (the manual k, else the
	// automatic k there with h = 1; study.TargetProblem.AddPeers), as
	// choose --target-error does (a preview from aggregates has no records
	// for them: the search then runs on the Bernstein settings alone).
	pd := st.peerData()
	if _, err := pr.AddPeers(pd); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	t := target
	switch {
	case pr.Points != nil:
	case share:
		t = target * st.units.Width()
	default:
		t = target / math.Abs(st.units.Scale)
	}
	res, err := study.FindEpsilon(ctx, pr, t, progress)
	if err != nil {
		return nil, err
	}
	return &Target{TargetResult: res, Units: st.units, UnitName: unitName(st.prep), RangeText: rangeText(st.prep, st.units), StandIn: in.StandIn}, nil
}
