package release

import (
	"context"
	"fmt"
	"slices"
	"unsafe"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// trigSim prepares the simulation of Wang et al.'s trigonometric release
// as a candidate of the private choice (tuning fit f, parameters pr): the
// moments S_m of the training records, m < t = min(k+1, MaxTrigDegree)
// (the release's t, planPeer), plus Laplace noise of the full data's
// scale 2(t−1)/(n·ε) on S_1..S_{t−1}, answered at y by Σ_m w_m(y)·S̃_m with
// the release's weights (peers.TrigKDEWeightsWith, Jackson order
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
	t := min(pr.K[0]+1, peers.MaxTrigDegree)
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
	w := &trigWeights{bandwidth: bw[0], mu: mu}
	d := peers.TrigStabilityFactor(peers.TrigJackson) * f.fitted.Sensitivity * (1 + 1e-6)
	// rms is the accuracy score's margin, for classifiers only; the
	// trigonometric release answers a density.
	return &candidateSim{d: d,
		draw: func(_ context.Context, src *mechanism.SimulationNoise) (simRelease, error) {
			s := slices.Clone(moments)
			for m := 1; m < t; m++ {
				s[m] += src.Laplace(scale)
			}
			return trigSimRelease{w: w, s: s}, nil
		}}, nil
}

// trigWeights holds the public answer weights w(y) of one trig candidate
// for the points it was last asked about (the validation records and the
// score's grid, the same for every draw), so the draws share them.
type trigWeights struct {
	bandwidth float64
	mu        []float64
	byPoints  map[pointsKey][]float64
}

// pointsKey identifies a slice of query points by its backing array and
// length: the plan asks every draw about the same slices.
type pointsKey struct {
	data *float64
	n    int
}

// at returns the weights of every point of ys (row-major, t per point).
func (w *trigWeights) at(ys []float64) ([]float64, error) {
	key := pointsKey{unsafe.SliceData(ys), len(ys)}
	if v, ok := w.byPoints[key]; ok {
		return v, nil
	}
	t := len(w.mu)
	out := make([]float64, len(ys)*t)
	for i, y := range ys {
		if _, err := peers.TrigKDEWeightsWith(y, w.bandwidth, w.mu, out[i*t:(i+1)*t]); err != nil {
			return nil, err
		}
	}
	if w.byPoints == nil {
		w.byPoints = map[pointsKey][]float64{}
	}
	w.byPoints[key] = out
	return out, nil
}

// trigSimRelease is one simulated trig release: the noisy moments s.
type trigSimRelease struct {
	w *trigWeights
	s []float64
}

func (r trigSimRelease) answer(ctx context.Context, ys, out []float64) error {
	if len(ys) != len(out) {
		return fmt.Errorf("release: %d coordinates for %d one-dimensional points", len(ys), len(out))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w, err := r.w.at(ys)
	if err != nil {
		return err
	}
	t := len(r.s)
	for i := range out {
		var v float64
		for m, c := range w[i*t : (i+1)*t] {
			v += c * r.s[m]
		}
		out[i] = v
	}
	return nil
}

func (r trigSimRelease) EvalBatch(ctx context.Context, points, out []float64) error {
	return r.answer(ctx, points, out)
}

func (r trigSimRelease) EvalGrid(axes [][]float64) ([]float64, error) {
	if len(axes) != 1 {
		return nil, fmt.Errorf("release: a trigonometric release has one axis, not %d", len(axes))
	}
	out := make([]float64, len(axes[0]))
	return out, r.answer(context.Background(), axes[0], out)
}
