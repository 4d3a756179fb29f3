package preview

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

var updatePreviewGolden = flag.Bool("preview.update", false, "rewrite testdata/preview_numbers.golden (only when a change of the preview's numbers is intended)")

// TestPreviewNumbersGolden pins every number the preview computes — the
// tradeoff curves (Bernstein orders, baseline, 95% bound, lower bound,
// peers), the marker, the noise scale and the noiseless approximation error
// — for four settings covering ℓ = 1 and 2, the three noise kinds and all
// four peers, at full float64 precision (strconv 'g', −1). The golden file
// was written by the code before the simulation engine moved to study/;
// the preview's numbers must stay equal, bit for bit. Deterministic (fixed
// seeds): it cannot fail by chance.
func TestPreviewNumbersGolden(t *testing.T) {
	gauss := kde1DInput(0.7)
	gauss.Request.Privacy.Noise, gauss.Request.Privacy.Delta, gauss.Request.Privacy.H = mechanism.NoiseGaussian, 1e-6, 3
	approx := twoClassKDE(3)
	approx.Request.Privacy.Noise, approx.Request.Privacy.Delta = mechanism.NoiseLaplaceApprox, 1e-6
	approx.Peers = true
	auto := kde1DInput(2)
	auto.Peers = false
	auto.Request.KAuto = true
	svm := twoClassInput(learners.KindSVM, nil)
	svm.Request.Privacy.Noise, svm.Request.Privacy.Delta = mechanism.NoiseGaussian, 1e-5
	cases := []struct {
		name string
		in   Input
	}{
		{"kde1d-laplace-peers", kde1DInput(1)},
		{"kde1d-gaussian-peers", gauss},
		{"kde1d-auto-k", auto},
		{"kde2d-laplace-approx-peers", approx},
		{"logistic-peers", twoClassInput(learners.KindLogistic, learners.Values{"C": {1}})},
		{"svm-gaussian-peers", svm},
	}
	// The golden file pins the engine's numbers for the parameter values it
	// was written with: the static defaults of that time (KDE bandwidth
	// 0.05, SVM σ = 1), given explicitly since a request without them now
	// gets the data-independent defaults (learners.Spec.PublicDefaults).
	for i := range cases {
		r := &cases[i].in.Request
		switch {
		case r.Learner == learners.KindKDE && r.Params == nil:
			r.Params = learners.Values{"bandwidth": {0.05}}
		case r.Learner == learners.KindSVM && r.Params == nil:
			r.Params = learners.Values{"sigma": {1}}
		}
	}
	var b strings.Builder
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, tc := range cases {
		res, err := NewEngine().Compute(context.Background(), tc.in, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fmt.Fprintf(&b, "== %s\nk %v h %d eps %s noise %s scale %s sens %s marker %s approx %s pureBetter %v\n",
			tc.name, res.K, res.H, g(res.Epsilon), res.Noise, g(res.Scale), g(res.Sensitivity), g(res.MarkerErr), g(res.Approx), res.PureBetter)
		fmt.Fprintf(&b, "title %s\n", res.Tradeoff.Title)
		var eps []string
		for _, e := range res.Tradeoff.Epsilons {
			eps = append(eps, g(e))
		}
		fmt.Fprintf(&b, "epsilons %s\n", strings.Join(eps, " "))
		for _, c := range res.Tradeoff.Curves {
			var ys []string
			for _, y := range c.Y {
				ys = append(ys, g(y))
			}
			fmt.Fprintf(&b, "%s | %d %v %s | %s\n", c.Label, c.Colour, c.Dashed, g(c.Width), strings.Join(ys, " "))
		}
		fmt.Fprintf(&b, "caption %q warnings %q\n", res.PeerCaption, res.Warnings)
	}
	path := filepath.Join("testdata", "preview_numbers.golden")
	if *updatePreviewGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var a, w string
			if i < len(gl) {
				a = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if a != w {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, a, w)
			}
		}
	}
}
