package preview

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/study"
)

// kde1DInput is the Figure 1 demo (ℓ = 1 KDE, k = 20) with the peers on.
func kde1DInput(eps float64) Input {
	return Input{Request: release.Request{
		Dataset: dataset.DemoKDE1D(1), Features: []string{"x"},
		Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 1}},
		Learner: learners.KindKDE,
		Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 2, K: []int{20}},
	}, Peers: true}
}

// twoClassInput is the two-class demo with another learner.
func twoClassInput(kind learners.Kind, params learners.Values) Input {
	in := twoClassKDE(1)
	in.Request.Learner = kind
	in.Request.Label, in.Request.Classes = "label", &dataset.Classes{Negative: "0", Positive: "1"}
	in.Request.Params = params
	in.Request.Privacy.K = []int{4}
	in.Peers = true
	return in
}

// TestPreviewPeersKDE: for the ℓ = 1 KDE the tradeoff gains the Wang et
// al., C&V histogram and Hall et al. series (finite, positive, dashed,
// named in the legend; Hall et al. only for ε ≤ 1) on the Bernstein
// curves' ε grid; turning the peers on reuses the cached Bernstein
// simulation and only simulates the peers.
func TestPreviewPeersKDE(t *testing.T) {
	e := NewEngine()
	off := kde1DInput(1)
	off.Peers = false
	plain, err := e.Compute(context.Background(), off, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Peers) != 0 {
		t.Fatalf("peers off: %d peer curves", len(plain.Peers))
	}
	var stages []Stage
	res, err := e.Compute(context.Background(), kde1DInput(1), func(s Stage, _, _ int) {
		if len(stages) == 0 || stages[len(stages)-1] != s {
			stages = append(stages, s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) != 1 || stages[0] != StagePeers {
		t.Errorf("turning the peers on ran stages %v; want only %q", stages, StagePeers)
	}
	if len(res.Peers) != 3 || !strings.HasPrefix(res.Peers[0].Label, study.PeerNameTrig) || !strings.HasPrefix(res.Peers[1].Label, study.PeerNameHistogram) ||
		res.Peers[2].Label != study.PeerNameGP+" (δ = 1e-06, ε ≤ 1)" {
		t.Fatalf("peer curves %+v: want %s, %s and %s", res.Peers, study.PeerNameTrig, study.PeerNameHistogram, study.PeerNameGP)
	}
	if res.PeerCaption != "" {
		t.Errorf("caption %q for a KDE with ℓ = 1: want none", res.PeerCaption)
	}
	t.Logf("ε %.3g", res.Tradeoff.Epsilons)
	for _, c := range res.Tradeoff.Curves {
		t.Logf("%-40s %.3g", c.Label, c.Y)
	}
	for _, pc := range res.Peers {
		if len(pc.Mean) != len(res.Tradeoff.Epsilons) {
			t.Fatalf("%s: %d values for %d ε", pc.Label, len(pc.Mean), len(res.Tradeoff.Epsilons))
		}
		last := len(pc.Mean) - 1
		for i, v := range pc.Mean {
			eps := res.Tradeoff.Epsilons[i]
			gpOut := strings.HasPrefix(pc.Label, study.PeerNameGP) && eps > 1
			if gpOut != math.IsNaN(v) || !gpOut && (!(v > 0) || math.IsInf(v, 0)) {
				t.Errorf("%s at ε = %g: mean sup error %v", pc.Label, eps, v)
			}
			if !gpOut {
				last = i
			}
		}
		// More budget, less error (each curve uses the same draws for
		// every ε, so this holds draw by draw up to the bias floor).
		if pc.Mean[last] >= pc.Mean[0] {
			t.Errorf("%s: error at ε = %g %v ≥ at the smallest ε %v", pc.Label, res.Tradeoff.Epsilons[last], pc.Mean[last], pc.Mean[0])
		}
		found := false
		for _, c := range res.Tradeoff.Curves {
			if c.Label == pc.Label {
				found = c.Dashed && c.Colour >= 6
			}
		}
		if !found {
			t.Errorf("%s is not a dashed peer curve of the tradeoff plot", pc.Label)
		}
	}
	// Same curves from the cache, and the Bernstein curves unchanged.
	again, err := e.Compute(context.Background(), kde1DInput(1.2), nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Peers[0].Mean[3] != res.Peers[0].Mean[3] || again.Tradeoff.Curves[0].Y[3] != plain.Tradeoff.Curves[0].Y[3] {
		t.Error("moving ε within the grid changed the cached curves")
	}
}

// TestPeerSimLimits checks the peers against what they must give when the
// noise vanishes (ε → ∞): the trig summary its noise-free approximation
// error, the histogram its binning error, output perturbation F_D itself.
func TestPeerSimLimits(t *testing.T) {
	e := NewEngine()
	if _, err := e.Compute(context.Background(), kde1DInput(1), nil); err != nil {
		t.Fatal(err)
	}
	grid := tradeoffGrid(1)
	pc := peerData(e.prep, grid, e.truth, []int{20}, 0)
	sims, _, err := study.BuildPeers(pc)
	if err != nil {
		t.Fatal(err)
	}
	huge := []float64{1e12}
	curves, err := study.RunPeers(context.Background(), sims, huge, 3, study.PerRepeat{Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range curves[:2] {
		// Both are biased estimators of a KDE of bandwidth 0.05: their
		// noise-free error is positive and below the peak density.
		if !(c.Mean[0] > 0 && c.Mean[0] < 0.5*maxOf(e.truth)) {
			t.Errorf("%s noise-free error %v: want in (0, %v)", c.Label, c.Mean[0], 0.5*maxOf(e.truth))
		}
	}
	// The histogram with noise-free counts: recompute its binning error.
	counts := make([]float64, 20)
	for _, x := range e.prep.LearnerData().X {
		counts[min(int(x*20), 19)]++
	}
	want := 0.0
	for i, y := range grid[0] {
		b := min(int(y*20), 19)
		want = math.Max(want, math.Abs(counts[b]*20/float64(len(e.prep.LearnerData().X))-e.truth[i]))
	}
	if got := curves[1].Mean[0]; math.Abs(got-want) > 1e-6*want {
		t.Errorf("histogram at ε = 1e12: %v, want the binning error %v", got, want)
	}

	lr := NewEngine()
	res, err := lr.Compute(context.Background(), twoClassInput(learners.KindLogistic, learners.Values{"C": {1}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Peers) != 1 || res.Peers[0].Label != study.PeerNameOutput || res.PeerCaption != "" {
		t.Fatalf("logistic peers %+v, caption %q: want only %s", res.Peers, res.PeerCaption, study.PeerNameOutput)
	}
	sims, _, err = study.BuildPeers(peerData(lr.prep, tradeoffGrid(2), lr.truth, []int{4}, 0))
	if err != nil {
		t.Fatal(err)
	}
	curves, err = study.RunPeers(context.Background(), sims, huge, 3, study.PerRepeat{Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if curves[0].Mean[0] > 1e-9 {
		t.Errorf("output perturbation at ε = 1e12: error %v, want ≈ 0", curves[0].Mean[0])
	}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// TestPreviewPeersOutputPerturbation: the score's sup error over the grid
// is |⟨b, ỹ⟩| ≤ ‖b‖ at the worst point, so its mean is at most
// E‖b‖ = (ℓ+1)·Δ₂/ε. With 200 repeats the sample mean of ‖b‖ ~
// Gamma(3, θ) exceeds its mean by more than 4.5 standard errors
// (θ·√(3/200)·4.5 ≈ 0.55θ, i.e. 18 % of 3θ) with probability < 1e-5, so
// 1.2·E‖b‖ is a safe bound; the curve must also fall like 1/ε.
func TestPreviewPeersOutputPerturbation(t *testing.T) {
	e := NewEngine()
	res, err := e.Compute(context.Background(), twoClassInput(learners.KindLogistic, learners.Values{"C": {1}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	pc := res.Peers[0]
	delta2 := 2 * 1.0 / float64(res.N) * 1.01
	for i, eps := range res.Tradeoff.Epsilons {
		bound := 1.2 * 3 * delta2 / eps
		if !(pc.Mean[i] > 0 && pc.Mean[i] <= bound) {
			t.Errorf("ε = %g: mean sup error %v: want in (0, %v]", eps, pc.Mean[i], bound)
		}
		if i > 0 {
			// Score error is linear in the scale: ratio ε_{i−1}/ε_i exactly.
			if r := pc.Mean[i] / pc.Mean[i-1]; math.Abs(r-res.Tradeoff.Epsilons[i-1]/eps) > 1e-6 {
				t.Errorf("error ratio %v between ε = %g and %g: want %v", r, res.Tradeoff.Epsilons[i-1], eps, res.Tradeoff.Epsilons[i-1]/eps)
			}
		}
	}
}

// TestPreviewPeersNone: learners without a published peer get the caption
// and no curves.
func TestPreviewPeersNone(t *testing.T) {
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{twoClassInput(learners.KindNaiveBayes, nil), "No published peer applies to Naive Bayes"},
		{func() Input {
			in := twoClassInput(learners.KindRidge, nil)
			in.Request.Bounds["label"] = dataset.Bounds{Lo: 0, Hi: 1}
			in.Request.Classes = nil
			return in
		}(), "No published peer applies to Ridge"},
	} {
		res, err := NewEngine().Compute(context.Background(), tc.in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Peers) != 0 || !strings.HasPrefix(res.PeerCaption, tc.want) {
			t.Errorf("%s: %d peers, caption %q: want none and %q", tc.in.Request.Learner, len(res.Peers), res.PeerCaption, tc.want)
		}
	}
}

// TestPreviewPeersSkipped: a KDE bandwidth below what the trig peer's
// quadrature resolves leaves the histogram and explains the missing trig
// curve in the caption.
func TestPreviewPeersSkipped(t *testing.T) {
	in := kde1DInput(1)
	in.Request.Params = learners.Values{"bandwidth": {0.004}}
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Peers) != 2 || !strings.HasPrefix(res.Peers[0].Label, study.PeerNameHistogram) || !strings.HasPrefix(res.Peers[1].Label, study.PeerNameGP) ||
		res.PeerCaption != "Wang et al. trig is not shown: it needs a bandwidth ≥ 0.005 (this one is 0.004)." {
		t.Errorf("peers %+v, caption %q", res.Peers, res.PeerCaption)
	}
}

// TestPreviewPeersGP: Hall et al. applies to the 2-D KDE and the SVM, with
// the curator's δ in the legend; ε > 1 is not drawn. Its error is that of
// the release on the public grid of k, interpolated at the preview grid:
// sup|I(F_D) − F_D + √c·I(G)| with the same paths G for every ε ≤ 1, so
// the curve falls as ε grows (the mean of sup|r + s·I(G)| over symmetric
// noise is an even convex function of the scale s: non-decreasing in s),
// but no faster than 1/ε (the interpolation error does not shrink with
// the noise). Deterministic (seeded draws).
func TestPreviewPeersGP(t *testing.T) {
	kde2 := twoClassKDE(1)
	kde2.Peers = true
	svm := twoClassInput(learners.KindSVM, nil)
	svm.Request.Privacy.Noise, svm.Request.Privacy.Delta = mechanism.NoiseGaussian, 1e-5
	for _, tc := range []struct {
		in    Input
		label string
	}{
		{kde2, study.PeerNameGP + " (δ = 1e-06, ε ≤ 1)"},
		{svm, study.PeerNameGP + " (δ = 1e-05, ε ≤ 1)"},
	} {
		res, err := NewEngine().Compute(context.Background(), tc.in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Peers) != 1 || res.Peers[0].Label != tc.label || res.PeerCaption != "" {
			t.Fatalf("%s: peers %+v, caption %q: want only %q", tc.in.Request.Learner, res.Peers, res.PeerCaption, tc.label)
		}
		m, eps := res.Peers[0].Mean, res.Tradeoff.Epsilons
		for i := range m {
			switch {
			case eps[i] > 1:
				if !math.IsNaN(m[i]) {
					t.Errorf("%s: ε = %g > 1 drawn: %v", tc.in.Request.Learner, eps[i], m[i])
				}
			case !(m[i] > 0):
				t.Errorf("%s: ε = %g: error %v", tc.in.Request.Learner, eps[i], m[i])
			case i > 0 && !(m[i] <= m[i-1] && m[i]/m[i-1] >= eps[i-1]/eps[i]*(1-1e-9)):
				t.Errorf("%s: error ratio %v between ε = %g and %g: want between %v and 1", tc.in.Request.Learner, m[i]/m[i-1], eps[i-1], eps[i], eps[i-1]/eps[i])
			}
		}
	}
}
