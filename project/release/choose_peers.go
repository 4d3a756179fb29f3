package release

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// The private choice among mechanisms (issues 17 and 19;
// docs/validation.md, "Choosing among mechanisms"). With
// ChooseOptions.Mechanisms the candidates of ChooseSettings include, for
// every tuning of the learner's parameters,
//
//   - the Bernstein release at the other noise kinds the curator's δ allows
//     (pure ε Laplace noise always; Gaussian noise at the curator's δ when
//     δ > 0), one (h, k) each: the first order of the layout and its k*;
//   - the published peers the release can produce (planPeer), decided by
//     the one rule of the peers' public conditions (peerRule) at the
//     candidate's own δ (δ = 0 for the pure ε-DP output perturbation and
//     trigonometric release, the curator's δ for Hall et al.'s GP):
//     Chaudhuri & Vinterbo's output perturbation for logistic regression,
//     Wang et al.'s trigonometric release for the one-dimensional KDE, and
//     Hall et al.'s GP for the KDE and the SVM without intercept when
//     δ > 0 and ε ≤ 1.
//
// A peer whose stability bound is much larger than the Bernstein
// candidates' (the trigonometric release's is 7·S_T) would set the common
// β of NoisyMax for all; mechanism.PreferGeneralized then switches the
// selection to the generalized exponential mechanism, which compares each
// candidate at its own β (docs/validation.md, "Per-candidate
// sensitivities").
//
// Every candidate is public: it depends on the learner, the dimension, n,
// ε, δ, the parameters and the source of the data, never on record values.
// Each is scored like the Bernstein candidates: fitted on the training
// split, released with simulated noise of its own final release (the full
// data's noise scale), and scored on the validation split by the same
// score, from the same seed.

// choiceNoises returns the noise kinds other than the request's that a
// Bernstein candidate may have: Laplace (pure ε) when the request's noise
// is another, Gaussian at the request's δ when δ > 0 and the request's
// noise is another. The order is fixed.
func choiceNoises(pr mechanism.Params) []mechanism.NoiseKind {
	var out []mechanism.NoiseKind
	if pr.Noise != mechanism.NoiseLaplace {
		out = append(out, mechanism.NoiseLaplace)
	}
	if pr.Delta > 0 && pr.Noise != mechanism.NoiseGaussian {
		out = append(out, mechanism.NoiseGaussian)
	}
	return out
}

// choicePeers lists the peer kinds the choice may compare, in order.
var choicePeers = []string{synopsis.MechanismOutputPerturbation, synopsis.MechanismGP, synopsis.MechanismTrig}

// peerDelta is the δ a peer candidate is released at: the curator's δ for
// the (ε, δ)-DP GP, 0 for the pure ε-DP kinds (output perturbation, trig).
func peerDelta(name string, delta float64) float64 {
	if name == synopsis.MechanismGP {
		return delta
	}
	return 0
}

// peer reports whether c is a published peer's release (not Bernstein).
func (c Candidate) peer() bool {
	return c.Mechanism != "" && c.Mechanism != synopsis.MechanismBernstein
}

// MechanismName returns the synopsis kind the candidate releases
// (synopsis.MechanismBernstein for the Bernstein release).
func (c Candidate) MechanismName() string {
	if c.peer() {
		return c.Mechanism
	}
	return synopsis.MechanismBernstein
}

// mechanismsWhat returns, for the ledger note, " and the mechanism (…)"
// naming the mechanisms and noise kinds compared when the candidates are
// not all Bernstein releases at the request's noise, "" otherwise.
func (pl *choicePlan) mechanismsWhat() string {
	var names []string
	for _, c := range pl.cands {
		name := c.MechanismName()
		if !c.peer() {
			name += "/" + string(candidateParams(pl.p.Params, c, 1).Noise)
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) < 2 {
		return ""
	}
	return " and the mechanism (" + strings.Join(names, ", ") + ")"
}

// candidateParams returns the Bernstein mechanism parameters of candidate
// c of the release p (h, k on every axis of dim, and its noise kind: δ = 0
// for Laplace, the request's δ otherwise). For a peer candidate only ε, δ
// (peerDelta) and k matter.
func candidateParams(p mechanism.Params, c Candidate, dim int) mechanism.Params {
	pr := p
	pr.H, pr.K = c.H, slices.Repeat([]int{c.K}, dim)
	if c.Noise != "" {
		pr.Noise = c.Noise
	}
	if pr.Noise == mechanism.NoiseLaplace {
		pr.Delta = 0
	}
	if c.peer() {
		pr.H = max(pr.H, 1)
		pr.Delta = peerDelta(c.Mechanism, p.Delta)
	}
	return pr
}

// tuningValues returns the learner's parameter values of the release p
// with the tuning of c (its bandwidth and parameters; nil: the request's).
func (p *Prepared) tuningValues(c Candidate) learners.Values {
	return c.tuned(learners.Values(p.Resolved))
}

// tuned returns a copy of base with c's tuning over it: its bandwidth and
// parameters (nil or a missing name: base's value). The one home of what
// a candidate's tuning means to the learner's values (the choice's fits,
// ApplyCandidate's request).
func (c Candidate) tuned(base learners.Values) learners.Values {
	out := make(learners.Values, len(base)+len(c.Params)+1)
	for k, v := range base {
		out[k] = slices.Clone(v)
	}
	if c.Bandwidth != nil {
		out["bandwidth"] = slices.Clone(c.Bandwidth)
	}
	for k, v := range c.Params {
		out[k] = slices.Clone(v)
	}
	return out
}

// candidatePeerRule reports whether the peer candidate c may be released
// from p: peerRule (the one home of the peers' public conditions) at the
// candidate's tuning, ε and δ.
func (p *Prepared) candidatePeerRule(c Candidate) error {
	dim, n := len(p.Request.Features), p.Fitted.N
	resolved, err := p.Spec.Resolve(p.tuningValues(c), dim)
	if err != nil {
		return err
	}
	s := peerSettings{kind: p.Spec.Kind, dim: dim, n: n, eps: p.Params.Epsilon,
		delta: peerDelta(c.Mechanism, p.Params.Delta), resolved: learners.Values(resolved),
		records: p.aggregates == nil && p.Data.N() == n}
	if c.KeepsK() && c.K > 0 {
		s.k = slices.Repeat([]int{c.K}, dim)
	}
	return peerRule(c.Mechanism, s)
}

// peerCandidates returns the peer candidates for one tuning: every kind of
// choicePeers that peerRule admits. GP and trig candidates carry the
// request's k (the GP's public grid, the trig release's t = k + 1 moments;
// the same k on every axis, else none is offered); peerRule refuses a trig
// candidate whose t is below peers.TrigMinMoments (a constant answer).
func (p *Prepared) peerCandidates(tu Candidate) []Candidate {
	var out []Candidate
	for _, name := range choicePeers {
		c := Candidate{Mechanism: name, Bandwidth: tu.Bandwidth, Params: tu.Params}
		if name == synopsis.MechanismGP || name == synopsis.MechanismTrig {
			k := p.Params.K
			if len(k) == 0 || slices.ContainsFunc(k, func(v int) bool { return v != k[0] }) {
				continue
			}
			c.H, c.K = 1, k[0]
		}
		if p.candidatePeerRule(c) != nil {
			continue
		}
		out = append(out, c)
	}
	return out
}

// simRelease is a simulated release the scores evaluate: at the
// validation records (EvalBatch) and on the density score's grid
// (EvalGrid, lattice order, last axis fastest).
type simRelease interface {
	EvalBatch(ctx context.Context, points, out []float64) error
	EvalGrid(axes [][]float64) ([]float64, error)
}

// candidateSim is what the plan knows of one candidate before scoring:
// d, a bound on the sup-norm change of its simulated release (for every
// noise draw) when one training record is replaced; rms, a public typical
// size of its release noise (the classifier margin); and draw, which
// simulates one release from src.
type candidateSim struct {
	d, rms float64
	// rmsOf, when set, computes rms on the score's grid axes (the
	// Bernstein release's noise varies over the cube).
	rmsOf func(axes [][]float64) (float64, error)
	draw  func(ctx context.Context, src *mechanism.SimulationNoise) (simRelease, error)
}

// noiseRMS returns the public typical size of the candidate's release
// noise (the accuracy score's margin, docs/validation.md).
func (s *candidateSim) noiseRMS(axes [][]float64) (float64, error) {
	if s.rmsOf != nil {
		return s.rmsOf(axes)
	}
	return s.rms, nil
}

// candidateSim prepares the simulation of candidate c (tuning fit f,
// parameters pr = candidateParams): the Bernstein release at pr (d = Λ·S_T,
// Λ the Lebesgue bound of the lattice), or a peer (peerSim).
func (pl *choicePlan) candidateSim(ctx context.Context, c Candidate, f *trainFit, pr mechanism.Params) (*candidateSim, error) {
	if c.peer() {
		return pl.peerSim(ctx, c, f, pr)
	}
	if err := pr.Validate(); err != nil {
		return nil, err
	}
	lam, err := mechanism.LebesgueBoundK(pr.K, pr.H)
	if err != nil {
		return nil, err
	}
	sens := f.full.NoiseSensitivity(pr.K, pr.Noise)
	return &candidateSim{d: lam * f.fitted.Sensitivity,
		rmsOf: func(axes [][]float64) (float64, error) { return noiseRMS(pr, sens, axes) },
		draw: func(ctx context.Context, src *mechanism.SimulationNoise) (simRelease, error) {
			exact, err := pl.exactOn(ctx, f, pr)
			if err != nil {
				return nil, err
			}
			sim, err := mechanism.Simulate(exact, sens, pr, src)
			if err != nil {
				return nil, err
			}
			return sim, nil
		}}, nil
}

// peerSim prepares the simulation of the peer candidate c (tuning fit f,
// parameters pr). It spends nothing and reads no score.
func (pl *choicePlan) peerSim(ctx context.Context, c Candidate, f *trainFit, pr mechanism.Params) (*candidateSim, error) {
	p := pl.p
	if err := p.candidatePeerRule(c); err != nil {
		return nil, err
	}
	switch c.Mechanism {
	case synopsis.MechanismOutputPerturbation:
		// The release is Link(⟨W_T + b, ỹ⟩), b with density ∝ exp(−‖b‖/θ),
		// θ = Δ₂(n)/ε of the full data (the final release's noise). One
		// training record moves W_T by ≤ Δ₂(n_T) in L2 and ‖ỹ‖ ≤ 1, the
		// link is 1- (identity) or ¼-Lipschitz (σ): d = Δ₂(n_T). For the
		// class score the training fit's S_T ≥ it (it adds the oracle's
		// rounding term); for the probability S_T ≈ Δ₂/4 and Δ₂ sets d.
		mt, err := learners.LinearModelOf(p.Spec.Kind, f.fitted, f.values)
		if err != nil {
			return nil, err
		}
		mf, err := learners.LinearModelOf(p.Spec.Kind, f.full, f.values)
		if err != nil {
			return nil, err
		}
		theta, err := peers.OutputPerturbationScale(mf.Sensitivity2, pr.Epsilon)
		if err != nil {
			return nil, err
		}
		// E⟨b, ỹ⟩² = E‖b‖²·‖ỹ‖²/D = θ²(D+1)‖ỹ‖² ≤ θ²(D+1), D = len(W).
		rms := theta * math.Sqrt(float64(len(mt.W)+1))
		if mt.Sigmoid {
			rms /= 4
		}
		return &candidateSim{d: max(f.fitted.Sensitivity, mt.Sensitivity2) * (1 + 1e-9), rms: rms,
			draw: func(_ context.Context, src *mechanism.SimulationNoise) (simRelease, error) {
				b, err := peers.OutputPerturbationNoise(len(mt.W), mf.Sensitivity2, pr.Epsilon, src)
				if err != nil {
					return nil, err
				}
				w := slices.Clone(mt.W)
				for i := range w {
					w[i] += b[i]
				}
				return linearSim{m: mt, w: w}, nil
			}}, nil
	case synopsis.MechanismGP:
		// The release is the multilinear interpolant of F_T on the public
		// grid of k plus the GP noise of the full data's RKHS sensitivity
		// at (ε, δ). One training record moves every grid value by ≤ S_T
		// and the interpolant is a convex combination: d = S_T.
		rs, err := learners.RKHSPeer(p.Spec.Kind, p.Fitted.N, f.values, p.Data.Dim)
		if err != nil {
			return nil, err
		}
		axes, err := peers.GPReleaseAxes(pr.K) // the release's grid: the lattice of k
		if err != nil {
			return nil, reqErr("mechanism", "%s on the grid of k = %v: %v", peerWords(c.Mechanism), pr.K, err)
		}
		factor, err := peers.NewGPFactor(axes, peers.GPKernel{Amplitude: rs.Amplitude, Sigmas: rs.Sigmas})
		if err != nil {
			return nil, reqErr("mechanism", "%s on the grid of k = %v: %v", peerWords(c.Mechanism), pr.K, err)
		}
		scale, err := peers.GPNoiseScale(rs.Delta, pr.Epsilon, pr.Delta)
		if err != nil {
			return nil, err
		}
		return &candidateSim{d: f.fitted.Sensitivity, rms: scale * math.Sqrt(rs.Amplitude),
			draw: func(ctx context.Context, src *mechanism.SimulationNoise) (simRelease, error) {
				exact, err := pl.exactOn(ctx, f, pr)
				if err != nil {
					return nil, err
				}
				g, err := factor.Release(exact, scale, src)
				if err != nil {
					return nil, err
				}
				return gridSim{g: g}, nil
			}}, nil
	case synopsis.MechanismTrig:
		return pl.trigSim(f, pr)
	}
	return nil, reqErr("mechanism", "%s is not a candidate of the private choice (candidates: bernstein, %v)", peerWords(c.Mechanism), choicePeers)
}

// exactOn returns (and caches) F_T on the lattice of pr.K: the values the
// simulated Bernstein and GP releases of the tuning f start from.
func (pl *choicePlan) exactOn(ctx context.Context, f *trainFit, pr mechanism.Params) ([]float64, error) {
	if exact, ok := f.exact[pr.K[0]]; ok {
		return exact, nil
	}
	lat, err := mechanism.NewLattice(pr.K)
	if err != nil {
		return nil, err
	}
	exact, err := mechanism.EvaluateLattice(ctx, f.fitted.Oracle, lat, nil)
	if err != nil {
		return nil, err
	}
	f.exact[pr.K[0]] = exact
	return exact, nil
}

// linearSim is a simulated output-perturbation release: y ↦ Link(⟨w, ỹ⟩).
type linearSim struct {
	m *learners.LinearModel
	w []float64
}

func (l linearSim) at(y, lift []float64) float64 {
	l.m.Lift(y, lift)
	var z float64
	for i, v := range lift {
		z += l.w[i] * v
	}
	return l.m.Link(z)
}

func (l linearSim) EvalBatch(ctx context.Context, points, out []float64) error {
	lift := make([]float64, l.m.Dim+1)
	return evalPoints(ctx, l.m.Dim, points, out, func(y []float64) float64 { return l.at(y, lift) })
}

func (l linearSim) EvalGrid(axes [][]float64) ([]float64, error) {
	lift := make([]float64, l.m.Dim+1)
	return evalProductGrid(axes, func(y []float64) float64 { return l.at(y, lift) }), nil
}

// gridSim is a simulated GP release: the multilinear interpolant of its
// grid.
type gridSim struct{ g *peers.GPGrid }

func (s gridSim) EvalBatch(ctx context.Context, points, out []float64) error {
	return evalPoints(ctx, len(s.g.Axes), points, out, s.g.Eval)
}

func (s gridSim) EvalGrid(axes [][]float64) ([]float64, error) {
	return evalProductGrid(axes, s.g.Eval), nil
}

// evalPoints writes f(points[i·dim:(i+1)·dim]) into out[i].
func evalPoints(ctx context.Context, dim int, points, out []float64, f func([]float64) float64) error {
	if len(points) != len(out)*dim {
		return fmt.Errorf("release: %d coordinates for %d points of dimension %d", len(points), len(out), dim)
	}
	for i := range out {
		if i%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		out[i] = f(points[i*dim : (i+1)*dim])
	}
	return nil
}

// evalProductGrid evaluates f on axes[0] × … × axes[ℓ−1] in lattice order
// (last axis fastest), the order of mechanism.Polynomial.EvalGrid.
func evalProductGrid(axes [][]float64, f func([]float64) float64) []float64 {
	dim := len(axes)
	total := 1
	for _, a := range axes {
		total *= len(a)
	}
	out := make([]float64, total)
	idx := make([]int, dim)
	y := make([]float64, dim)
	for i := range out {
		for j := range dim {
			y[j] = axes[j][idx[j]]
		}
		out[i] = f(y)
		for j := dim - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(axes[j]) {
				break
			}
			idx[j] = 0
		}
	}
	return out
}

// KeepsK reports whether the candidate's k is its release's k: the
// Bernstein lattice, the GP's public grid, the trigonometric release's
// t = k + 1 moments — everything but output perturbation. ApplyCandidate
// then fixes k (KAuto off), so the release is the function the choice
// scored, and the choice's outputs name it.
func (c Candidate) KeepsK() bool {
	return c.Mechanism != synopsis.MechanismOutputPerturbation
}

// ApplyCandidate returns req set up to release the chosen candidate c
// (one home for what a candidate means to the release): its parameters
// and bandwidth, h and k (KAuto off; a peer keeps the request's h, and
// output perturbation, which has none, its k), the noise kind (Laplace at
// δ = 0 for a Bernstein candidate at Laplace noise and for a pure ε-DP
// peer; the request's δ for the GP and Gaussian noise) and, as second
// value, the synopsis kind to release (Options.Mechanism).
func ApplyCandidate(req Request, c Candidate) (Request, string) {
	out := req
	out.Params = c.tuned(req.Params)
	dim := len(req.Features)
	switch {
	case c.peer():
		if c.KeepsK() {
			out.Privacy.H, out.Privacy.K, out.KAuto = max(req.Privacy.H, 1), slices.Repeat([]int{c.K}, dim), false
		}
		if c.Mechanism == synopsis.MechanismGP {
			out.Privacy.Noise = mechanism.NoiseGaussian
		} else {
			out.Privacy.Noise, out.Privacy.Delta = mechanism.NoiseLaplace, 0
		}
	default:
		out.Privacy.H, out.Privacy.K, out.KAuto = c.H, slices.Repeat([]int{c.K}, dim), false
		if c.Noise != "" {
			out.Privacy.Noise = c.Noise
		}
		if out.Privacy.Noise == mechanism.NoiseLaplace {
			out.Privacy.Delta = 0
		}
	}
	return out, c.MechanismName()
}
