package synopsis

import (
	"context"
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/learners"
)

// OutOfBoundsError reports a query coordinate outside its feature's public
// bounds; the release is only defined on the box the bounds span.
type OutOfBoundsError struct {
	Feature string  // feature name
	Index   int     // axis j
	Value   float64 // the coordinate given
	Lo, Hi  float64 // the public bounds
}

func (e *OutOfBoundsError) Error() string {
	return fmt.Sprintf("feature %q = %v is outside its public bounds [%v, %v]", e.Feature, e.Value, e.Lo, e.Hi)
}

// ToUnit maps a query x in data units to y ∈ [0,1]^ℓ by the public bounds,
// y_j = (x_j − lo_j)/(hi_j − lo_j), as the curator mapped the data. len(x)
// and len(y) must be ℓ (else an error); a coordinate outside [lo_j, hi_j]
// or NaN is an *OutOfBoundsError naming the feature and its bounds.
func (v *Verified) ToUnit(x, y []float64) error {
	feats := v.File.Domain.Features
	if len(x) != len(feats) || len(y) != len(feats) {
		return fmt.Errorf("query has %d coordinates; this synopsis has %d features", len(x), len(feats))
	}
	for j, b := range feats {
		xj := x[j]
		if !(xj >= b.Lo && xj <= b.Hi) {
			return &OutOfBoundsError{Feature: b.Name, Index: j, Value: xj, Lo: b.Lo, Hi: b.Hi}
		}
		y[j] = min(1, max(0, (xj-b.Lo)/(b.Hi-b.Lo)))
	}
	return nil
}

// EvalData evaluates the released function at x given in data units and
// returns its value and the standard deviation of its privacy noise at x,
// both in the output's data units (see (*File).OutputAffine):
// x is mapped to [0,1]^ℓ by ToUnit, the release is evaluated there
// (mechanism.Synopsis.Eval, NoiseStdAt), and the result is mapped back:
// a density is divided by ∏(hi_j − lo_j) (std likewise); a regression value
// becomes mid + half·value of the label bound (std·half); class scores and
// probabilities are unchanged. The noise std is the spread of the released
// value around the noiseless Bernstein approximation (not the
// approximation error).
func (v *Verified) EvalData(x []float64) (value, noiseStd float64, err error) {
	y := make([]float64, len(x))
	if err := v.ToUnit(x, y); err != nil {
		return 0, 0, err
	}
	val, err := v.Function.Eval(y)
	if err != nil {
		return 0, 0, err
	}
	std, err := v.Function.NoiseStdAt(y)
	if err != nil {
		return 0, 0, err
	}
	off, scale := v.File.OutputAffine()
	return off + scale*val, math.Abs(scale) * std, nil
}

// EvalDataBatch is EvalData for n points given row-major in points (n·ℓ
// values, data units): it writes the values to values (len n) and, if
// stds is not nil, the noise standard deviations to stds (len n). The
// whole batch is checked against the bounds before anything is evaluated;
// the first offending point gives an *OutOfBoundsError (wrapped with its
// row number). It returns ctx.Err() if cancelled.
func (v *Verified) EvalDataBatch(ctx context.Context, points, values, stds []float64) error {
	dim := len(v.File.Domain.Features)
	if dim == 0 || len(points)%dim != 0 {
		return fmt.Errorf("points has %d coordinates, not a multiple of the %d features", len(points), dim)
	}
	n := len(points) / dim
	if len(values) != n || (stds != nil && len(stds) != n) {
		return fmt.Errorf("%d points need %d values and stds; got %d and %d", n, n, len(values), len(stds))
	}
	unit := make([]float64, len(points))
	for i := range n {
		if err := v.ToUnit(points[i*dim:(i+1)*dim], unit[i*dim:(i+1)*dim]); err != nil {
			return fmt.Errorf("point %d: %w", i, err)
		}
	}
	if err := v.Function.EvalBatch(ctx, unit, values); err != nil {
		return err
	}
	off, scale := v.File.OutputAffine()
	for i := range values {
		values[i] = off + scale*values[i]
	}
	if stds == nil {
		return nil
	}
	for i := range n {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s, err := v.Function.NoiseStdAt(unit[i*dim : (i+1)*dim])
		if err != nil {
			return err
		}
		stds[i] = math.Abs(scale) * s
	}
	return nil
}

// Class returns the class a classifier's output value predicts, and true;
// for density and regression outputs it returns "", false. The rule is the
// learners' (learners.OutputClassScore, OutputProbability): a class score
// ≥ 0, or a probability ≥ ½, predicts ClassLabels[1], the positive class
// (learner label +1); anything else, NaN included, predicts ClassLabels[0],
// the negative class (−1).
func (v *Verified) Class(value float64) (string, bool) {
	o := v.File.Output
	if len(o.ClassLabels) != 2 {
		return "", false
	}
	switch learners.OutputKind(o.Kind) {
	case learners.OutputClassScore:
		if value >= 0 {
			return o.ClassLabels[1], true
		}
	case learners.OutputProbability:
		if value >= 0.5 {
			return o.ClassLabels[1], true
		}
	default:
		return "", false
	}
	return o.ClassLabels[0], true
}
