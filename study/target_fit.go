package study

import (
	"context"
	"math"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TargetGrid returns the per-axis grid of the target search in dim
// dimensions, the preview's tradeoff grid (about 10⁴ points: 512 for
// ℓ = 1, 100×100 for ℓ = 2, at least 4 per axis), so the search and the
// preview take the sup-norm over the same points.
func TargetGrid(dim int) [][]float64 {
	var n int
	switch dim {
	case 1:
		n = 512
	case 2:
		n = 100
	default:
		n = max(4, int(math.Floor(math.Pow(1e4, 1/float64(dim)))))
	}
	axes := make([][]float64, dim)
	for j := range axes {
		axes[j] = Linspace01(n)
	}
	return axes
}

// TargetMaxPoints is how many records (evenly spaced by row number, Thin) a
// classifier's disagreement is scored on, as in the preview.
const TargetMaxPoints = 1000

// TargetProblemOf builds the target search's problem for a fit: F_D of
// fit.Oracle on the lattice of each k (evaluated when the search asks for
// it), on TargetGrid and — for a classifier (output kind class score or
// probability, threshold 0 or ½) — at the records of data (at most
// TargetMaxPoints), with fit's sensitivity and stand-in. The records and
// F_D are the caller's data: private unless data is a public stand-in.
// Delta, K, Orders, Repeats, Seed and the ε range are left for the caller.
// It returns ctx.Err() when cancelled and an error when F_D is not finite
// on the grid or at a record.
func TargetProblemOf(ctx context.Context, fit *learners.Fitted, out learners.OutputKind, data learners.Dataset) (TargetProblem, error) {
	dim := data.Dim
	pr := TargetProblem{
		Lattice: func(ctx context.Context, k []int) ([]float64, error) {
			lat, err := mechanism.NewLattice(k)
			if err != nil {
				return nil, err
			}
			return mechanism.EvaluateLattice(ctx, fit.Oracle, lat, nil)
		},
		Grid: TargetGrid(dim), Sensitivity: fit.Sensitivity, StandIn: fit.StandIn,
		NoiseSensitivity: fit.NoiseSensitivity,
	}
	var err error
	if pr.Truth, err = EvalGrid(ctx, fit.Oracle, pr.Grid, nil); err != nil {
		return pr, err
	}
	switch out {
	case learners.OutputClassScore, learners.OutputProbability:
		if out == learners.OutputProbability {
			pr.Threshold = 0.5
		}
		x, labels := Thin(data.X, dim, data.Labels, TargetMaxPoints)
		truth, err := EvalPoints(ctx, fit.Oracle, x, dim)
		if err != nil {
			return pr, err
		}
		pr.Points = &PointData{X: x, Truth: truth, Labels: labels}
	}
	return pr, nil
}

// AddPeers builds the published peers that apply to the fit of pd (Kind,
// Title, Data, Fitted, Values and the lattice k K; BuildPeers) on pr's
// grid and F_D, at pr's δ and, for a classifier, at pr's points, and adds
// them to pr.Peers as candidates of the search (FindEpsilon), which
// rebuilds them at the k of every ε it tries (the curator's manual k, else
// the automatic k at that ε with h = 1: targetSearch.peerK, its neighbours
// on the grid, and every k it minimises a peer proposal's error over). It
// returns
// BuildPeers' caption (peers that apply to the learner but not to these
// settings). Set pr.Delta and pr.K first.
func (pr *TargetProblem) AddPeers(pd PeerData) (string, error) {
	pd.Grid, pd.Truth, pd.Delta, pd.Points, pd.Threshold = pr.Grid, pr.Truth, pr.Delta, pr.Points, pr.Threshold
	pd.Lattice = nil // of pd.K; the search passes its own per k
	pd.trig = &trigCoefficients{}
	sims, caption, err := BuildPeers(pd)
	if err != nil {
		return "", err
	}
	pr.Peers = append(pr.Peers, sims...)
	pr.peers = &pd
	return caption, nil
}
