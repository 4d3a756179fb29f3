package preview

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/study"
)

// legendLines is the tradeoff legend as text, headings prefixed by "# ".
func legendLines(res *Result) []string {
	var out []string
	for _, e := range res.Tradeoff.Legend() {
		out = append(out, e.String())
	}
	return out
}

// TestPreviewLikeWithLike: with the peers on for the ℓ = 1 KDE at pure ε
// (curator k = 20, h = 2), the overlay gains the Bernstein Gaussian and
// Laplace-approx curves at the GP's δ = 1e-6 with the curator's k and h,
// and the legend groups every curve by guarantee: the curator's curves,
// bounds and the pure peers under "pure ε-DP", the Bernstein (ε, δ) curves
// then the GP under "(ε, δ = 1e-06)-DP". The Gaussian curve equals the
// curves of a curator who chose the Gaussian at δ = 1e-6 (same engine, seed
// and ε grid); with the peers off nothing is added and nothing is grouped.
func TestPreviewLikeWithLike(t *testing.T) {
	e := NewEngine()
	res, err := e.Compute(context.Background(), kde1DInput(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"# pure ε-DP",
		"Bernstein, h = 1", "Bernstein, h = 2", "Bernstein, h = 3", "Bernstein, h = 4", "Bernstein, h = 5",
		"nearest lattice point (baseline)", "95% bound (h = 2)", "lower bound S/ε (up to constants)",
		res.Peers[0].Label, res.Peers[1].Label,
		"# (ε, δ = 1e-06)-DP",
		"Bernstein Gaussian, h = 2, k = 20", "Bernstein Laplace-approx, h = 2, k = 20",
		res.Peers[2].Label,
	}
	if got := legendLines(res); !reflect.DeepEqual(got, want) {
		t.Fatalf("legend:\n got %q\nwant %q", got, want)
	}
	if res.Peers[2].Delta != study.PeerDelta(0) || res.Peers[0].Delta != 0 {
		t.Fatalf("peer δ: %v %v, want 0 for the trig peer and %g for the GP", res.Peers[0].Delta, res.Peers[2].Delta, study.PeerDelta(0))
	}
	var gauss []float64
	for _, c := range res.Tradeoff.Curves {
		if c.Label == want[12] {
			gauss = c.Y
		}
	}
	in := kde1DInput(1)
	in.Peers = false
	in.Request.Privacy.Noise, in.Request.Privacy.Delta = mechanism.NoiseGaussian, 1e-6
	g, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gauss, g.Tradeoff.Curves[1].Y) || g.Tradeoff.Curves[1].Label != "Bernstein, h = 2" {
		t.Errorf("overlay Gaussian curve %v, want the Gaussian curator's h = 2 curve %v", gauss, g.Tradeoff.Curves[1].Y)
	}
	for _, c := range g.Tradeoff.Curves {
		if c.Group != "" || strings.Contains(c.Label, "Gaussian") {
			t.Errorf("peers off: curve %q in group %q", c.Label, c.Group)
		}
	}
}

// TestPreviewLikeWithLikeAutoK: with the automatic k, each Bernstein
// (ε, δ) curve has the k a release with that noise and δ would get at the
// curator's ε (mechanism.ResolveK, the release's rule), named in its label;
// a curator already at the Gaussian with the GP's δ (k = 20) gets no second
// Gaussian curve, and the curator's curves join the (ε, δ) group.
func TestPreviewLikeWithLikeAutoK(t *testing.T) {
	in := kde1DInput(0.1) // a small ε keeps the automatic k (and the test) small
	in.Request.KAuto = true
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := res.Sensitivity
	for _, kind := range approxDPKinds {
		q := in.Request.Privacy
		q.Noise, q.Delta = kind, 1e-6
		r, err := mechanism.ResolveK(q, 1, true, 0, fit, standInOf(t, in))
		if err != nil {
			t.Fatal(err)
		}
		label := approxDPLabel(kind, q.H, r.K)
		found := false
		for _, c := range res.Tradeoff.Curves {
			if c.Label == label {
				found = true
				if c.Group != "(ε, δ = 1e-06)-DP" {
					t.Errorf("%s in group %q", label, c.Group)
				}
				if n := countFinite(c.Y); n < 4 {
					t.Errorf("%s: %d finite points of %d", label, n, len(c.Y))
				}
			}
		}
		if !found {
			t.Errorf("no curve %q in %q", label, legendLines(res))
		}
	}

	in.Request.KAuto = false // the automatic-k curve of a Gaussian curator is slow and beside the point here
	in.Request.Privacy.Noise, in.Request.Privacy.Delta = mechanism.NoiseGaussian, 1e-6
	res, err = NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := legendLines(res)
	if lines[0] != "# (ε, δ = 1e-06)-DP" || strings.Count(strings.Join(lines, "\n"), "# ") != 2 {
		t.Fatalf("Gaussian curator: legend %q, want the curator's group first and a pure-ε group for the pure peers", lines)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "Bernstein Gaussian") {
			t.Errorf("Gaussian curator at the GP's δ got a second Gaussian curve %q", l)
		}
	}
}

func countFinite(ys []float64) int {
	n := 0
	for _, y := range ys {
		if !math.IsNaN(y) && !math.IsInf(y, 0) {
			n++
		}
	}
	return n
}

// standInOf is the public stand-in of in's fit (release.Prepare), the
// input of the automatic k.
func standInOf(t *testing.T, in Input) mechanism.StandIn {
	t.Helper()
	p, err := release.Prepare(context.Background(), in.Request, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Fitted.StandIn
}
