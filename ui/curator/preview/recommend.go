package preview

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"

	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
)

// MechanismError is one releasable mechanism's simulated error at 95 % at
// the curator's (ε, δ) (Result.Error95's measure: the sup-norm error in
// learner units, a classifier's disagreement with the non-private
// classifier), or why it cannot be released there (Refused: the rule of
// (*release.Prepared).CheckMechanism).
type MechanismError struct {
	Kind    string // synopsis kind (release.Mechanisms)
	Label   string // legend name
	Err     float64
	Refused string
	// Need is Refused in a few words for the Mechanism list (the rule's
	// release.RequestError.Need; "" when it has none).
	Need string
}

// Recommendation names the mechanism with the least simulated error at
// 95 % at the curator's (ε, δ) among Bernstein and the peers
// that can be released there (curator only: computed from the private
// data as the rest of the preview, or from the public stand-in).
type Recommendation struct {
	Epsilon, Delta float64
	// Mechanisms lists Bernstein first, then the releasable peer kinds
	// that apply to the learner, in legend order.
	Mechanisms []MechanismError
	Best       string // the kind with the least error among the releasable
}

// peerKinds names the synopsis kinds of the peers for the curator.
var peerKinds = []struct{ name, kind string }{
	{study.PeerNameTrig, synopsis.MechanismTrig},
	{study.PeerNameOutput, synopsis.MechanismOutputPerturbation},
	{study.PeerNameGP, synopsis.MechanismGP},
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

// RuleNeed is a release refusal in a few words for a list of choices
// (release.RequestError.Need), or "" when the rule has none.
func RuleNeed(err error) string {
	var re *release.RequestError
	if errors.As(err, &re) {
		return re.Need
	}
	return ""
}

// Entry returns kind's entry in r.Mechanisms, if r lists it.
func (r *Recommendation) Entry(kind string) (MechanismError, bool) {
	if r != nil {
		for _, m := range r.Mechanisms {
			if m.Kind == kind {
				return m, true
			}
		}
	}
	return MechanismError{}, false
}

// Check returns the rule refusing kind at the recommendation's (ε, δ)
// ("" when it can be released; "not simulated" kinds are refused by the
// release itself).
func (r *Recommendation) Check(kind string) string {
	m, _ := r.Entry(kind)
	return m.Refused
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
		return fmt.Sprintf("Recommended at %s: Bernstein (least simulated %s at 95%%, %s, of the mechanisms that can be released here).", at, res.measure95(), res.Error95Text(bern.Err))
	}
	return fmt.Sprintf("Recommended at %s: %s (%s at 95%%: %s, against %s for Bernstein at your h = %d, k = %s; another h or k may narrow the gap); select it under Mechanism.",
		at, best.Label, res.measure95(), res.Error95Text(best.Err), res.Error95Text(bern.Err), res.H, KLabel(res.K))
}

// recommend simulates, with the overlay's peer builds (cached per fit and
// k) and the preview's seed and repeats, the releasable peers at the
// curator's ε alone and compares their error at 95 % (for a classifier
// their disagreement with the non-private classifier) with Bernstein's at
// the current setting (res.Error95, the same simulated releases as the
// marker). A peer is releasable when (*release.Prepared).CheckMechanism
// accepts it at the curator's (ε, δ): the release's one rule.
func (e *Engine) recommend(ctx context.Context, st *previewState, res *Result, progress Progress) error {
	rec := &Recommendation{Epsilon: st.params.Epsilon, Delta: st.params.Delta, Best: synopsis.MechanismBernstein}
	rec.Mechanisms = append(rec.Mechanisms, MechanismError{Kind: synopsis.MechanismBernstein, Label: "Bernstein", Err: res.Error95.Error})
	pb, err := e.peerBuild(st.peerData(), st.kk)
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
	for i, s := range pb.sims {
		if s.Kind == "" {
			continue
		}
		me := MechanismError{Kind: s.Kind, Label: MechanismLabel(s.Kind), Err: math.NaN()}
		if err := check.CheckMechanism(s.Kind); err != nil {
			me.Refused, me.Need = WindowRule(err), RuleNeed(err)
		} else if s.Delta != st.params.Delta {
			me.Refused = fmt.Sprintf("simulated at δ = %g, not your δ = %g", s.Delta, st.params.Delta)
			me.Need = "simulated at another δ"
		} else {
			q, err := s.QuantileError(ctx, st.params.Epsilon, st.repeats, previewSeed)
			if err != nil {
				return err
			}
			me.Err = q.Error
		}
		progress(StagePeers, i+1, len(pb.sims))
		rec.Mechanisms = append(rec.Mechanisms, me)
	}
	bestErr := res.Error95.Error
	for _, m := range rec.Mechanisms[1:] {
		if m.Refused == "" && !math.IsNaN(m.Err) && m.Err < bestErr {
			rec.Best, bestErr = m.Kind, m.Err
		}
	}
	res.Recommendation = rec
	return nil
}

// measure95 names the error at 95 % of res's learner.
func (r *Result) measure95() string {
	if r.Classifier {
		return "disagreement"
	}
	return "error"
}

// cliFragment is a parenthesis or a clause that still names a flag.
var cliFragment = regexp.MustCompile(`\s*\([^()]*--[a-z][^()]*\)|;[^;]*--[a-z][^;]*`)

// WindowRule is the text the window shows for a release's refusal of a
// mechanism: a *release.RequestError's rule without the field name. The
// release words its refusals without command-line flags (planPeer); a
// fragment that still names one ("(--noise laplace)", "; use --k 4") is
// left out, so no flag reaches the window.
func WindowRule(err error) string {
	text := err.Error()
	var re *release.RequestError
	if errors.As(err, &re) {
		text = re.Rule
	}
	return cliFragment.ReplaceAllString(text, "")
}
