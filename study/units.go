package study

import "math"

// Units converts an error of F_D in the learner's units (mapped units: a
// density on [0,1]^ℓ, a regression value in [−1, 1]) into the units of the
// plot beside it and into a share of the function's public range.
type Units struct {
	// Scale is the plot's units per learner unit, the derivative of the
	// map from learner to data units: the Jacobian 1/∏_j(hi_j − lo_j) of
	// the public bounds for a density, half the label's public range for a
	// regression, 1 for class scores and probabilities (the scale of
	// synopsis.File.OutputAffine, which the plots use).
	Scale float64
	// Range is the function's public range in learner units
	// (learners.Fitted.OutputRange).
	Range [2]float64
}

// Plot returns the error err (learner units) in the plot's units.
func (u Units) Plot(err float64) float64 { return err * math.Abs(u.Scale) }

// Width returns the width of the public range (learner units).
func (u Units) Width() float64 { return u.Range[1] - u.Range[0] }

// Share returns err as a share of the public range's width (both in
// learner units; the same share in plot units), or NaN when the range is
// empty or not finite.
func (u Units) Share(err float64) float64 {
	w := u.Width()
	if !(w > 0) || math.IsInf(w, 0) {
		return math.NaN()
	}
	return err / w
}

// ZeroMargin is how close to the error of publishing zero an error may
// come before it counts as no better than zero: within 10 % of it, a
// release shows nothing of F_D a curator could use.
const ZeroMargin = 0.1

// ZeroError returns the sup-norm error of publishing the zero function
// instead of F_D: max |F_D| over values (F_D on the grid; private, curator
// only — or a public stand-in's amplitude for a predicted error).
func ZeroError(values []float64) float64 {
	z := 0.0
	for _, v := range values {
		z = math.Max(z, math.Abs(v))
	}
	return z
}

// NoBetterThanZero reports whether the sup-norm error err is at least
// (1 − ZeroMargin)·zero, where zero = ZeroError(F_D): the release is no
// better than publishing zero. It is false for NaN errors and when F_D is
// zero. An error beyond the whole public range always qualifies, since
// every |F_D| lies within that range's width (every learner's range holds
// 0).
func NoBetterThanZero(err, zero float64) bool {
	return zero > 0 && err >= (1-ZeroMargin)*zero
}

// AllNoBetterThanZero reports whether every error of errs that is not NaN
// is NoBetterThanZero, and at least one is: for an error-vs-k curve, every
// candidate k is no better than publishing zero.
func AllNoBetterThanZero(errs []float64, zero float64) bool {
	seen := false
	for _, e := range errs {
		if math.IsNaN(e) {
			continue
		}
		if !NoBetterThanZero(e, zero) {
			return false
		}
		seen = true
	}
	return seen
}
