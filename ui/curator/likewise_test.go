package curator

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestCuratorPeersLikeWithLike drives the real preview (headless): on the
// bundled KDE demo at the default pure-ε noise, ticking "Compare with
// published peers" adds the Bernstein Gaussian and Laplace-approx curves at
// the GP's δ, and the tradeoff legend groups the curves by guarantee: the
// pure ε-DP group (the curator's curves and the pure peers) first, then the
// (ε, δ = 1e-06)-DP group with the two Bernstein (ε, δ) curves before the
// GP. Unticking removes them again.
func TestCuratorPeersLikeWithLike(t *testing.T) {
	f := kdeDemoWithPeers(t)
	c := f.c
	res := f.preview()
	var lines []string
	for _, e := range res.Tradeoff.Legend() {
		lines = append(lines, e.String())
	}
	pure, approx := slices.Index(lines, "# pure ε-DP"), slices.Index(lines, "# (ε, δ = 1e-06)-DP")
	if pure != 0 || approx < 0 {
		t.Fatalf("legend %q: want the pure ε-DP group first, then the (ε, δ = 1e-06)-DP group", lines)
	}
	var group []string
	for _, l := range lines[approx+1:] {
		group = append(group, l[:min(len(l), strings.IndexAny(l+",(", ",("))])
	}
	want := []string{"Bernstein Gaussian", "Bernstein Laplace-approx", "Hall et al. GP "}
	if !slices.Equal(group, want) {
		t.Fatalf("(ε, δ) group %q (legend %q), want %q", group, lines, want)
	}
	f.do(func() { test.Tap(c.preview.peersCheck) })
	res = f.preview()
	for _, cv := range res.Tradeoff.Curves {
		if cv.Group != "" || strings.HasPrefix(cv.Label, "Bernstein Gaussian") {
			t.Errorf("after unticking: curve %q (group %q)", cv.Label, cv.Group)
		}
	}
}
