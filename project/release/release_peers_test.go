package release

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/differential-privacy/go/v3/noise"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// peerRequests are valid requests for each peer kind on the test data.
func peerRequests(ds *dataset.Table) map[string]Request {
	gp := kdeRequest(ds)
	gp.Privacy = mechanism.Params{Epsilon: 0.5, Delta: 1e-6, Noise: mechanism.NoiseGaussian, K: []int{8}, H: 1}
	trig := kdeRequest(ds)
	logistic := Request{
		Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &dataset.Classes{Negative: "3", Positive: "7"},
		Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: -5, Hi: 15}},
		Learner: learners.KindLogistic,
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{4}, H: 1},
	}
	return map[string]Request{"gp": gp, "trig": trig, synopsis.MechanismOutputPerturbation: logistic}
}

// TestReleasePeerKinds releases every peer kind end to end: the signed
// file reads back with its kind and value count, the ledger charges the
// release's ε and δ under the kind's name, and the released function and
// its noise band evaluate at a query point.
func TestReleasePeerKinds(t *testing.T) {
	ds := releaseTestDataset(t, 200)
	for name, req := range peerRequests(ds) {
		t.Run(name, func(t *testing.T) {
			e := newReleaseEnv(t)
			p, err := Prepare(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			opt := e.opt
			opt.Mechanism = name
			res, err := p.Release(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			v, err := synopsis.Open(res.Path, e.trusted(t))
			if err != nil {
				t.Fatal(err)
			}
			kind := name
			if a, ok := MechanismAlias[name]; ok {
				kind = a
			}
			f := v.File
			if f.Mechanism.Name != kind || v.Release != nil || !v.Trusted {
				t.Fatalf("read back %q (Bernstein release %v, trusted %v)", f.Mechanism.Name, v.Release != nil, v.Trusted)
			}
			wantCount := map[string]int{synopsis.MechanismGP: 9, synopsis.MechanismTrig: 9, synopsis.MechanismOutputPerturbation: 3}[kind]
			if len(f.Values) != wantCount {
				t.Errorf("%d values, want %d", len(f.Values), wantCount)
			}
			entries := e.ledger.Entries(res.Entry.DatasetHash)
			if len(entries) != 1 || entries[0].Epsilon != req.Privacy.Epsilon || entries[0].Delta != req.Privacy.Delta || entries[0].Noise != kind {
				t.Fatalf("ledger %+v", entries)
			}
			x := []float64{3}
			if kind == synopsis.MechanismOutputPerturbation {
				x = []float64{3, 4}
			}
			val, std, err := v.EvalData(x)
			if err != nil || math.IsNaN(val) || !(std > 0) {
				t.Fatalf("EvalData = %v ± %v, %v", val, std, err)
			}
		})
	}
}

// TestReleasePeerRefusedBeforeSpend: a kind outside its theorem (GP with
// ε > 1 or δ = 0, a pure kind with δ > 0, a kind for the wrong learner) is
// refused before the ledger is touched.
func TestReleasePeerRefusedBeforeSpend(t *testing.T) {
	reqs, gpBigEps, gpPure := refusedPeerRequests(t)
	trigDelta := reqs["gp"]
	for _, c := range []struct {
		name, mech, field string
		req               Request
	}{
		{"gp eps 2", "gp", "epsilon", gpBigEps},
		{"gp delta 0", "gp", "delta", gpPure},
		{"trig delta", "trig", "delta", trigDelta},
		{"op on kde", synopsis.MechanismOutputPerturbation, "mechanism", reqs["trig"]},
		{"trig on logistic", "trig", "mechanism", reqs[synopsis.MechanismOutputPerturbation]},
		{"unknown", "histogram", "mechanism", reqs["trig"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			p, err := Prepare(context.Background(), c.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			opt := e.opt
			opt.Mechanism = c.mech
			_, err = p.Release(context.Background(), opt)
			var re *RequestError
			if !errors.As(err, &re) || re.Field != c.field {
				t.Fatalf("error %v, want a RequestError on %q", err, c.field)
			}
			// The curator window shows the refusal as it is: no
			// command-line flags ("--noise laplace") in it.
			if strings.Contains(err.Error(), "--") {
				t.Errorf("refusal %q names a command-line flag", err)
			}
			if eps, delta := e.ledger.Spent(""); eps != 0 || delta != 0 || len(e.ledger.Entries("")) != 0 {
				t.Fatalf("spent %v, %v before refusing", eps, delta)
			}
		})
	}
}

// TestSecureDrawsScale checks the secure source's calibration: the sample
// standard deviation of 20 000 draws of N(0, 2²) within 5 % of 2 (its own
// std is 0.5 %: > 10 sd, false-failure rate < 10⁻²⁰) and the sample
// variance of 20 000 Laplace(3) draws within 10 % of 18 (sd 0.28: > 6 sd,
// rate < 10⁻⁹); and that the library's σ is never below the one asked.
func TestSecureDrawsScale(t *testing.T) {
	s := &secureDraws{}
	const n = 20000
	var g2, l2 float64
	for range n {
		g := s.Gaussian(2)
		l := s.Laplace(3)
		g2 += g * g
		l2 += l * l
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	if sd := math.Sqrt(g2 / n); math.Abs(sd-2) > 0.1 {
		t.Errorf("Gaussian(2) sample std %v", sd)
	}
	if v := l2 / n; math.Abs(v-18) > 1.8 {
		t.Errorf("Laplace(3) sample variance %v", v)
	}
	for _, sigma := range []float64{1e-3, 1, 7.5, 1e4} {
		s.Gaussian(sigma)
		if got := noiseSigma(s.sigmas[sigma]); got < sigma || got > sigma*(1+1e-6) {
			t.Errorf("σ %v: library σ %v", sigma, got)
		}
	}
	_ = peers.NoiseSource(s)
}

// noiseSigma is the library's σ for a secureDraws lInf.
func noiseSigma(lInf float64) float64 {
	return noise.SigmaForGaussian(1, lInf, gaussEps, gaussDelta)
}
