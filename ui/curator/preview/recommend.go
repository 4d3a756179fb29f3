package preview

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
)

// MechanismError is one releasable mechanism's mean simulated sup-norm
// error at the curator's (ε, δ) (learner units), or why it cannot be
// released there (Refused: the rule of (*release.Prepared).CheckMechanism).
type MechanismError struct {
	Kind    string // synopsis kind (release.Mechanisms)
	Label   string // legend name
	Err     float64
	Refused string
}

// Recommendation names the mechanism with the least mean simulated
// sup-norm error at the curator's (ε, δ) among Bernstein and the peers
// that can be released there (curator only: computed from the private
// data as the rest of the preview, or from the public stand-in).
type Recommendation struct {
	Epsilon, Delta float64
	// Mechanisms lists Bernstein first, then the releasable peer kinds
	// that apply to the learner, in legend order.
	Mechanisms []MechanismError
	Best       string // the kind with the least error among the releasable
}

// peerKinds maps the study's peer names to the synopsis kinds a release
// can have; peers without a kind (the histogram) are not releasable.
var peerKinds = []struct{ name, kind string }{
	{study.PeerNameTrig, synopsis.MechanismTrig},
	{study.PeerNameOutput, synopsis.MechanismOutputPerturbation},
	{study.PeerNameGP, synopsis.MechanismGP},
}

// peerKind returns the synopsis kind of a peer curve's label ("" if none).
func peerKind(label string) string {
	for _, pk := range peerKinds {
		if strings.HasPrefix(label, pk.name) {
			return pk.kind
		}
	}
	return ""
}

// MechanismLabel is the name the curator sees for a synopsis kind.
func MechanismLabel(kind string) string {
	if kind == "" || kind == synopsis.MechanismBernstein {
		return "Bernstein"
	}
	for _, pk := range peerKinds {
		if pk.kind == kind {
			return pk.name
		}
	}
	return kind
}

// Check returns the rule refusing kind at the recommendation's (ε, δ)
// ("" when it can be released; "not simulated" kinds are refused by the
// release itself).
func (r *Recommendation) Check(kind string) string {
	if r == nil {
		return ""
	}
	for _, m := range r.Mechanisms {
		if m.Kind == kind {
			return m.Refused
		}
	}
	return ""
}

// Text is the preview's line: "Recommended at ε = …, δ = …: … (error …
// vs Bernstein …)".
func (r *Recommendation) Text(res *Result) string {
	if r == nil || len(r.Mechanisms) == 0 {
		return ""
	}
	at := "ε = " + fmt.Sprintf("%g", r.Epsilon)
	if r.Delta > 0 {
		at += fmt.Sprintf(", δ = %g", r.Delta)
	}
	var best, bern MechanismError
	for _, m := range r.Mechanisms {
		if m.Kind == r.Best {
			best = m
		}
		if m.Kind == synopsis.MechanismBernstein {
			bern = m
		}
	}
	if r.Best == synopsis.MechanismBernstein {
		if len(r.Mechanisms) == 1 {
			return fmt.Sprintf("Recommended at %s: Bernstein (no published peer can be released for this learner at these settings).", at)
		}
		return fmt.Sprintf("Recommended at %s: Bernstein (least mean simulated error, %s, of the mechanisms that can be released here).", at, res.ErrorText(bern.Err))
	}
	return fmt.Sprintf("Recommended at %s: %s (error %s vs Bernstein %s); select it under Mechanism.", at, best.Label, res.ErrorText(best.Err), res.ErrorText(bern.Err))
}

// recommend simulates, with the overlay's peer builds (cached per fit and
// k) and the preview's seed and repeats, the releasable peers at the
// curator's ε alone and compares them with Bernstein's mean error at the
// current setting (res.MarkerErr, the same simulated releases as the
// marker). A peer is releasable when (*release.Prepared).CheckMechanism
// accepts it at the curator's (ε, δ): the release's one rule.
func (e *Engine) recommend(ctx context.Context, st *previewState, res *Result, progress Progress) error {
	rec := &Recommendation{Epsilon: st.params.Epsilon, Delta: st.params.Delta, Best: synopsis.MechanismBernstein}
	rec.Mechanisms = append(rec.Mechanisms, MechanismError{Kind: synopsis.MechanismBernstein, Label: "Bernstein", Err: res.MarkerErr})
	pb, err := e.peerBuild(peerData(st.prep, st.grid, st.truth, st.params.K, st.params.Delta), st.kk)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		// The peers cannot be simulated here (a preview from aggregates
		// has no records for the trigonometric summary): Bernstein alone,
		// and the preview itself goes on.
		res.Recommendation = rec
		return nil
	}
	check := *st.prep // the same fit, at the curator's (ε, δ) and k
	check.Params = st.params
	var sims []*study.Peer
	for _, s := range pb.sims {
		kind := peerKind(s.Label)
		if kind == "" {
			continue
		}
		me := MechanismError{Kind: kind, Label: MechanismLabel(kind), Err: math.NaN()}
		if err := check.CheckMechanism(kind); err != nil {
			me.Refused = err.Error()
		} else if s.Delta != st.params.Delta {
			me.Refused = fmt.Sprintf("simulated at δ = %g, not the curator's δ = %g", s.Delta, st.params.Delta)
		} else {
			sims = append(sims, s)
		}
		rec.Mechanisms = append(rec.Mechanisms, me)
	}
	if len(sims) > 0 {
		curves, err := study.RunPeers(ctx, sims, []float64{st.params.Epsilon}, st.repeats, study.PerRepeat{Seed: previewSeed},
			func(d, t int) { progress(StagePeers, d, t) })
		if err != nil {
			return err
		}
		for _, c := range curves {
			for i := range rec.Mechanisms {
				if rec.Mechanisms[i].Kind == peerKind(c.Label) {
					rec.Mechanisms[i].Err = c.Mean[0]
				}
			}
		}
	}
	bestErr := res.MarkerErr
	for _, m := range rec.Mechanisms[1:] {
		if m.Refused == "" && !math.IsNaN(m.Err) && m.Err < bestErr {
			rec.Best, bestErr = m.Kind, m.Err
		}
	}
	res.Recommendation = rec
	return nil
}
