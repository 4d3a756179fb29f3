package learners

import (
	"fmt"
	"math"
)

// ValidationScore is the bounded validation score q of the private choice
// of release settings (docs/validation.md; Chaudhuri & Vinterbo, "A
// Stability-based Validation Procedure for Differentially Private Machine
// Learning", NIPS 2013). Higher is better. It scores a candidate function f
// — in the app a simulated release of F_T, fitted on the training split —
// on the m records of the validation split V, with f clipped to a public
// range so that every per-record term is bounded:
//
//	density      q = −∫ c(f)² + (2/m)·Σ_{z∈V} c(f)(z)            c: clip to [lo, hi] ∩ [0, ∞)   (C&V Eq. 6)
//	regression   q = −(1/m)·Σ (c(f)(x) − l)²                      c: clip to [−1, 1]
//	class-score  q = −(1/m)·Σ min(2, max(0, 1 − l·c(f)(x)))       c: clip to [lo, hi] (ramp loss)
//	probability  q = −(1/m)·Σ (c(f)(x) − (l+1)/2)²                c: clip to [0, 1] (Brier score)
//
// with [lo, hi] the learner's public OutputRange and labels l ∈ [−1, 1]
// (real) or l ∈ {−1, +1} (binary). The integral is the equal-weight
// midpoint rule on the grid of QuadratureAxes (the score is defined with
// that rule, so the bounds below hold for the computed value exactly).
//
// Stability (replace-one neighbours; derivations in docs/validation.md):
//
//   - BetaV(m): replacing one validation record changes q by at most the
//     range of one per-record term divided by m.
//   - BetaT(d): if f moves by at most d at every point (a training record
//     replaced: d = Λ·S_T for a Bernstein release of F_T), q moves by at
//     most the score's Lipschitz constant times min(d, width of the clip).
//   - BetaTMean(d, a): as BetaT, when the quadrature-grid mean of |f − f′|
//     is also at most a (density only: the integral term uses min(d, a)).
type ValidationScore struct {
	Kind OutputKind
	// Lo and Hi are the clip range c maps f into.
	Lo, Hi float64
}

// NewValidationScore returns the score for a learner's output kind and its
// public output range. Errors name the value and the rule: an unknown kind,
// a non-finite range or lo ≥ hi, and a density range with hi ≤ 0.
func NewValidationScore(kind OutputKind, outputRange [2]float64) (ValidationScore, error) {
	lo, hi := outputRange[0], outputRange[1]
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
		return ValidationScore{}, fmt.Errorf("validation score: output range [%g, %g]: must be finite with lo < hi", lo, hi)
	}
	switch kind {
	case OutputDensity:
		if hi <= 0 {
			return ValidationScore{}, fmt.Errorf("validation score: density output range [%g, %g]: the upper end must be > 0", lo, hi)
		}
		return ValidationScore{Kind: kind, Lo: max(lo, 0), Hi: hi}, nil
	case OutputRegression:
		return ValidationScore{Kind: kind, Lo: -1, Hi: 1}, nil
	case OutputClassScore:
		return ValidationScore{Kind: kind, Lo: lo, Hi: hi}, nil
	case OutputProbability:
		return ValidationScore{Kind: kind, Lo: 0, Hi: 1}, nil
	}
	return ValidationScore{}, fmt.Errorf("validation score: output kind %q: must be one of %s, %s, %s, %s",
		kind, OutputDensity, OutputRegression, OutputClassScore, OutputProbability)
}

// NeedsGrid reports whether Score needs f on the quadrature grid (density).
func (s ValidationScore) NeedsGrid() bool { return s.Kind == OutputDensity }

// NeedsLabels reports whether Score needs the validation labels.
func (s ValidationScore) NeedsLabels() bool { return s.Kind != OutputDensity }

func (s ValidationScore) clip(x float64) float64 { return min(max(x, s.Lo), s.Hi) }

// Score returns q for the predictions pred[i] = f(x_i) at the m validation
// records, their labels (nil for a density) and, for a density, f on the
// quadrature grid (equal weights 1/len(grid); nil otherwise). It returns an
// error naming the index and the rule for an empty V, a length mismatch, a
// NaN prediction or grid value, or a label outside the label domain.
func (s ValidationScore) Score(pred, labels, grid []float64) (float64, error) {
	m := len(pred)
	if m == 0 {
		return 0, fmt.Errorf("validation score: no validation records")
	}
	for i, v := range pred {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("validation score: prediction %d is NaN", i)
		}
	}
	if s.NeedsLabels() {
		if len(labels) != m {
			return 0, fmt.Errorf("validation score: %d labels for %d predictions", len(labels), m)
		}
		for i, l := range labels {
			binary := s.Kind == OutputClassScore || s.Kind == OutputProbability
			if binary && l != -1 && l != 1 {
				return 0, fmt.Errorf("validation score: label %d = %g: must be −1 or +1", i, l)
			}
			if !(l >= -1 && l <= 1) {
				return 0, fmt.Errorf("validation score: label %d = %g: must be in [−1, 1]", i, l)
			}
		}
	}
	var sum float64
	switch s.Kind {
	case OutputDensity:
		if len(grid) == 0 {
			return 0, fmt.Errorf("validation score: a density needs its values on the quadrature grid")
		}
		var sq float64
		for i, v := range grid {
			if math.IsNaN(v) {
				return 0, fmt.Errorf("validation score: grid value %d is NaN", i)
			}
			c := s.clip(v)
			sq += c * c
		}
		for _, v := range pred {
			sum += s.clip(v)
		}
		return -sq/float64(len(grid)) + 2*sum/float64(m), nil
	case OutputRegression:
		for i, v := range pred {
			d := s.clip(v) - labels[i]
			sum += d * d
		}
	case OutputClassScore:
		for i, v := range pred {
			sum += min(2, max(0, 1-labels[i]*s.clip(v)))
		}
	case OutputProbability:
		for i, v := range pred {
			d := s.clip(v) - (labels[i]+1)/2
			sum += d * d
		}
	}
	return -sum / float64(m), nil
}

// BetaV returns the bound on |q(f, V) − q(f, V′)| for validation sets of
// size m ≥ 1 that differ in one record (f fixed): the range of one
// per-record term over m.
//
//	density      2·(hi − lo)/m      (2/m)·c(f)(z) ∈ [2lo/m, 2hi/m]
//	regression   4/m                (c − l)² ∈ [0, 4]
//	class-score  r/m                ramp(l·c) ∈ [max(0, 1−M), min(2, 1+M)], M = max(|lo|, |hi|),
//	                                r = min(2, 1+M) − max(0, 1−M) ≤ 2 (= 2M when M ≤ 1)
//	probability  1/m                (c − p)² ∈ [0, 1]
//
// It panics if m < 1 (programmer misuse).
func (s ValidationScore) BetaV(m int) float64 {
	if m < 1 {
		panic(fmt.Sprintf("learners.ValidationScore.BetaV: m = %d: must be ≥ 1", m))
	}
	return s.termRange() / float64(m)
}

func (s ValidationScore) termRange() float64 {
	switch s.Kind {
	case OutputDensity:
		return 2 * (s.Hi - s.Lo)
	case OutputRegression:
		return 4
	case OutputClassScore:
		// l·c ranges over [−M, M], M = max(|lo|, |hi|); the ramp is
		// non-increasing, so its range is ramp(−M) − ramp(M).
		mx := max(math.Abs(s.Lo), math.Abs(s.Hi))
		return min(2, 1+mx) - max(0, 1-mx)
	default:
		return 1
	}
}

// Bound returns a public bound on |q| for every f and V (the score's
// range; the private choice's generalized selection clamps to it):
//
//	density      max(Hi², 2·Hi)   −∫c² ∈ [−Hi², 0], (2/m)Σc ∈ [0, 2·Hi] (0 ≤ Lo ≤ c ≤ Hi)
//	regression   4            a mean of (c − l)² ∈ [0, 4]
//	class-score  2            a mean of the ramp loss ∈ [0, 2]
//	probability  1            a mean of (c − p)² ∈ [0, 1]
func (s ValidationScore) Bound() float64 {
	switch s.Kind {
	case OutputDensity:
		return max(s.Hi*s.Hi, 2*s.Hi)
	case OutputRegression:
		return 4
	case OutputClassScore:
		return 2
	}
	return 1
}

// BetaT returns the bound on |q(f, V) − q(f′, V)| when |f(y) − f′(y)| ≤ d
// at every y (d ≥ 0): with d′ = min(d, hi − lo) the largest move of the
// clipped value (clipping is 1-Lipschitz),
//
//	density      d′·(2·max(|lo|, |hi|) + 2)   |c² − c′²| = |c − c′|·|c + c′| and the mean term
//	regression   4·d′                          |(c−l)² − (c′−l)²| = |c − c′|·|c + c′ − 2l|, |c + c′ − 2l| ≤ 4
//	class-score  min(d′, r)                    the ramp loss is 1-Lipschitz in l·c, |l| = 1; r its range (BetaV)
//	probability  2·d′                          |c + c′ − 2p| ≤ 2
//
// It panics if d < 0 or d is NaN (programmer misuse).
func (s ValidationScore) BetaT(d float64) float64 {
	if !(d >= 0) {
		panic(fmt.Sprintf("learners.ValidationScore.BetaT: d = %g: must be ≥ 0", d))
	}
	dc := min(d, s.Hi-s.Lo)
	switch s.Kind {
	case OutputDensity:
		return dc * (2*max(math.Abs(s.Lo), math.Abs(s.Hi)) + 2)
	case OutputRegression:
		return 4 * dc
	case OutputClassScore:
		return min(dc, s.termRange())
	default:
		return 2 * dc
	}
}

// BetaTMean returns the bound on |q(f, V) − q(f′, V)| when, besides
// |f(y) − f′(y)| ≤ d at every y, the mean of |f − f′| over the quadrature
// grid (the equal weights of Score's integral) is at most a ≥ 0. Only the
// density score's integral term uses a: with d′ = min(d, hi − lo) and
// M = max(|lo|, |hi|),
//
//	density  2M·min(d′, a) + 2d′
//
// because (1/|G|)·Σ_g |c(f)(g)² − c(f′)(g)²| ≤ 2M·(1/|G|)·Σ_g |c(f)(g) −
// c(f′)(g)| ≤ 2M·min(d′, a) (|c + c′| ≤ 2M; clipping is 1-Lipschitz, so the
// grid mean of |c − c′| is ≤ a and each term is ≤ d′), while the mean over V
// still moves by at most 2d′. For the other kinds it equals BetaT(d). It
// never exceeds BetaT(d). For a release of F_T, a = W·L with L the learner's
// lattice-L1 sensitivity and W the basis weight on the grid
// (docs/validation.md). It panics if d or a is negative or NaN
// (programmer misuse).
func (s ValidationScore) BetaTMean(d, a float64) float64 {
	if !(d >= 0) || !(a >= 0) {
		panic(fmt.Sprintf("learners.ValidationScore.BetaTMean: d = %g, a = %g: both must be ≥ 0", d, a))
	}
	if s.Kind != OutputDensity {
		return s.BetaT(d)
	}
	dc := min(d, s.Hi-s.Lo)
	return 2*max(math.Abs(s.Lo), math.Abs(s.Hi))*min(dc, a) + 2*dc
}

// QuadratureAxes returns the axes of the midpoint grid used for the
// integral of a density score: perAxis points (i + ½)/perAxis on each of
// dim axes (row-major, last axis fastest, like mechanism lattices). It
// panics unless dim ≥ 1 and perAxis ≥ 1 (programmer misuse).
func QuadratureAxes(dim, perAxis int) [][]float64 {
	if dim < 1 || perAxis < 1 {
		panic(fmt.Sprintf("learners.QuadratureAxes: dim = %d, perAxis = %d: both must be ≥ 1", dim, perAxis))
	}
	axis := make([]float64, perAxis)
	for i := range axis {
		axis[i] = (float64(i) + 0.5) / float64(perAxis)
	}
	axes := make([][]float64, dim)
	for j := range axes {
		axes[j] = axis
	}
	return axes
}
