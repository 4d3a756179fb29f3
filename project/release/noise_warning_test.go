package release

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestNoiseWarning is the walkthrough's reproduction: a Priestley–Chao
// release at ε = 0.3 had noise far beyond its label's range and the
// command line said nothing. The warning depends on public quantities
// only: the same settings on different records give the same text.
func TestNoiseWarning(t *testing.T) {
	prepare := func(eps float64, seed int) *Prepared {
		var b strings.Builder
		b.WriteString("x,y\n")
		for i := range 200 {
			x := float64((i*7+seed)%100) / 100
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64) + "," + strconv.FormatFloat(100*x*x+float64(seed%3), 'g', -1, 64) + "\n")
		}
		ds, err := dataset.ParseCSV(strings.NewReader(b.String()), "w.csv", dataset.CSVOptions{KeepInvalid: true})
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Dataset: ds, Features: []string{"x"}, Label: "y", Learner: learners.KindPriestleyChao,
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 1}, "y": {Lo: 0, Hi: 400}},
			Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1, K: []int{4}}}
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	w := prepare(0.3, 1).NoiseWarning()
	if !strings.Contains(w, "will likely show little or nothing of the data") || !strings.Contains(w, "a larger bandwidth, a larger ε or a smaller k") {
		t.Errorf("ε = 0.3: warning %q", w)
	}
	if other := prepare(0.3, 2).NoiseWarning(); other != w {
		t.Errorf("the warning depends on the records:\n%s\n%s", w, other)
	}
	if w := prepare(1e4, 1).NoiseWarning(); w != "" {
		t.Errorf("ε = 10⁴: warning %q", w)
	}
}

// TestWhatWouldHelp pins the one wording of the advice both noise warnings
// give: the learner's own smoothing parameter by name (σ for the SVM, not
// "bandwidth"), a smaller k only when asked, fewer features only for more
// than one feature.
func TestWhatWouldHelp(t *testing.T) {
	for _, c := range []struct {
		kind     learners.Kind
		dims     int
		smallerK bool
		want     string
	}{
		{learners.KindKDE, 2, false, "a larger bandwidth, a larger ε or fewer features"},
		{learners.KindKDE, 1, true, "a larger bandwidth, a larger ε or a smaller k"},
		{learners.KindSVM, 2, false, "a larger sigma, a larger ε or fewer features"},
		{learners.KindRidge, 1, false, "a larger ε"},
		{learners.KindLogistic, 3, true, "a larger ε, a smaller k or fewer features"},
	} {
		l, err := learners.Lookup(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := WhatWouldHelp(l.Spec(), c.dims, c.smallerK); got != c.want {
			t.Errorf("%s dims=%d smallerK=%v: %q, want %q", c.kind, c.dims, c.smallerK, got, c.want)
		}
	}
}
