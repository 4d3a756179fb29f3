package preview

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// publicTable reads one of the public tables of study's automatic-k
// table (scikit-learn's iris, diabetes, breast cancer; BSD licence).
func publicTable(t *testing.T, name string) *dataset.Table {
	t.Helper()
	tab, err := dataset.ReadCSV(filepath.Join("..", "..", "..", "study", "testdata", "autok", name), dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// curveAt returns the y value of the curve labelled label at ε (NaN when
// absent).
func curveAt(res *Result, label string, eps float64) float64 {
	for _, c := range res.Tradeoff.Curves {
		if c.Label == label {
			if i := slices.IndexFunc(res.Tradeoff.Epsilons, func(e float64) bool { return math.Abs(e-eps) < 1e-12 }); i >= 0 {
				return c.Y[i]
			}
		}
	}
	return math.NaN()
}

// TestPreviewClassifierAgreement (issue 17 item 5): a classifier's
// preview plots the agreement of the simulated releases with the
// non-private classifier per ε and h, with the accuracy on the data
// (curator only), from the same simulated releases as the sup-norm error:
// the h = 3 curve at the current ε is the marker's agreement (same seed
// and draws, equal to 1e-12), every share lies in [0, 1], and the
// error-vs-k plot is an agreement plot with the chosen k marked. With the
// published peers compared, the plot is the sup-norm one the peers are
// scored by. Deterministic (fixed seeds).
func TestPreviewClassifierAgreement(t *testing.T) {
	for _, kind := range []learners.Kind{learners.KindSVM, learners.KindLogistic, learners.KindNaiveBayes} {
		t.Run(string(kind), func(t *testing.T) {
			in := twoClassInput(kind, nil)
			in.Peers = false
			e := NewEngine()
			res, err := e.Compute(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Classifier || !res.Tradeoff.Share {
				t.Fatalf("classifier %v, share plot %v: want the agreement plot", res.Classifier, res.Tradeoff.Share)
			}
			for _, v := range []float64{res.Agreement, res.Accuracy, res.NonPrivateAccuracy} {
				if !(v >= 0 && v <= 1) {
					t.Errorf("agreement %v, accuracy %v, non-private accuracy %v: want shares in [0, 1]", res.Agreement, res.Accuracy, res.NonPrivateAccuracy)
				}
			}
			if got := curveAt(res, "agreement, h = 3", 1); math.Abs(got-res.Agreement) > 1e-12 {
				t.Errorf("agreement curve at ε = 1: %v, marker %v; want the same releases", got, res.Agreement)
			}
			if got := curveAt(res, "accuracy of the released classifier, h = 3", 1); math.Abs(got-res.Accuracy) > 1e-12 {
				t.Errorf("accuracy curve at ε = 1: %v, marker %v", got, res.Accuracy)
			}
			if res.Tradeoff.MarkerErr != res.Agreement || !(res.MarkerErr > 0) {
				t.Errorf("marker %v (agreement %v), sup-norm error %v", res.Tradeoff.MarkerErr, res.Agreement, res.MarkerErr)
			}
			if !math.IsNaN(res.RMSE) {
				t.Errorf("RMSE %v for a classifier: want NaN", res.RMSE)
			}
			if res.Sweep == nil || !res.Sweep.Share || res.Sweep.MarkerEps != 4 {
				t.Fatalf("error-vs-k plot %+v: want an agreement plot with k = 4 marked", res.Sweep)
			}
			in.Peers = true
			res, err = e.Compute(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Tradeoff.Share || !strings.HasPrefix(res.Tradeoff.YLabel, "sup-norm error") {
				t.Errorf("with the peers: share %v, y label %q; want the sup-norm plot", res.Tradeoff.Share, res.Tradeoff.YLabel)
			}
		})
	}
}

// diabetesInput is a 1-D regression of the diabetes target on bmi
// (public table, n = 442; bounds 10–60 kg/m² and 0–400).
func diabetesInput(t *testing.T, kind learners.Kind, eps float64) Input {
	return Input{Request: release.Request{
		Dataset: publicTable(t, "diabetes.csv"), Features: []string{"bmi"}, Label: "target",
		Bounds:  map[string]dataset.Bounds{"bmi": {Lo: 10, Hi: 60}, "target": {Lo: 0, Hi: 400}},
		Units:   map[string]string{"bmi": "kg/m²", "target": "mg/dl"},
		Learner: kind,
		Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 2, K: []int{8}},
	}}
}

// TestPreviewRegressionRMSEAndScatter (issue 17 item 6): a regression's
// preview gives the RMSE of the released vs the non-private fit (from the
// same releases as the sup-norm error, so RMSE ≤ sup error), draws it in
// the tradeoff plot, and draws the released curve over the scatter of the
// records (curator only) in data units: every record, its bmi within the
// bounds and its target in [0, 400].
func TestPreviewRegressionRMSEAndScatter(t *testing.T) {
	for _, kind := range []learners.Kind{learners.KindRidge, learners.KindPriestleyChao} {
		t.Run(string(kind), func(t *testing.T) {
			res, err := NewEngine().Compute(context.Background(), diabetesInput(t, kind, 1), nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Classifier || !(res.RMSE > 0) || res.RMSE > res.MarkerErr {
				t.Errorf("classifier %v, RMSE %v, sup error %v: want 0 < RMSE ≤ sup error", res.Classifier, res.RMSE, res.MarkerErr)
			}
			if got := curveAt(res, "RMSE of the released vs the non-private fit, h = 2", 1); math.Abs(got-res.Units.Plot(res.RMSE)) > 1e-9*got {
				t.Errorf("RMSE curve at ε = 1: %v, want %v (mg/dl)", got, res.Units.Plot(res.RMSE))
			}
			f := res.Function
			if f == nil || len(f.ScatterX) != 442 || len(f.ScatterY) != 442 || !strings.Contains(f.ScatterLabel, "curator only") {
				t.Fatalf("function plot: scatter of %d records, label %q; want all 442, marked curator only", len(f.ScatterX), f.ScatterLabel)
			}
			for i := range f.ScatterX {
				if f.ScatterX[i] < 10 || f.ScatterX[i] > 60 || f.ScatterY[i] < -1e-9 || f.ScatterY[i] > 400+1e-9 {
					t.Fatalf("record %d at (%v, %v): want data units within the bounds", i, f.ScatterX[i], f.ScatterY[i])
				}
			}
			if res.UnitName != "mg/dl" || !strings.Contains(res.ErrorText(res.RMSE), "mg/dl (") {
				t.Errorf("unit %q, error text %q: want mg/dl", res.UnitName, res.ErrorText(res.RMSE))
			}
		})
	}
}

// TestPreviewErrorsInPlotUnits (issue 17 item 8): the errors are in the
// function plot's units — a density of bmi over 10–60 kg/m² is 1/50 of
// the mapped density — and the text gives the share of the public range;
// the tradeoff curve at the current ε is the marker's error in those
// units. The units are part of the fit key: renaming one renames the
// errors' unit (the fit cache used to ignore the units).
func TestPreviewErrorsInPlotUnits(t *testing.T) {
	in := diabetesInput(t, learners.KindKDE, 1)
	in.Request.Label = ""
	delete(in.Request.Bounds, "target")
	e := NewEngine()
	res, err := e.Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Units.Scale-1.0/50) > 1e-15 || res.UnitName != "per kg/m²" {
		t.Fatalf("scale %v, unit %q: want 1/50 per kg/m²", res.Units.Scale, res.UnitName)
	}
	if got, want := curveAt(res, "Bernstein, h = 2", 1), res.MarkerErr/50; math.Abs(got-want) > 1e-12*want {
		t.Errorf("tradeoff at ε = 1: %v, want the marker's error in plot units %v", got, want)
	}
	if !strings.Contains(res.Tradeoff.YLabel, "per kg/m²") || !strings.Contains(res.Sweep.YLabel, "per kg/m²") {
		t.Errorf("y labels %q, %q: want per kg/m²", res.Tradeoff.YLabel, res.Sweep.YLabel)
	}
	txt := res.ErrorText(res.MarkerErr)
	if !strings.Contains(txt, "per kg/m² (") || !strings.Contains(txt, "% of the public range 0 to ") {
		t.Errorf("error text %q: want plot units and the share of the public range", txt)
	}
	in.Request.Units = map[string]string{"bmi": "kg m⁻²"}
	res, err = e.Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.UnitName != "per kg m⁻²" || res.Function.XLabel != "bmi (kg m⁻²)" {
		t.Errorf("after renaming the unit: unit %q, x label %q", res.UnitName, res.Function.XLabel)
	}
}

// irisInput is the 2-D kernel density of iris petal length × width
// (n = 150, bounds [0, 8] × [0, 3] cm, default bandwidth 0.05) with the
// automatic k.
func irisInput(t *testing.T, eps float64) Input {
	return Input{Request: release.Request{
		Dataset: publicTable(t, "iris.csv"), Features: []string{"petal_length", "petal_width"},
		Bounds:  map[string]dataset.Bounds{"petal_length": {Lo: 0, Hi: 8}, "petal_width": {Lo: 0, Hi: 3}},
		Learner: learners.KindKDE, KAuto: true,
		Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1, K: []int{1}},
	}}
}

// TestPreviewIrisNoBetterThanZero (issue 17 item 8): for the iris petal
// density at ε ≤ 1 every k of the error-vs-k curve is no better than
// publishing zero, and the curator is told so with what would help (a
// larger bandwidth, a larger ε, fewer features); with bandwidth 0.2 at
// ε = 3 it is not. Deterministic (fixed seeds).
func TestPreviewIrisNoBetterThanZero(t *testing.T) {
	for _, tc := range []struct {
		eps, bandwidth float64
		want           bool
	}{{0.5, 0.05, true}, {1, 0.05, true}, {3, 0.2, false}} {
		in := irisInput(t, tc.eps)
		in.Request.Params = learners.Values{"bandwidth": {tc.bandwidth}}
		res, err := NewEngine().Compute(context.Background(), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(res.Warnings, func(w string) bool {
			return strings.Contains(w, "every k is no better than publishing zero") &&
				strings.Contains(w, "a larger bandwidth, a larger ε or fewer features")
		})
		if res.NoBetterThanZero != tc.want || warned != tc.want {
			t.Errorf("ε = %g, bandwidth %g: no better than zero %v, warned %v (%q); want %v", tc.eps, tc.bandwidth, res.NoBetterThanZero, warned, res.Warnings, tc.want)
		}
	}
}

// TestUnitName: the unit of the function plot's values, which every error
// figure of the preview is given in.
func TestUnitName(t *testing.T) {
	b := func(name, unit string) synopsis.Bound { return synopsis.Bound{Name: name, Lo: 0, Hi: 1, Unit: unit} }
	label := b("target", "mg/dl")
	for _, tc := range []struct {
		kind     learners.OutputKind
		features []synopsis.Bound
		label    *synopsis.Bound
		want     string
	}{
		{learners.OutputDensity, []synopsis.Bound{b("bmi", "kg/m²")}, nil, "per kg/m²"},
		{learners.OutputDensity, []synopsis.Bound{b("x", "")}, nil, "per unit of x"},
		{learners.OutputDensity, []synopsis.Bound{b("a", "cm"), b("b", "cm")}, nil, "per cm²"},
		{learners.OutputDensity, []synopsis.Bound{b("a", "cm"), b("b", "cm"), b("c", "cm")}, nil, "per cm³"},
		{learners.OutputDensity, []synopsis.Bound{b("a", "kg"), b("b", "cm")}, nil, "per kg·cm"},
		{learners.OutputDensity, []synopsis.Bound{b("a", "kg"), b("b", "")}, nil, "per unit area"},
		{learners.OutputDensity, []synopsis.Bound{b("a", ""), b("b", ""), b("c", "")}, nil, "per unit volume"},
		{learners.OutputRegression, []synopsis.Bound{b("bmi", "kg/m²")}, &label, "mg/dl"},
		{learners.OutputRegression, []synopsis.Bound{b("bmi", "")}, &synopsis.Bound{Name: "y"}, "units of y"},
		{learners.OutputClassScore, []synopsis.Bound{b("a", "cm")}, nil, ""},
		{learners.OutputProbability, []synopsis.Bound{b("a", "cm")}, nil, ""},
	} {
		p := &release.Prepared{Domain: synopsis.DomainInfo{Features: tc.features, Label: tc.label}}
		p.Spec.Output.Kind = tc.kind
		if got := unitName(p); got != tc.want {
			t.Errorf("%s over %v: %q, want %q", tc.kind, tc.features, got, tc.want)
		}
	}
}

// TestPreviewNoiseAsReleased: the preview simulates the noise the release
// adds. For logistic regression's linear score the release calibrates its
// noise to the lattice bound L(k) < S (Fitted.NoiseSensitivity,
// docs/sensitivity.md); the preview used S, showing noise √2–√3 too large
// (found by the helper that added L(k)). The scale and the sensitivity the
// simulations use are now the release's, for Laplace and Gaussian noise;
// the SVM's kernel score has lattice bounds too (learners/svm_lattice.go);
// laplace-approx keeps S.
func TestPreviewNoiseAsReleased(t *testing.T) {
	for _, c := range []struct {
		kind  learners.Kind
		noise mechanism.NoiseKind
		delta float64
		less  bool // the release's noise sensitivity is below S
	}{
		{learners.KindLogistic, mechanism.NoiseLaplace, 0, true},
		{learners.KindLogistic, mechanism.NoiseGaussian, 1e-6, true},
		{learners.KindSVM, mechanism.NoiseLaplace, 0, true},
		{learners.KindSVM, mechanism.NoiseGaussian, 1e-6, true},
		{learners.KindSVM, mechanism.NoiseLaplaceApprox, 1e-6, false},
	} {
		t.Run(string(c.kind)+"/"+string(c.noise), func(t *testing.T) {
			in := twoClassInput(c.kind, nil)
			in.Peers = false
			in.Request.Privacy.Noise, in.Request.Privacy.Delta = c.noise, c.delta
			res, err := NewEngine().Compute(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			prep, err := release.Prepare(context.Background(), in.Request, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := in.Request.Privacy
			p.K = res.K
			want := prep.Fitted.NoiseSensitivity(res.K, c.noise)
			scale, err := mechanism.NoiseScale(want, p)
			if err != nil {
				t.Fatal(err)
			}
			if res.NoiseSensitivity != want || math.Abs(res.Scale-scale) > 1e-12*scale {
				t.Errorf("noise sensitivity %v, scale %v; the release's: %v, %v", res.NoiseSensitivity, res.Scale, want, scale)
			}
			if got := res.NoiseSensitivity < res.Sensitivity; got != c.less {
				t.Errorf("noise sensitivity %v < S %v: %v, want %v", res.NoiseSensitivity, res.Sensitivity, got, c.less)
			}
		})
	}
}

// TestPreviewClassifierColoursPublicRange: a two-feature classifier's
// heat maps colour F_D and the release on the learner's public output
// range (learners.Fitted.OutputRange in plot units), not on F_D's own
// range, so the same colour means the same score at any setting.
func TestPreviewClassifierColoursPublicRange(t *testing.T) {
	for _, kind := range []learners.Kind{learners.KindSVM, learners.KindLogistic} {
		t.Run(string(kind), func(t *testing.T) {
			in := twoClassInput(kind, nil)
			in.Peers = false
			res, err := NewEngine().Compute(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			h := res.Heatmaps
			if h == nil || !h.Diverging {
				t.Fatalf("heat maps %+v: want a classifier's diverging maps", h)
			}
			lo, hi := res.Units.Plot(res.Units.Range[0]), res.Units.Plot(res.Units.Range[1])
			if h.Min != min(lo, hi) || h.Max != max(lo, hi) {
				t.Errorf("colour scale [%g, %g], want the public output range [%g, %g]", h.Min, h.Max, min(lo, hi), max(lo, hi))
			}
			tlo, thi := slices.Min(h.Maps[0].Values), slices.Max(h.Maps[0].Values)
			if tlo == h.Min && thi == h.Max {
				t.Errorf("F_D spans [%g, %g], the whole public range: the test cannot tell the scales apart", tlo, thi)
			}
		})
	}
}
