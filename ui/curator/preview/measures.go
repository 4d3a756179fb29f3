package preview

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/study"
)

// What the preview measures depends on what the learner releases (issue
// 17 items 5, 6, 8):
//   - a classifier (naive Bayes, SVM, logistic) is judged by its
//     agreement with the non-private classifier on the records and by its
//     accuracy on them (curator only), from the same simulated releases as
//     the sup-norm error;
//   - a regression (ridge, Priestley–Chao) by its sup-norm error and the
//     RMSE of the released vs the non-private fit, its curve drawn over the
//     scatter of the data (curator only);
//   - a density by its sup-norm error.
// Every error is shown in the units of the function plot beside it and as
// a share of the function's public range; an error-vs-k curve at the
// chosen ε shows what another k would give, and when no k does better than
// publishing zero the curator is told what would help.

// measureKind is what a preview measures.
type measureKind int

const (
	measureDensity measureKind = iota
	measureRegression
	measureClassifier
)

// previewMaxPoints caps the records the agreement and accuracy are scored
// on (each costs about the lattice size per simulated release and order;
// a share over 1,000 records has a standard error of at most 0.016), and
// previewMaxScatter the records drawn under a regression; both are evenly
// spaced by row number (study.Thin).
const (
	previewMaxPoints  = 1000
	previewMaxScatter = 2000
)

// sweepRepeats is the simulated releases per k of the error-vs-k curve
// (each k needs its own lattice and model, so fewer than the tradeoff's).
func sweepRepeats(dim int) int { return max(Repeats(dim)/4, 25) }

// sweepCoefficients is the largest lattice of the error-vs-k curve's
// candidates (the chosen k is always added).
func sweepCoefficients(dim int) int {
	if dim == 1 {
		return 129 // k ≤ 128
	}
	return 1 << 12
}

// measuresOf returns what the preview measures for prep, the class
// threshold (classifiers) and the extra measures of the simulations.
func measuresOf(prep *release.Prepared) (measureKind, float64, []study.Measure) {
	switch prep.Spec.Output.Kind {
	case learners.OutputClassScore:
		return measureClassifier, 0, []study.Measure{study.PointAgreement, study.PointAccuracy}
	case learners.OutputProbability:
		return measureClassifier, 0.5, []study.Measure{study.PointAgreement, study.PointAccuracy}
	case learners.OutputRegression:
		return measureRegression, 0, []study.Measure{study.RMSError}
	}
	return measureDensity, 0, nil
}

// pointData returns the records (at most previewMaxPoints) with F_D at
// each, cached per fit. Curator only.
func (e *Engine) pointData(ctx context.Context, st *previewState) (*study.PointData, error) {
	return cached(&e.mu, func() (*study.PointData, bool) { return e.points, e.points != nil },
		func() (*study.PointData, error) {
			d := st.prep.LearnerData()
			x, labels := study.Thin(d.X, d.Dim, d.Labels, previewMaxPoints)
			truth, err := study.EvalPoints(ctx, st.prep.Fitted.Oracle, x, d.Dim)
			if err != nil {
				return nil, err
			}
			return &study.PointData{X: x, Truth: truth, Labels: labels}, nil
		},
		func(v *study.PointData) { e.points = v })
}

// prepareMeasures sets st's measures and, for a classifier, binds the
// records to st's model (cached per k).
func (e *Engine) prepareMeasures(ctx context.Context, st *previewState) error {
	st.kind, st.threshold, st.also = measuresOf(st.prep)
	st.units = study.Units{Scale: outputAffine(st.prep).scale, Range: st.prep.Fitted.OutputRange}
	if st.kind != measureClassifier {
		return nil
	}
	var err error
	if st.pts, err = e.pointData(ctx, st); err != nil {
		return err
	}
	st.points, err = cached(&e.mu,
		func() (*study.Points, bool) {
			v := e.modelPoints[st.kk]
			return v, v != nil && e.models[st.kk] == st.model
		},
		func() (*study.Points, error) { return st.model.AtPoints(*st.pts) },
		func(v *study.Points) { e.modelPoints[st.kk] = v })
	return err
}

// spec is the study spec of st's simulations at the given ε and orders.
func (st *previewState) spec(eps []float64, orders []int, baseline bool) study.Spec {
	p := st.params
	return study.Spec{Sensitivity: st.sens, Noise: p.Noise, Delta: p.Delta,
		Epsilons: eps, Orders: orders, Baseline: baseline, Repeats: st.repeats, Draws: study.PerRepeat{Seed: previewSeed},
		Also: st.also, Threshold: st.threshold, Points: st.points}
}

// alsoIndex returns the index of m in st.also, or −1.
func (st *previewState) alsoIndex(m study.Measure) int { return slices.Index(st.also, m) }

// markerMeasures fills res's agreement, accuracy and RMSE at the current
// setting from st.marker (the same releases as MarkerErr).
func (st *previewState) markerMeasures(res *Result) {
	res.Classifier = st.kind == measureClassifier
	res.Units, res.UnitName, res.RangeText = st.units, unitName(st.prep), rangeText(st.prep, st.units)
	res.ZeroErr = study.ZeroError(st.truth)
	res.Agreement, res.Accuracy, res.NonPrivateAccuracy, res.RMSE = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	at := func(m study.Measure) float64 {
		if a := st.alsoIndex(m); a >= 0 {
			return st.marker.Also[a][0][0]
		}
		return math.NaN()
	}
	res.Agreement, res.Accuracy, res.RMSE = at(study.PointAgreement), at(study.PointAccuracy), at(study.RMSError)
	if st.points != nil {
		res.NonPrivateAccuracy = st.points.NonPrivateAccuracy(st.threshold)
		res.Records = len(st.pts.Truth)
	}
}

// unitName names the units of the function plot's values: for a density
// "per kg/m²", "per cm²" (one unit on every axis), "per kg·cm", or "per
// unit of x" / "per unit area" / "per unit volume" without units; for a
// regression the label's unit (or "units of <label>"); "" for scores and
// probabilities (no unit).
func unitName(p *release.Prepared) string {
	switch p.Spec.Output.Kind {
	case learners.OutputDensity:
		fs := p.Domain.Features
		units := make([]string, len(fs))
		for j, b := range fs {
			units[j] = b.Unit
		}
		switch {
		case slices.Contains(units, "") && len(fs) == 1:
			return "per unit of " + fs[0].Name
		case slices.Contains(units, "") && len(fs) == 2:
			return "per unit area"
		case slices.Contains(units, ""):
			return "per unit volume"
		case len(slices.Compact(slices.Clone(units))) == 1 && len(fs) > 1:
			return "per " + units[0] + superscript(len(fs))
		}
		return "per " + strings.Join(units, "·")
	case learners.OutputRegression:
		if l := p.Domain.Label; l != nil {
			if l.Unit != "" {
				return l.Unit
			}
			return "units of " + l.Name
		}
	}
	return ""
}

// superscript writes n ≥ 0 in superscript digits.
func superscript(n int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, c := range strconv.Itoa(n) {
		b.WriteString(string([]rune(digits)[c-'0']))
	}
	return b.String()
}

// rangeText writes the function's public range in plot units, e.g. "0 to
// 0.0796 per kg/m²".
func rangeText(p *release.Prepared, u study.Units) string {
	aff := outputAffine(p)
	lo, hi := aff.offset+aff.scale*u.Range[0], aff.offset+aff.scale*u.Range[1]
	if lo > hi {
		lo, hi = hi, lo
	}
	return strings.TrimSpace(fmt.Sprintf("%.3g to %.3g %s", lo, hi, unitName(p)))
}

// ErrorText writes an error (learner units) in the plot's units and as a
// share of the public range: "0.0662 per kg/m² (83% of the public range
// 0 to 0.0796)" — the range's unit, the value's, is written once.
func (r *Result) ErrorText(err float64) string {
	v := strings.TrimSpace(fmt.Sprintf("%.3g %s", r.Units.Plot(err), r.UnitName))
	if s := r.Units.Share(err); !math.IsNaN(s) {
		v += fmt.Sprintf(" (%s of the public range %s)", percent(s), strings.TrimSuffix(r.RangeText, " "+r.UnitName))
	}
	return v
}

// Error95Value writes an error at 95% as a bare number in the units of
// Error95Text (a classifier's share of the records as a percentage), for
// a second value beside one Error95Text wrote.
func (r *Result) Error95Value(v float64) string {
	if r.Classifier {
		return percent(v)
	}
	return fmt.Sprintf("%.3g", r.Units.Plot(v))
}

// Error95Text writes an error at 95 % (Result.Error95's measure): a
// classifier's disagreement as a share of the records, else as ErrorText.
func (r *Result) Error95Text(v float64) string {
	if r.Classifier {
		return percent(v) + " of the records"
	}
	return r.ErrorText(v)
}

// percent writes a share as a percentage: whole percent from 10 %, two
// significant digits below.
func percent(s float64) string {
	if math.Abs(s) >= 0.1 {
		return fmt.Sprintf("%.0f%%", 100*s)
	}
	return fmt.Sprintf("%.2g%%", 100*s)
}

// scaleCurves converts curves from learner units to the plot's units (new
// Y slices: the caller's may be cached).
func scaleCurves(curves []plotting.Curve, u study.Units) {
	f := u.Plot(1)
	for i := range curves {
		y := make([]float64, len(curves[i].Y))
		for j, v := range curves[i].Y {
			y[j] = v * f
		}
		curves[i].Y = y
	}
}

// errorLabel is the y label of an error plot: "sup-norm error (per
// kg/m²)".
func errorLabel(what, unit string) string {
	if unit == "" {
		return what
	}
	return what + " (" + unit + ")"
}

// classifierPlot is the tradeoff figure of a classifier: the agreement of
// simulated released classifiers with the non-private one per ε and h, the
// accuracy on the data at the current h (curator only) and the non-private
// accuracy, on a 0–1 axis.
func classifierPlot(st *previewState, res *Result) *plotting.Tradeoff {
	c, p := st.curves, st.params
	agree, acc := st.alsoIndex(study.PointAgreement), st.alsoIndex(study.PointAccuracy)
	t := &plotting.Tradeoff{
		Title:    fmt.Sprintf("Agreement vs privacy: k = %s, mean of %d simulated releases", KLabel(p.K), st.repeats),
		Epsilons: c.Epsilons, Share: true, MarkerEps: p.Epsilon, MarkerErr: res.Agreement,
		MarkerLabel: fmt.Sprintf("your setting (ε = %s, h = %d)", fmtEps(p.Epsilon), p.H),
		YLabel:      "share of the records (curator only)",
	}
	for o, h := range c.Orders {
		w := 1.5
		if h == p.H {
			w = 2.5
		}
		t.Curves = append(t.Curves, plotting.Curve{Label: fmt.Sprintf("agreement, h = %d", h), Y: c.Also[agree][o], Colour: o, Width: w})
	}
	t.Curves = append(t.Curves, plotting.Curve{Label: "agreement, nearest lattice point (baseline)", Y: c.AlsoBaseline[agree], Colour: 5, Dashed: true, Width: 1.8})
	if o := slices.Index(c.Orders, p.H); o >= 0 {
		// Its own colour: the current order's dashed curve is the
		// automatic-k agreement.
		t.Curves = append(t.Curves, plotting.Curve{Label: fmt.Sprintf("accuracy of the released classifier, h = %d", p.H), Y: c.Also[acc][o], Colour: 6, Dashed: true, Width: 1.5})
	}
	np := slices.Repeat([]float64{res.NonPrivateAccuracy}, len(c.Epsilons))
	t.Curves = append(t.Curves, plotting.Curve{Label: "accuracy of the non-private classifier", Y: np, Colour: -1, Dashed: true, Width: 1.2})
	return t
}

// addRMSECurve adds the RMSE of the current order to a regression's
// tradeoff plot (already in plot units).
func addRMSECurve(t *plotting.Tradeoff, st *previewState) {
	a, o := st.alsoIndex(study.RMSError), slices.Index(st.curves.Orders, st.params.H)
	if a < 0 || o < 0 {
		return
	}
	y := make([]float64, len(st.curves.Epsilons))
	for i, v := range st.curves.Also[a][o] {
		y[i] = st.units.Plot(v)
	}
	t.Curves = append(t.Curves, plotting.Curve{Label: fmt.Sprintf("RMSE of the released vs the non-private fit, h = %d", st.params.H),
		Y: y, Colour: o, Dashed: true, Width: 1.5})
}

// StageSweep is the error-vs-k curve's simulation.
const StageSweep Stage = "Simulating the error against k"

// addSweep simulates the error-vs-k curve at the current ε and h (cached
// per fit, ε, h, noise, δ), draws it (res.Sweep) and, for a density or a
// regression whose every k is no better than publishing zero, warns with
// what would help.
func (e *Engine) addSweep(ctx context.Context, st *previewState, res *Result, progress Progress) error {
	p := st.params
	if len(p.K) > 1 && slices.ContainsFunc(p.K, func(k int) bool { return k != p.K[0] }) {
		return nil // a k per axis: the curve has one k on every axis
	}
	dim := len(p.K)
	key := fmt.Sprintf("%v|%d|%s|%v|%v", p.Epsilon, p.H, p.Noise, p.Delta, p.K[0])
	sw, err := cached(&e.mu, func() (*study.KSweep, bool) { v := e.sweeps[key]; return v, v != nil },
		func() (*study.KSweep, error) {
			sp := st.spec([]float64{p.Epsilon}, []int{p.H}, false)
			sp.Repeats = sweepRepeats(dim)
			sp.Points = nil
			return study.SweepK(ctx, func(ctx context.Context, k []int) ([]float64, error) { return e.latticeValues(ctx, st, k) }, st.grid, st.truth, st.pts,
				study.KCandidates(dim, p.K[0], sweepCoefficients(dim)), p.K[0], sp, func(d, t int) { progress(StageSweep, d, t) })
		},
		func(v *study.KSweep) { e.sweeps[key] = v })
	if err != nil {
		return err
	}
	res.Sweep = sweepPlot(sw, st, res)
	best := sw.Best()
	if best >= 0 {
		res.SweepBestK, res.SweepBestErr = sw.Ks[best], sw.Mean[best]
	}
	if st.kind != measureClassifier && study.AllNoBetterThanZero(sw.Mean, res.ZeroErr) {
		res.NoBetterThanZero = true
		res.Warnings = append(res.Warnings, zeroWarning(st.prep, p.Epsilon, res))
	}
	return nil
}

// sweepPlot draws the error-vs-k curve (agreement for a classifier), the
// chosen k marked; for a density or regression with the error of
// publishing zero for reference.
func sweepPlot(sw *study.KSweep, st *previewState, res *Result) *plotting.Tradeoff {
	if len(sw.Ks) < 2 {
		return nil
	}
	ks := make([]float64, len(sw.Ks))
	for i, k := range sw.Ks {
		ks[i] = float64(k)
	}
	p := st.params
	t := &plotting.Tradeoff{
		Epsilons: ks, XLabel: "cover size k (every axis; log scale)", MarkerEps: ks[sw.Chosen],
		MarkerLabel: fmt.Sprintf("your k = %d", sw.Ks[sw.Chosen]),
	}
	reps := sweepRepeats(len(p.K))
	if st.kind == measureClassifier {
		y := sw.Also[st.alsoIndex(study.PointAgreement)]
		t.Title = fmt.Sprintf("Agreement against k: ε = %s, h = %d, %d simulated releases each", fmtEps(p.Epsilon), p.H, reps)
		t.Share, t.YLabel, t.MarkerErr = true, "agreement (share of the records)", y[sw.Chosen]
		t.Curves = []plotting.Curve{{Label: fmt.Sprintf("agreement, h = %d", p.H), Y: y, Colour: 0, Width: 2}}
		return t
	}
	y := make([]float64, len(ks))
	for i, v := range sw.Mean {
		y[i] = st.units.Plot(v)
	}
	t.Title = fmt.Sprintf("Error against k: ε = %s, h = %d, %d simulated releases each", fmtEps(p.Epsilon), p.H, reps)
	t.YLabel, t.MarkerErr = errorLabel("sup-norm error", res.UnitName), y[sw.Chosen]
	t.Curves = []plotting.Curve{
		{Label: fmt.Sprintf("Bernstein, h = %d", p.H), Y: y, Colour: 0, Width: 2},
		{Label: "publishing zero (max |F_D|)", Y: slices.Repeat([]float64{st.units.Plot(res.ZeroErr)}, len(ks)), Colour: -1, Dashed: true, Width: 1.2},
	}
	return t
}

// zeroWarning tells the curator that at ε every k is no better than
// publishing zero, with what would help.
func zeroWarning(prep *release.Prepared, eps float64, res *Result) string {
	return fmt.Sprintf("At ε = %s every k is no better than publishing zero: the least mean sup-norm error, %s at k = %d, is at least %.0f%% of max |F_D| (%s). The release would show nothing of the data. What would help: %s.",
		fmtEps(eps), res.ErrorText(res.SweepBestErr), res.SweepBestK, 100*(1-study.ZeroMargin),
		strings.TrimSpace(fmt.Sprintf("%.3g %s", res.Units.Plot(res.ZeroErr), res.UnitName)), release.WhatWouldHelp(prep.Spec, len(prep.Params.K), false))
}

// scatter returns a 1-D regression's records in data units (curator
// only): the feature by its bounds, the label by the output map.
func scatter(p *release.Prepared, aff affine) (xs, ys []float64) {
	d := p.LearnerData()
	x, labels := study.Thin(d.X, d.Dim, d.Labels, previewMaxScatter)
	if d.Dim != 1 || labels == nil {
		return nil, nil
	}
	return axisData(p.Domain.Features[0], x), aff.apply(labels)
}

// RenderSweep draws the error-vs-k plot of a result (nil without one).
func RenderSweep(res *Result, th plotting.Theme, s plotting.Size) (image.Image, error) {
	if res.Sweep == nil {
		return nil, nil
	}
	return plotting.RenderTradeoff(res.Sweep, th, s)
}
