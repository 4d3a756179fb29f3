package study

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// kdeOnTargetGrid fits the 1-D KDE of bandwidth bw to x and returns it
// with F_D on the target search's grid (TargetGrid(1)).
func kdeOnTargetGrid(t *testing.T, x []float64, bw float64) (learners.Dataset, learners.Values, *learners.Fitted, [][]float64, []float64) {
	t.Helper()
	data := learners.Dataset{Dim: 1, X: x}
	values := learners.Values{"bandwidth": {bw}}
	fit, err := learners.NewKDE().Fit(context.Background(), data, values)
	if err != nil {
		t.Fatal(err)
	}
	grid := TargetGrid(1)
	truth, err := EvalGrid(context.Background(), fit.Oracle, grid, nil)
	if err != nil {
		t.Fatal(err)
	}
	return data, values, fit, grid, truth
}

// gpClusters is a wiggly F_D on a coarse release grid: a KDE of bandwidth
// 0.03 on 600 records in three narrow clusters (at 0.2, 0.5 and 0.8), with
// the GP peer at k = 6 (7 grid points; the clusters at 0.2 and 0.8 lie
// between them) and, with onGrid, the process sampled on the preview grid
// itself (the paper's protocol). It returns the peer, the fit and the
// preview grid with F_D.
func gpClusters(t *testing.T, onGrid bool) (*Peer, *learners.Fitted, [][]float64, []float64) {
	t.Helper()
	x := make([]float64, 600)
	for i := range x {
		x[i] = []float64{0.2, 0.5, 0.8}[i%3] + 0.02*float64(i/3)/200
	}
	data, values, fit, grid, truth := kdeOnTargetGrid(t, x, 0.03)
	sims, caption, err := BuildPeers(PeerData{Kind: learners.KindKDE, Title: "kde", Data: data, Fitted: fit, Values: values,
		Grid: grid, Truth: truth, K: []int{6}, Delta: 1e-6, GPOnGrid: onGrid})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sims {
		if s.Kind == peers.KindGP {
			return s, fit, grid, truth
		}
	}
	t.Fatalf("no GP peer (%s)", caption)
	return nil, nil, nil, nil
}

// TestGPPeerSimulatesTheRelease: repeat r of the GP peer is the product's
// release made from the same draws — peers.GPFactor.Release of F_D on the
// lattice of k (peers.GPReleaseAxes) with repeat r's unit noise, evaluated
// at the preview grid by GPGrid.Eval, the hall-gp file's evaluation — so
// the peer's mean and 95 % sup-norm errors equal those of these releases
// to 1e-9 relative (only the order of the rounding differs: the peer
// interpolates the unit path and scales it). Deterministic.
func TestGPPeerSimulatesTheRelease(t *testing.T) {
	p, fit, grid, truth := gpClusters(t, false)
	const eps, repeats, seed = 0.5, 200, 9
	q, err := p.QuantileError(context.Background(), eps, repeats, seed)
	if err != nil {
		t.Fatal(err)
	}
	axes, err := peers.GPReleaseAxes([]int{6})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := learners.RKHSPeer(learners.KindKDE, fit.N, learners.Values{"bandwidth": {0.03}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := peers.NewGPFactor(axes, peers.GPKernel{Amplitude: rs.Amplitude, Sigmas: rs.Sigmas})
	if err != nil {
		t.Fatal(err)
	}
	scale, err := peers.GPNoiseScale(rs.Delta, eps, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	lattice, err := EvalGrid(context.Background(), fit.Oracle, axes, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]float64, repeats)
	var mean float64
	for r := range errs {
		g, err := f.Release(lattice, scale, mechanism.NewSimulationNoise(RepeatSeed(seed, r)))
		if err != nil {
			t.Fatal(err)
		}
		for i, y := range grid[0] {
			errs[r] = math.Max(errs[r], math.Abs(g.Eval([]float64{y})-truth[i]))
		}
		mean += errs[r] / repeats
	}
	q95, _, _ := quantileCI(errs, TargetQuantile)
	if math.Abs(q.Mean-mean) > 1e-9*mean || math.Abs(q.Error-q95) > 1e-9*q95 {
		t.Errorf("peer: mean %.12g, 95 %% %.12g; the releases: mean %.12g, 95 %% %.12g", q.Mean, q.Error, mean, q95)
	}
}

// TestGPPeerInterpolationError: on a coarse release grid and a wiggly
// F_D the simulated GP release carries the interpolation error
// b = sup_grid |I(F_D) − F_D| (about 3 here, against a noise of standard
// deviation about 0.3 per point at ε = 1): its mean sup error is at least
// 0.9·b (E sup_g |r_g + N_g| ≥ sup_g |r_g| for centred noise N; 200
// repeats of a noise this small cannot bring the mean 10 % lower), where
// the process sampled on the preview grid itself (the old simulation)
// stays below b/2. Deterministic.
func TestGPPeerInterpolationError(t *testing.T) {
	p, fit, grid, truth := gpClusters(t, false)
	axes, err := peers.GPReleaseAxes([]int{6})
	if err != nil {
		t.Fatal(err)
	}
	lattice, err := EvalGrid(context.Background(), fit.Oracle, axes, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := peers.NewGPGrid(axes, lattice)
	if err != nil {
		t.Fatal(err)
	}
	var bias float64
	for i, y := range grid[0] {
		bias = math.Max(bias, math.Abs(g.Eval([]float64{y})-truth[i]))
	}
	q, err := p.QuantileError(context.Background(), 1, 200, 3)
	if err != nil {
		t.Fatal(err)
	}
	onGrid, _, _, _ := gpClusters(t, true)
	old, err := onGrid.QuantileError(context.Background(), 1, 200, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("interpolation error %.4g; mean sup error on the release grid %.4g, on the preview grid itself %.4g", bias, q.Mean, old.Mean)
	if !(bias > 1) {
		t.Fatalf("interpolation error %g: the case is not wiggly enough to test anything", bias)
	}
	if q.Mean < 0.9*bias {
		t.Errorf("simulated GP release: mean sup error %g below 0.9 × the interpolation error %g", q.Mean, bias)
	}
	if old.Mean > bias/2 {
		t.Errorf("the process on the preview grid itself: mean sup error %g, want below half the interpolation error %g", old.Mean, bias)
	}
}

// TestFindEpsilonPeersAtTheirK: with the automatic k the search builds
// the published peers at the k of every ε it tries (peerK: the automatic
// k at that ε of the peer's noise with h = 1, and its neighbours
// KNeighbours), not at the k AddPeers was given, and a peer proposal's k
// is the k minimising its error (TestFindEpsilonMinimisesK): a GP
// proposal names a k the GP was rebuilt at, the k its searched error was
// simulated at. Deterministic (seeded).
func TestFindEpsilonPeersAtTheirK(t *testing.T) {
	pr, _ := peerCase(t, "kde diabetes bmi [10,60] b=0.05", 1e-6, []int{3})
	pr.Orders = []int{1}
	s, err := newTargetSearch(pr, 1)
	if err != nil {
		t.Fatal(err)
	}
	f := slices.IndexFunc(s.peers, func(p *Peer) bool { return p.Kind == peers.KindGP }) + 1
	if f == 0 {
		t.Fatal("no GP peer")
	}
	gp, k1, err := s.peer(context.Background(), f, 1, 0)
	if err != nil || gp == nil {
		t.Fatalf("GP at ε = 1: %v, %v", gp, err)
	}
	at1, err := gp.QuantileError(context.Background(), 1, pr.Repeats, pr.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if k1 == 3 || !slices.Equal(at1.K, []int{k1}) {
		t.Fatalf("GP at ε = 1 built at k = %v (peerK %d), want the automatic k there, not AddPeers' 3", at1.K, k1)
	}
	target := 1.5 * at1.Error
	res, err := FindEpsilon(context.Background(), pr, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := res.Proposal
	t.Logf("target %g: proposal %s at ε = %g, k = %v", target, p.Mechanism, p.Epsilon, p.K)
	if !res.Reached || p.Mechanism != peers.KindGP || p.Epsilon > 1 {
		t.Fatalf("proposal %+v, want Hall et al.'s GP at ε ≤ 1", p)
	}
	if len(p.K) != 1 || !slices.Equal(p.K, res.Search.K) {
		t.Fatalf("GP proposal at k = %v, its search at %v", p.K, res.Search.K)
	}
	at, k, err := s.peer(context.Background(), f, res.Search.Epsilon, p.K[0])
	if err != nil || at == nil || k != p.K[0] {
		t.Fatalf("GP at k = %d: %v, %v (k %d)", p.K[0], at, err, k)
	}
	q, err := at.QuantileError(context.Background(), res.Search.Epsilon, pr.Repeats, pr.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if q.Error != res.Search.Error || !slices.Equal(q.K, p.K) {
		t.Errorf("the GP rebuilt at k = %d has error %g (k %v), the search saw %g", p.K[0], q.Error, q.K, res.Search.Error)
	}
}
