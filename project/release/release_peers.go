package release

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/google/differential-privacy/go/v3/noise"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Mechanisms lists the synopsis kinds a release can have, the default
// (Bernstein) first: the values of Options.Mechanism and of the command
// line's --mechanism (docs/synopsis-format.md, "Synopsis kinds").
var Mechanisms = []string{synopsis.MechanismBernstein, synopsis.MechanismGP, synopsis.MechanismTrig, synopsis.MechanismOutputPerturbation}

// MechanismAlias maps the short names of the command line to the kinds.
var MechanismAlias = map[string]string{"gp": synopsis.MechanismGP, "trig": synopsis.MechanismTrig}

// peerPlan is a peer kind's release, checked against its theorem before
// anything is spent: what the ledger entry records of it and how its noise
// is drawn once the spend is recorded.
type peerPlan struct {
	name   string
	params map[string][]float64 // mechanism settings for the ledger entry
	// draw adds the secure noise and returns the released values with the
	// kind's public block (synopsis.NewPeerFile builds the file).
	draw func(ctx context.Context) (synopsis.PeerRelease, error)
}

// planPeer validates a peer kind for this prepared release: first the
// conditions public settings decide (peerRule: the kind's learner,
// dimension and source of data, and ε and δ against its theorem), then
// what needs the fit. It returns nil for the Bernstein kind ("" or
// synopsis.MechanismBernstein). Errors are *RequestError naming
// "mechanism", "epsilon" or "delta".
func (p *Prepared) planPeer(name string) (*peerPlan, error) {
	if a, ok := MechanismAlias[name]; ok {
		name = a
	}
	eps, delta := p.Params.Epsilon, p.Params.Delta
	kind, dim, n := p.Spec.Kind, len(p.Request.Features), p.Fitted.N
	if name == "" || name == synopsis.MechanismBernstein {
		return nil, nil
	}
	if err := peerRule(name, peerSettings{kind: kind, dim: dim, n: n, eps: eps, delta: delta,
		resolved: learners.Values(p.Resolved), records: p.aggregates == nil && p.Data.N() == n, k: p.Params.K}); err != nil {
		return nil, err
	}
	switch name {
	case synopsis.MechanismGP:
		rs, err := learners.RKHSPeer(kind, n, learners.Values(p.Resolved), dim)
		if err != nil {
			return nil, reqErr("mechanism", "%s: %v", peerWords(name), err) // peerRule checked it
		}
		axes, err := peers.GPReleaseAxes(p.Params.K) // the lattice: p.Exact is F_D there
		if err != nil {
			return nil, reqErr("mechanism", "%s on the grid of k = %v: %v", peerWords(name), p.Params.K, err)
		}
		factor, err := peers.NewGPFactor(axes, peers.GPKernel{Amplitude: rs.Amplitude, Sigmas: rs.Sigmas})
		if err != nil {
			return nil, reqErr("mechanism", "%s on the grid of k = %v: %v", peerWords(name), p.Params.K, err)
		}
		scale, err := peers.GPNoiseScale(rs.Delta, eps, delta)
		if err != nil {
			return nil, reqErr("mechanism", "%v", err)
		}
		return &peerPlan{name: name, params: map[string][]float64{"k": intsToFloats(p.Params.K)},
			draw: func(context.Context) (synopsis.PeerRelease, error) {
				src := &secureDraws{}
				grid, err := factor.Release(p.Exact, scale, src)
				if err == nil {
					err = src.err
				}
				if err != nil {
					return synopsis.PeerRelease{}, err
				}
				tau, _ := factor.Jitter()
				return synopsis.PeerRelease{
					Mechanism: synopsis.MechanismInfo{Name: name, K: slices.Clone(p.Params.K), Noise: string(mechanism.NoiseGaussian),
						Scale: scale, Epsilon: eps, Delta: delta},
					Sensitivity: p.Fitted.Sensitivity, Values: grid.Values,
					GP: &synopsis.GPInfo{Amplitude: rs.Amplitude, Sigmas: rs.Sigmas, Jitter: tau, RKHSSensitivity: rs.Delta},
				}, nil
			}}, nil
	case synopsis.MechanismTrig:
		t := peers.TrigMomentsForK(p.Params.K[0])
		scale, err := peers.TrigNoiseScale(n, t, eps)
		if err != nil {
			return nil, reqErr("mechanism", "%v", err)
		}
		return &peerPlan{name: name, params: map[string][]float64{"t": {float64(t)}, "jackson": {peers.TrigJackson}},
			draw: func(context.Context) (synopsis.PeerRelease, error) {
				s, err := peers.TrigMoments(p.LearnerData().X, t)
				if err != nil {
					return synopsis.PeerRelease{}, err
				}
				s[0] = 1 // S_0 is public and exact
				// Laplace of scale λ = (t−1)·(2/n)/ε = TrigNoiseScale, the
				// library's ε lowered by the rounding of the t−1 calls
				// (mechanism.RoundingSafeEpsilon).
				libEps := mechanism.RoundingSafeEpsilon(eps, t-1)
				for m := 1; m < t; m++ {
					if s[m], err = noise.Laplace().AddNoiseFloat64(s[m], int64(t-1), 2/float64(n), libEps, 0); err != nil {
						return synopsis.PeerRelease{}, fmt.Errorf("secure noise: %w", err)
					}
				}
				return synopsis.PeerRelease{
					Mechanism:   synopsis.MechanismInfo{Name: name, Moments: t, Noise: string(mechanism.NoiseLaplace), Scale: scale, Epsilon: eps},
					Sensitivity: p.Fitted.Sensitivity, Values: s, Trig: &synopsis.TrigInfo{Jackson: peers.TrigJackson},
				}, nil
			}}, nil
	case synopsis.MechanismOutputPerturbation:
		m, err := learners.LinearModelOf(kind, p.Fitted, learners.Values(p.Resolved))
		if err != nil {
			return nil, reqErr("mechanism", "%s releases logistic regression only: %v", name, err)
		}
		scale, err := peers.OutputPerturbationScale(m.Sensitivity2, eps)
		if err != nil {
			return nil, reqErr("mechanism", "%v", err)
		}
		return &peerPlan{name: name, params: map[string][]float64{},
			draw: func(context.Context) (synopsis.PeerRelease, error) {
				src := &secureDraws{}
				b, err := peers.OutputPerturbationNoise(len(m.W), m.Sensitivity2, eps, src)
				if err == nil {
					err = src.err
				}
				if err != nil {
					return synopsis.PeerRelease{}, err
				}
				w := make([]float64, len(m.W))
				for i := range w {
					w[i] = m.W[i] + b[i]
				}
				return synopsis.PeerRelease{
					Mechanism:   synopsis.MechanismInfo{Name: name, Noise: synopsis.NoiseL2Laplace, Scale: scale, Epsilon: eps},
					Sensitivity: p.Fitted.Sensitivity, Values: w, Linear: &synopsis.LinearInfo{Sensitivity2: m.Sensitivity2},
				}, nil
			}}, nil
	}
	return nil, nil // peerRule refuses any other name
}

// CheckMechanism reports whether the synopsis kind name (Mechanisms or an
// alias; "" is Bernstein) can be released from p: the checks Release makes
// before the ledger (planPeer), for callers that want the refusal before
// they ask for the budget or the signing key.
func (p *Prepared) CheckMechanism(name string) error {
	_, err := p.planPeer(name)
	return err
}

// pureOnly refuses δ > 0 for a pure ε-DP peer kind. The refusals of
// planPeer name the noise in words, not by a command-line flag: the
// curator window shows them as they are.
func pureOnly(name string, delta float64) error {
	if delta != 0 {
		return reqErr("delta", "δ = %g: %s is pure ε-DP; release it with pure ε-DP Laplace noise (δ = 0)", delta, peerWords(name)).needs("needs δ = 0 (pure ε-DP)")
	}
	return nil
}

// ledgerEntry sets the kind's mechanism settings in the ledger entry: its
// parameters and, as noise, the kind's name, so that the zCDP account
// treats a GP release by its (ε, δ) only (ledger.RhoOf: never under-counts).
func (pl *peerPlan) ledgerEntry(e *ledger.Entry) {
	delete(e.Params, "h")
	delete(e.Params, "k")
	for k, v := range pl.params {
		e.Params[k] = v
	}
	e.Noise = pl.name
}

// secureDraws is the release noise source of the peer kinds: every draw
// comes from github.com/google/differential-privacy/go/v3/noise
// (cryptographically secure randomness, floating-point-safe sampling), as
// the Bernstein release's (mechanism.SanitizeValues). It satisfies
// peers.NoiseSource; it has no seed. The first library error is kept in
// err (the draws it spoiled are 0) and the caller must check it.
type secureDraws struct {
	err    error
	sigmas map[float64]float64 // σ → lInf giving the library's σ ≥ it
}

// Laplace returns a draw of Laplace(0, scale): the library's λ is
// l0·lInf/ε = scale with l0 = 1, lInf = scale, ε = 1.
func (s *secureDraws) Laplace(scale float64) float64 {
	y, err := noise.Laplace().AddNoiseFloat64(0, 1, scale, 1, 0)
	return s.keep(y, err)
}

// gaussEps and gaussDelta are the (ε, δ) at which the library's Gaussian
// is asked for a draw; only its σ matters here (calibrated by lInf).
const gaussEps, gaussDelta = 1, 1e-5

// Gaussian returns a draw of N(0, σ'²) with σ' ≥ sigma and σ' ≤ sigma·(1 +
// 10⁻⁶): the library's σ = noise.SigmaForGaussian(1, lInf, ε, δ) grows
// linearly in lInf, and lInf is raised until it is at least sigma (a draw
// never has less noise than asked for).
func (s *secureDraws) Gaussian(sigma float64) float64 {
	lInf, ok := s.sigmas[sigma]
	if !ok {
		lInf = sigma / noise.SigmaForGaussian(1, 1, gaussEps, gaussDelta)
		for range 64 {
			got := noise.SigmaForGaussian(1, lInf, gaussEps, gaussDelta)
			if got >= sigma {
				break
			}
			lInf *= sigma / got * (1 + 1e-12)
		}
		if s.sigmas == nil {
			s.sigmas = map[float64]float64{}
		}
		s.sigmas[sigma] = lInf
	}
	y, err := noise.Gaussian().AddNoiseFloat64(0, 1, lInf, gaussEps, gaussDelta)
	return s.keep(y, err)
}

func (s *secureDraws) keep(y float64, err error) float64 {
	if err == nil && (math.IsNaN(y) || math.IsInf(y, 0)) {
		err = fmt.Errorf("non-finite draw %g", y)
	}
	if err != nil {
		if s.err == nil {
			s.err = fmt.Errorf("secure noise: %w", err)
		}
		return 0
	}
	return y
}
