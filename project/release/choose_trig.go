package release

import (
	"context"
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// trigSim prepares the simulation of Wang et al.'s trigonometric release
// as a candidate of the private choice (tuning fit f, parameters pr): the
// moments S_m of the training records, m < t = peers.TrigMomentsForK(k)
// (the release's t, planPeer), plus Laplace noise of the full data's
// scale 2(t−1)/(n·ε) on S_1..S_{t−1}, answered at y by Σ_m w_m(y)·S̃_m with
// the release's weights (peers.TrigKDEAnswers, Jackson order
// peers.TrigJackson) — the function a wang-trig file evaluates.
//
// Stability: replacing one training record moves the answer at every y by
// at most (2^{K+1} − 1)·S_T for every noise draw (peers.TrigStabilityFactor;
// S_T the training KDE's replace-one sensitivity K_b(1 − e^{−1/(2b²)})/|T|),
// inflated by a relative 10⁻⁶ for the quadrature's aliasing and the
// weights' rounding (docs/validation.md, "Choosing among mechanisms").
func (pl *choicePlan) trigSim(f *trainFit, pr mechanism.Params) (*candidateSim, error) {
	bw := f.values["bandwidth"]
	if len(bw) != 1 || len(pr.K) != 1 {
		return nil, reqErr("mechanism", "%s answers the one-dimensional KDE only", peerWords(synopsis.MechanismTrig))
	}
	t := peers.TrigMomentsForK(pr.K[0])
	scale, err := peers.TrigNoiseScale(pl.p.Fitted.N, t, pr.Epsilon)
	if err != nil {
		return nil, reqErr("mechanism", "%v", err)
	}
	moments, err := peers.TrigMoments(pl.train.X, t)
	if err != nil {
		return nil, err
	}
	moments[0] = 1 // S_0 is public and exact
	mu, err := peers.JacksonMultipliers(t, peers.TrigJackson)
	if err != nil {
		return nil, err
	}
	d := peers.TrigStabilityFactor(peers.TrigJackson) * f.fitted.Sensitivity * (1 + 1e-6)
	// rms is the accuracy score's margin, for classifiers only; the
	// trigonometric release answers a density.
	return &candidateSim{d: d,
		draw: func(_ context.Context, src *mechanism.SimulationNoise) (simRelease, error) {
			s := slices.Clone(moments)
			for m := 1; m < t; m++ {
				s[m] += src.Laplace(scale)
			}
			return trigSimRelease{bandwidth: bw[0], mu: mu, s: s}, nil
		}}, nil
}

// trigSimRelease is one simulated trig release: the noisy moments s,
// answered by peers.TrigKDEAnswers (the wang-trig file's answers, summed
// over the quadrature nodes instead of through per-point weights: no
// per-point storage, whatever the number of validation records).
type trigSimRelease struct {
	bandwidth float64
	mu, s     []float64
}

func (r trigSimRelease) EvalBatch(ctx context.Context, points, out []float64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return peers.TrigKDEAnswers(points, r.bandwidth, r.mu, r.s, out)
}

func (r trigSimRelease) EvalGrid(axes [][]float64) ([]float64, error) {
	if len(axes) != 1 {
		return nil, fmt.Errorf("release: a trigonometric release has one axis, not %d", len(axes))
	}
	out := make([]float64, len(axes[0]))
	return out, peers.TrigKDEAnswers(axes[0], r.bandwidth, r.mu, r.s, out)
}
