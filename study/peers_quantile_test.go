package study

import (
	"context"
	"math"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// peerCase fits the autokCases case named name and returns its target
// problem (TargetProblemOf) at δ with the published peers added for the
// lattice k (AddPeers).
func peerCase(t *testing.T, name string, delta float64, k []int) (TargetProblem, *learners.Fitted) {
	t.Helper()
	for _, c := range autokCases(t) {
		if c.name != name {
			continue
		}
		l, err := learners.Lookup(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := l.Fit(context.Background(), c.data, c.values)
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Spec().Resolve(c.values, c.data.Dim)
		if err != nil {
			t.Fatal(err)
		}
		out := l.Spec().Output.Kind
		if fit.Output.Kind != "" {
			out = fit.Output.Kind
		}
		pr, err := TargetProblemOf(context.Background(), fit, out, c.data)
		if err != nil {
			t.Fatal(err)
		}
		pr.Delta, pr.Repeats, pr.Seed = delta, 100, 7
		if _, err := pr.AddPeers(PeerData{Kind: c.kind, Title: c.name, Data: c.data, Fitted: fit,
			Values: learners.Values(res), K: k}); err != nil {
			t.Fatal(err)
		}
		return pr, fit
	}
	t.Fatalf("no case %q", name)
	return TargetProblem{}, nil
}

func peerOf(t *testing.T, pr TargetProblem, kind string) *Peer {
	t.Helper()
	for _, p := range pr.Peers {
		if p.Kind == kind {
			return p
		}
	}
	t.Fatalf("no peer of kind %q among %d", kind, len(pr.Peers))
	return nil
}

// TestPeerQuantileErrorMatchesRunPeers: a peer's error at 95 % scores the
// releases RunPeers simulates with PerRepeat draws of the same seed (the
// means agree to 1e-12 relative: only the summation order differs); the
// quantile lies in its confidence interval; the peers carry their synopsis
// kinds (none for the histogram); an ε Hall et al.'s theorem refuses
// (ε > 1) gives an infinite error. Deterministic (seeded).
func TestPeerQuantileErrorMatchesRunPeers(t *testing.T) {
	pr, _ := peerCase(t, "kde diabetes bmi [10,60] b=0.05", 1e-6, []int{20})
	kinds := map[string]bool{}
	for _, p := range pr.Peers {
		kinds[p.Kind] = true
		curves, err := RunPeers(context.Background(), []*Peer{p}, []float64{0.5}, 100, PerRepeat{Seed: 7}, nil)
		if err != nil {
			t.Fatal(err)
		}
		q, err := p.QuantileError(context.Background(), 0.5, 100, 7)
		if err != nil {
			t.Fatal(err)
		}
		if want := curves[0].Mean[0]; math.Abs(q.Mean-want) > 1e-12*want {
			t.Errorf("%s: mean %g, RunPeers %g", p.Label, q.Mean, want)
		}
		if !(q.Low <= q.Error && q.Error <= q.High) || q.Error < q.Mean {
			t.Errorf("%s: 95 %% error %g outside [%g, %g] or below the mean %g", p.Label, q.Error, q.Low, q.High, q.Mean)
		}
		if q.Mechanism != p.Kind || q.Label != p.Label {
			t.Errorf("%s: point names %q %q", p.Label, q.Mechanism, q.Label)
		}
	}
	for _, k := range []string{peers.KindTrig, peers.KindGP, ""} {
		if !kinds[k] {
			t.Errorf("no peer of kind %q (kinds %v)", k, kinds)
		}
	}
	q, err := peerOf(t, pr, peers.KindGP).QuantileError(context.Background(), 2, 100, 7)
	if err != nil || !math.IsInf(q.Error, 1) {
		t.Errorf("GP at ε = 2: error %g (%v), want +Inf (proven for ε ≤ 1 only)", q.Error, err)
	}
	if _, err := peerOf(t, pr, peers.KindGP).QuantileError(context.Background(), 0.5, 19, 7); err == nil {
		t.Error("19 repeats accepted for a 95 % quantile")
	}
}

// TestPeerAgreementOutputPerturbation: for a classifier the peers' error is
// the disagreement with the non-private classifier at the records. The
// output-perturbation peer's is recomputed here release by release from
// its definition (weights ŵ + (Δ₂/ε)·u, u the repeat's unit draw; class
// at the link ≥ ½): the means agree to 1e-12. Deterministic.
func TestPeerAgreementOutputPerturbation(t *testing.T) {
	pr, fit := peerCase(t, "logistic (probability) breast cancer", 0, []int{10, 10})
	p := peerOf(t, pr, peers.KindOutputPerturbation)
	m, err := learners.LinearModelOf(learners.KindLogistic, fit, learners.Values{"output": {1}})
	if err != nil {
		t.Fatal(err)
	}
	const eps, repeats = 0.3, 40
	q, err := p.QuantileError(context.Background(), eps, repeats, 11)
	if err != nil {
		t.Fatal(err)
	}
	scale, err := peers.OutputPerturbationScale(m.Sensitivity2, eps)
	if err != nil {
		t.Fatal(err)
	}
	dim, n := m.Dim, pr.Points.N(m.Dim)
	row := make([]float64, dim+1)
	sum := 0.0
	for r := range repeats {
		u, err := peers.OutputPerturbationNoise(dim+1, 1, 1, mechanism.NewSimulationNoise(RepeatSeed(11, r)))
		if err != nil {
			t.Fatal(err)
		}
		flips := 0
		for i := range n {
			m.Lift(pr.Points.X[i*dim:(i+1)*dim], row)
			z := 0.0
			for j, v := range row {
				z += (m.W[j] + scale*u[j]) * v
			}
			if (m.Link(z) >= 0.5) != (pr.Points.Truth[i] >= 0.5) {
				flips++
			}
		}
		sum += float64(flips) / float64(n)
	}
	if want := sum / repeats; math.Abs(q.Mean-want) > 1e-12 {
		t.Errorf("mean disagreement %g, recomputed %g", q.Mean, want)
	}
	if q.Error < 0 || q.Error > 1 {
		t.Errorf("disagreement %g is not a share", q.Error)
	}
	big, err := p.QuantileError(context.Background(), 1e4, repeats, 11)
	if err != nil || big.Error > 0.01 {
		t.Errorf("disagreement at ε = 10⁴: %g (%v), want ≤ 1 %%", big.Error, err)
	}
}

// TestPeerAgreementGP: Hall et al. on the SVM (a classifier): the
// disagreement is a share and, with the same unit paths at every ε, never
// decreases as ε falls (a record flips when the noise at it exceeds
// |F_D|, and the noise scales with 1/ε). Deterministic.
func TestPeerAgreementGP(t *testing.T) {
	pr, _ := peerCase(t, "svm default σ=1 breast cancer", 1e-6, []int{10, 10})
	p := peerOf(t, pr, peers.KindGP)
	if p.newPointWorker == nil {
		t.Fatal("the GP peer of a classifier has no agreement measure")
	}
	prev := -1.0
	for _, eps := range []float64{1, 0.3, 0.1, 0.03} {
		q, err := p.QuantileError(context.Background(), eps, 40, 3)
		if err != nil {
			t.Fatal(err)
		}
		if q.Mean < 0 || q.Error > 1 || q.Mean < prev-1e-15 {
			t.Errorf("ε = %g: disagreement mean %g, 95 %% %g (previous mean %g): want shares, not decreasing as ε falls", eps, q.Mean, q.Error, prev)
		}
		prev = q.Mean
	}
	if prev == 0 {
		t.Error("no record flips at ε = 0.03: the measure does not see the noise")
	}
}

// TestFindEpsilonPeers: the target search proposes a published peer when
// its simulated releases reach the target at a smaller ε than every
// Bernstein setting — here Hall et al.'s GP on a one-dimensional KDE at
// δ = 10⁻⁶ (Figure 1: about 10× below Bernstein at ε ≤ 1) — and never
// proposes the GP beyond its theorem (ε ≤ 1): a target only ε > 1
// reaches goes to another mechanism. Deterministic (seeded).
func TestFindEpsilonPeers(t *testing.T) {
	pr, _ := peerCase(t, "kde diabetes bmi [10,60] b=0.05", 1e-6, []int{20})
	// The curator's k and two orders keep the searches short.
	pr.K, pr.Orders = 20, []int{1, 2}
	bern := pr
	bern.Peers = nil
	gp := peerOf(t, pr, peers.KindGP)
	at1, err := gp.QuantileError(context.Background(), 1, 100, 7)
	if err != nil {
		t.Fatal(err)
	}
	// A target the GP reaches below ε = 1.
	target := 1.5 * at1.Error
	res, err := FindEpsilon(context.Background(), pr, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	only, err := FindEpsilon(context.Background(), bern, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("target %g: with peers %+v; Bernstein only ε = %g", target, res.Proposal, only.Proposal.Epsilon)
	if !res.Reached || res.Proposal.Mechanism != peers.KindGP || res.Proposal.Epsilon > 1 {
		t.Fatalf("proposal %+v, want Hall et al.'s GP at ε ≤ 1", res.Proposal)
	}
	if only.Reached && only.Proposal.Epsilon < res.Proposal.Epsilon {
		t.Errorf("with the peers ε = %g, Bernstein alone %g: the search must take the smallest", res.Proposal.Epsilon, only.Proposal.Epsilon)
	}
	if res.Proposal.Error > target || res.Proposal.Noise != mechanism.NoiseGaussian || res.Proposal.Delta != 1e-6 {
		t.Errorf("proposal %+v: re-checked error above the target %g or not the GP's noise", res.Proposal, target)
	}
	// A target the GP misses at ε = 1.
	tight := at1.Low / 4
	res, err = FindEpsilon(context.Background(), pr, tight, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proposal.Mechanism == peers.KindGP && res.Proposal.Epsilon > 1 {
		t.Errorf("GP proposed at ε = %g > 1", res.Proposal.Epsilon)
	}
	// Pure ε: the GP is no candidate.
	pure, _ := peerCase(t, "kde diabetes bmi [10,60] b=0.05", 0, []int{20})
	pure.K, pure.Orders = 20, []int{1, 2}
	res, err = FindEpsilon(context.Background(), pure, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Proposal.Mechanism == peers.KindGP {
		t.Errorf("GP proposed at δ = 0: %+v", res.Proposal)
	}
}

// TestPassingFrom: the start of a mechanism's passing range on the ε grid
// (errors by increasing ε; Inf where it does not apply).
func TestPassingFrom(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		errs []float64
		want int
	}{
		{[]float64{3, 2, 1, 0.5}, 2},          // passes from the third
		{[]float64{3, 0.5, 2, 0.5}, 3},        // a dip below the target does not count
		{[]float64{3, 0.9, 0.5, inf, inf}, 1}, // the peer's theorem ends its range
		{[]float64{inf, 0.5, 0.5}, 1},         // below its range: not passing
		{[]float64{3, 2, inf}, 3},             // never
		{[]float64{inf, inf}, 2},
	} {
		pts := make([]TargetPoint, len(c.errs))
		for i, e := range c.errs {
			pts[i].Error = e
		}
		if got := passingFrom(pts, 1); got != c.want {
			t.Errorf("passingFrom(%v, 1) = %d, want %d", c.errs, got, c.want)
		}
	}
}
