package curator

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
)

// loadPublic opens one of the public tables of study's automatic-k table
// (scikit-learn's iris, diabetes and breast cancer data, BSD licence)
// with the settings set applies first, and returns its preview.
func (f *curatorFixture) loadPublic(name string, set func(s *curatorState)) *preview.Result {
	f.t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "study", "testdata", "autok", name))
	if err != nil {
		f.t.Fatal(err)
	}
	f.do(func() {
		s := f.c.state
		s.Noise, s.Delta = mechanism.NoiseLaplace, 0
		set(s)
		f.c.loadDataset(path, false)
	})
	f.waitDataset()
	return f.preview()
}

// setBounds sets a column's public bounds and unit in s.
func setBounds(s *curatorState, col, lo, hi, unit string) {
	b := s.bound(col)
	b.Lo, b.Hi, b.Unit = lo, hi, unit
}

// TestCuratorClassifierPreview (issue 17 item 5): the SVM demo's preview
// plots the agreement with the non-private classifier (a share plot), says
// it and the accuracy on the data (curator only) under the plots, and
// draws the agreement against k with the chosen k marked.
func TestCuratorClassifierPreview(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	res := f.preview()
	if !res.Classifier || !res.Tradeoff.Share || !strings.HasPrefix(res.Tradeoff.Title, "Agreement vs privacy") {
		t.Fatalf("classifier %v, tradeoff %q (share %v): want the agreement plot", res.Classifier, res.Tradeoff.Title, res.Tradeoff.Share)
	}
	var info string
	f.do(func() { info = c.preview.info.Text })
	for _, want := range []string{"Agreement with the non-private classifier at your setting: ", "of 1000 evenly spaced records (mean of 200", "Curator only (never published): accuracy on 1000 evenly spaced records ", " non-private.", " records (public: the synopsis states it)."} {
		if !strings.Contains(info, want) {
			t.Errorf("preview text %q: want %q", info, want)
		}
	}
	if strings.Contains(info, "Curator only (never published): n =") {
		t.Errorf("preview text %q: n is public, not curator only", info)
	}
	f.checkSweep(res, "agreement")
}

// checkSweep checks that the error-vs-k plot is drawn, marks the k in use
// and plots what (its y label's start).
func (f *curatorFixture) checkSweep(res *preview.Result, what string) {
	f.t.Helper()
	var drawn bool
	f.do(func() { drawn = f.c.preview.sweep.img.Image != nil })
	if !drawn || res.Sweep == nil {
		f.t.Fatalf("error-vs-k plot drawn %v (%v)", drawn, res.Sweep != nil)
	}
	if res.Sweep.MarkerEps != float64(res.K[0]) || !strings.HasPrefix(res.Sweep.YLabel, what) {
		f.t.Errorf("error-vs-k plot: marker at k = %v (k in use %v), y label %q; want %q", res.Sweep.MarkerEps, res.K, res.Sweep.YLabel, what)
	}
}

// TestCuratorRegressionPreview (issue 17 items 6 and 8): ridge regression
// of the diabetes target on bmi draws the released curve over the scatter
// of the 442 records (curator only), gives the RMSE of the released vs the
// non-private fit, and states every error in mg/dl with its share of the
// public range.
func TestCuratorRegressionPreview(t *testing.T) {
	f := newCuratorFixture(t)
	res := f.loadPublic("diabetes.csv", func(s *curatorState) {
		s.Features, s.Label, s.Learner = []string{"bmi"}, "target", learners.KindRidge
		setBounds(s, "bmi", "10", "60", "kg/m²")
		setBounds(s, "target", "0", "400", "mg/dl")
		s.Epsilon, s.H, s.KAuto, s.K = 1, 2, false, 8
	})
	if res.Function == nil || len(res.Function.ScatterX) != 442 || !strings.Contains(res.Function.ScatterLabel, "curator only") {
		t.Fatalf("function plot without the records' scatter (%v)", res.Function != nil)
	}
	var info string
	f.do(func() { info = f.c.preview.info.Text })
	for _, want := range []string{"RMSE of the released vs the non-private fit: ", "mg/dl (", "% of the public range"} {
		if !strings.Contains(info, want) {
			t.Errorf("preview text %q: want %q", info, want)
		}
	}
	f.checkSweep(res, "sup-norm error (mg/dl)")
}

// TestCuratorIrisNoBetterThanZero (issue 17 item 8): the 2-D density of
// iris petal length × width (n = 150, bounds [0, 8] × [0, 3] cm, default
// bandwidth 0.05) at ε = 0.5: every k is no better than publishing zero,
// and the warning under the plots says what would help.
func TestCuratorIrisNoBetterThanZero(t *testing.T) {
	f := newCuratorFixture(t)
	res := f.loadPublic("iris.csv", func(s *curatorState) {
		s.Features, s.Label, s.Learner = []string{"petal_length", "petal_width"}, "", learners.KindKDE
		setBounds(s, "petal_length", "0", "8", "cm")
		setBounds(s, "petal_width", "0", "3", "cm")
		s.Epsilon, s.H, s.KAuto = 0.5, 1, true
	})
	var warn string
	f.do(func() { warn = f.c.preview.warn.Text })
	for _, want := range []string{"every k is no better than publishing zero", "a larger bandwidth, a larger ε or fewer features", "per cm²"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warning %q: want %q", warn, want)
		}
	}
	f.checkSweep(res, "sup-norm error (per cm²)")
}
