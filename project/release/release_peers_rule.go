package release

import (
	"fmt"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// peerSettings are the public settings a peer kind's theorem reads: no
// fit and no record enters (issue 19: the curator's Mechanism selector
// marks a refused peer from them before any preview exists).
type peerSettings struct {
	kind     learners.Kind
	dim, n   int
	eps      float64
	delta    float64
	resolved learners.Values // the learner's parameters, defaults filled in
	records  bool            // the records are at hand (not an aggregate table)
	k        []int           // the release's cover size (nil: not known yet, e.g. automatic)
}

// peerRule is the one home of the peer kinds' conditions that public
// settings decide (planPeer checks them first, CheckMechanismSettings
// alone): the kind's learner, dimension and source of data, and ε and δ
// against its theorem (GP: ε ≤ 1 and δ ∈ (0,1), Hall et al.; trig and
// output perturbation: pure ε-DP, δ = 0). name is a kind of Mechanisms
// other than Bernstein. Errors are *RequestError naming "mechanism",
// "epsilon" or "delta".
func peerRule(name string, s peerSettings) error {
	switch name {
	case synopsis.MechanismGP:
		if s.eps > peers.GPMaxEpsilon {
			return reqErr("epsilon", "ε = %g: Hall et al.'s GP release is proven for ε ≤ %g only", s.eps, peers.GPMaxEpsilon).needs(fmt.Sprintf("proven for ε ≤ %g only", peers.GPMaxEpsilon))
		}
		if err := mechanism.ValidateDelta(s.delta, mechanism.NoiseGaussian); err != nil {
			return reqErr("delta", "δ = %g: the GP release is (ε, δ)-DP and needs Gaussian noise with δ in (0, 1)", s.delta).needs("needs δ > 0 (Gaussian noise)")
		}
		if _, err := learners.RKHSPeer(s.kind, s.n, s.resolved, s.dim); err != nil {
			return reqErr("mechanism", "%s: %v", peerWords(name), err).needs("not for this learner")
		}
	case synopsis.MechanismTrig:
		if err := pureOnly(name, s.delta); err != nil {
			return err
		}
		bw := s.resolved["bandwidth"]
		if s.kind != learners.KindKDE || s.dim != 1 || len(bw) != 1 || bw[0] < peers.MinTrigBandwidth {
			return reqErr("mechanism", "%s answers the one-dimensional KDE with a bandwidth ≥ %g only", peerWords(name), peers.MinTrigBandwidth).needs(fmt.Sprintf("1-D KDE, bandwidth ≥ %g only", peers.MinTrigBandwidth))
		}
		if !s.records {
			return reqErr("mechanism", "%s needs the records (its moments are not in an aggregate table)", peerWords(name)).needs("needs the records")
		}
		if least := peers.TrigMinMoments(peers.TrigJackson) - 1; len(s.k) == 1 && s.k[0] < least {
			return reqErr("k", "k = %d: %s publishes t = k + 1 moments, and fewer than %d answer a constant density whatever the data; use k ≥ %d",
				s.k[0], peerWords(name), least+1, least).needs(fmt.Sprintf("k ≥ %d", least))
		}
	case synopsis.MechanismOutputPerturbation:
		if err := pureOnly(name, s.delta); err != nil {
			return err
		}
		if s.kind != learners.KindLogistic {
			return reqErr("mechanism", "%s releases logistic regression only (this learner is %s)", peerWords(name), s.kind).needs("logistic regression only")
		}
	default:
		return reqErr("mechanism", "%q is not a known mechanism; want one of %v (or gp, trig)", name, Mechanisms).needs("not a known mechanism")
	}
	return nil
}

// CheckMechanismSettings reports whether the synopsis kind name
// (Mechanisms or an alias; "" is Bernstein) can be released with the
// public settings of req — learner, features, parameters (their public
// defaults filled in), ε, δ, n and the source of the data — before
// anything is fitted: the conditions of peerRule, the same that
// CheckMechanism and Release check first. A nil error does not promise
// that CheckMechanism accepts the fitted release (the GP's covariance on
// the lattice grid, the logistic fit). It returns nil when the learner or
// its parameters are invalid (the request's own rules report those).
func CheckMechanismSettings(req Request, name string) error {
	if a, ok := MechanismAlias[name]; ok {
		name = a
	}
	if name == "" || name == synopsis.MechanismBernstein {
		return nil
	}
	learner, err := learners.Lookup(req.Learner)
	if err != nil {
		return nil
	}
	spec, dim := learner.Spec(), len(req.Features)
	n := 0
	switch {
	case req.Aggregates != nil:
		n = req.Aggregates.N
	case req.Dataset != nil:
		n = req.Dataset.Rows
	}
	values := spec.PublicDefaults(req.Params, learners.Public{N: n, Dim: dim, Epsilon: req.Privacy.Epsilon})
	resolved, err := spec.Resolve(values, dim)
	if err != nil {
		return nil
	}
	s := peerSettings{kind: req.Learner, dim: dim, n: max(n, 1), eps: req.Privacy.Epsilon, delta: req.Privacy.Delta,
		resolved: learners.Values(resolved), records: req.Aggregates == nil}
	if !req.KAuto {
		s.k = req.Privacy.K
	}
	return peerRule(name, s)
}

// peerWords names a peer kind in a refusal for people (the window shows
// refusals as they are): the published mechanism, with the kind's name
// as --mechanism and the synopsis write it.
func peerWords(name string) string {
	switch name {
	case synopsis.MechanismGP:
		return "Hall et al.'s GP release (" + name + ")"
	case synopsis.MechanismTrig:
		return "Wang et al.'s trigonometric release (" + name + ")"
	case synopsis.MechanismOutputPerturbation:
		return "output perturbation (" + name + ")"
	}
	return name
}
