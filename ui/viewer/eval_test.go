package viewer

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// viewerFakeEval is a deterministic stand-in for a verified synopsis: value =
// Σ_j (j+1)·x_j + offset, noise std = 0.5 + x_0/1000, class "pos" where the
// value ≥ threshold. It refuses points outside bounds like the real
// EvalData does, and counts calls.
type viewerFakeEval struct {
	features  []viewerFeature
	offset    float64
	threshold float64
	calls     atomic.Int64
	failAt    float64 // EvalData fails when x_0 == failAt (if not NaN)
}

func (f *viewerFakeEval) EvalData(x []float64) (float64, float64, error) {
	f.calls.Add(1)
	if len(x) != len(f.features) {
		return 0, 0, fmt.Errorf("fake: %d values for %d features", len(x), len(f.features))
	}
	if x[0] == f.failAt {
		return 0, 0, errors.New("fake failure")
	}
	v := f.offset
	for j, xj := range x {
		b := f.features[j]
		if !(xj >= b.Lo && xj <= b.Hi) {
			return 0, 0, fmt.Errorf("fake: %s = %g outside [%g, %g]", b.Name, xj, b.Lo, b.Hi)
		}
		v += float64(j+1) * xj
	}
	return v, 0.5 + x[0]/1000, nil
}

func (f *viewerFakeEval) Class(v float64) (string, bool) {
	if v >= f.threshold {
		return "pos", true
	}
	return "neg", true
}

func viewerFakeRelease(kind learners.OutputKind, features ...viewerFeature) (*viewerRelease, *viewerFakeEval) {
	ev := &viewerFakeEval{features: features, failAt: math.NaN()}
	if kind == learners.OutputProbability {
		ev.threshold = 0.5
	}
	r := &viewerRelease{Features: features, OutputName: "out", OutputKind: kind, eval: ev, Range: [2]float64{-math.MaxFloat64, math.MaxFloat64}}
	if kind == learners.OutputClassScore || kind == learners.OutputProbability {
		r.ClassLabels = []string{"neg", "pos"}
	}
	return r, ev
}

var (
	viewerFeatAge    = viewerFeature{Name: "age", Unit: "years", Lo: 18, Hi: 90}
	viewerFeatIncome = viewerFeature{Name: "income", Lo: -10, Hi: 10}
)

func TestViewerParseInput(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string // substring; "" means valid
	}{
		{"18", 18, ""},
		{" 90 ", 90, ""},
		{"4.5e1", 45, ""},
		{"", 0, "enter a value for age between 18 and 90"},
		{"abc", 0, `"abc" is not a number`},
		{"1,5", 0, `"1,5" is not a number`},
		{"NaN", 0, "not a finite number"},
		{"-Inf", 0, "not a finite number"},
		{"1e999", 0, "outside the range"},
		{"1_8", 0, "not a plain decimal number"},
		{"0x1p5", 0, "not a plain decimal number"},
		{"17.999", 0, "age = 17.999 is outside the public bounds [18, 90] years"},
		{"90.0001", 0, "outside the public bounds"},
	}
	for _, tc := range tests {
		got, err := viewerParseInput(viewerFeatAge, tc.in)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("viewerParseInput(%q): unexpected error %v", tc.in, err)
		case tc.wantErr == "" && got != tc.want:
			t.Errorf("viewerParseInput(%q) = %g, want %g", tc.in, got, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("viewerParseInput(%q) error = %v, want it to contain %q", tc.in, err, tc.wantErr)
		}
	}
}

func TestViewerEvalPoint(t *testing.T) {
	r, ev := viewerFakeRelease(learners.OutputClassScore, viewerFeatAge, viewerFeatIncome)
	ev.threshold = 50
	res, errs, err := viewerEvalPoint(r, []string{"40", "-2.5"})
	if err != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("viewerEvalPoint: %v %v", err, errs)
	}
	wantV := 40 + 2*-2.5
	if res.Value != wantV || res.NoiseStd != 0.5+0.04 || res.Class != "neg" {
		t.Errorf("got %+v, want value %g std %g class neg", res, wantV, 0.54)
	}
	if math.Abs(res.lo2()-(wantV-1.08)) > 1e-12 || math.Abs(res.hi2()-(wantV+1.08)) > 1e-12 {
		t.Errorf("band [%g, %g], want %g ± 1.08", res.lo2(), res.hi2(), wantV)
	}

	// Invalid inputs: every bad field is reported and nothing is evaluated.
	before := ev.calls.Load()
	_, errs, err = viewerEvalPoint(r, []string{"x", "11"})
	if err == nil || errs[0] == nil || errs[1] == nil {
		t.Fatalf("want both fields rejected, got %v %v", err, errs)
	}
	if ev.calls.Load() != before {
		t.Error("release evaluated despite invalid input")
	}

	// Non-classifiers have no class.
	r2, _ := viewerFakeRelease(learners.OutputDensity, viewerFeatIncome)
	res, _, err = viewerEvalPoint(r2, []string{"1"})
	if err != nil || res.Class != "" {
		t.Errorf("density: got %+v, %v", res, err)
	}
}

func TestViewerThreshold(t *testing.T) {
	for _, tc := range []struct {
		kind       learners.OutputKind
		classifier bool
		threshold  float64
	}{
		{learners.OutputClassScore, true, 0},
		{learners.OutputProbability, true, 0.5},
		{learners.OutputDensity, false, math.NaN()},
		{learners.OutputRegression, false, math.NaN()},
	} {
		r := &viewerRelease{OutputKind: tc.kind}
		th := r.threshold()
		if r.classifier() != tc.classifier || !(th == tc.threshold || math.IsNaN(th) && math.IsNaN(tc.threshold)) {
			t.Errorf("%s: classifier %v threshold %g, want %v %g", tc.kind, r.classifier(), th, tc.classifier, tc.threshold)
		}
	}
}
