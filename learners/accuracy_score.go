package learners

import (
	"fmt"
	"math"
)

// AccuracyScore is the validation score of the private choice of settings
// for classifiers (issue 17 item 5; docs/validation.md, "The accuracy
// score"): the share of the m validation records a candidate classifier f
// classifies correctly, smoothed at a public margin γ > 0,
//
//	q = (1/m)·Σ_{(x,l)∈V} r(l·(f(x) − t)/γ),   r(z) = min(1, max(0, (1 + z)/2)),
//
// with labels l ∈ {−1, +1} and the public threshold t of the output (0 for
// a class score, ½ for a probability). A record whose value lies at least
// γ on the correct side of t counts 1, at least γ on the wrong side 0, and
// in between linearly (½ at f(x) = t). When every |f(x) − t| ≥ γ, q is the
// accuracy on V. In the private choice f is a simulated release and γ the
// root-mean-square of its noise (a public quantity), so a record whose
// decision the release noise can flip counts about half: q estimates the
// accuracy of the release, not of the non-private fit.
//
// Stability (replace-one neighbours; docs/validation.md):
//
//   - BetaV(m) = 1/m: one validation record changes one term of range 1;
//   - BetaT(d) = min(1, d/(2γ)): if f moves by at most d at every point, each
//     term moves by at most d/(2γ) (r is ½-Lipschitz, |l| = 1), and q ∈ [0, 1].
type AccuracyScore struct {
	Threshold float64 // t: 0 for a class score, ½ for a probability
	Margin    float64 // γ > 0, public
}

// NewAccuracyScore returns the accuracy score for a classifier output kind
// (OutputClassScore: t = 0; OutputProbability: t = ½) and a public margin
// γ. Errors name the value and the rule: another kind, or γ not finite
// and > 0.
func NewAccuracyScore(kind OutputKind, margin float64) (AccuracyScore, error) {
	if !(margin > 0) || math.IsInf(margin, 0) {
		return AccuracyScore{}, fmt.Errorf("accuracy score: margin γ = %g: must be finite and > 0", margin)
	}
	switch kind {
	case OutputClassScore:
		return AccuracyScore{Threshold: 0, Margin: margin}, nil
	case OutputProbability:
		return AccuracyScore{Threshold: 0.5, Margin: margin}, nil
	}
	return AccuracyScore{}, fmt.Errorf("accuracy score: output kind %q: must be %s or %s", kind, OutputClassScore, OutputProbability)
}

// Score returns q for the predictions pred[i] = f(x_i) at the m validation
// records and their labels. It returns an error naming the index and the
// rule for an empty V, a length mismatch, a NaN prediction or a label other
// than −1 and +1.
func (s AccuracyScore) Score(pred, labels []float64) (float64, error) {
	m := len(pred)
	if m == 0 {
		return 0, fmt.Errorf("accuracy score: no validation records")
	}
	if len(labels) != m {
		return 0, fmt.Errorf("accuracy score: %d labels for %d predictions", len(labels), m)
	}
	var sum float64
	for i, v := range pred {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("accuracy score: prediction %d is NaN", i)
		}
		l := labels[i]
		if l != -1 && l != 1 {
			return 0, fmt.Errorf("accuracy score: label %d = %g: must be −1 or +1", i, l)
		}
		sum += min(1, max(0, (1+l*(v-s.Threshold)/s.Margin)/2))
	}
	return sum / float64(m), nil
}

// BetaV returns 1/m, the bound on |q(f, V) − q(f, V′)| for validation sets
// of size m ≥ 1 that differ in one record. It panics if m < 1 (programmer
// misuse).
func (s AccuracyScore) BetaV(m int) float64 {
	if m < 1 {
		panic(fmt.Sprintf("learners.AccuracyScore.BetaV: m = %d: must be ≥ 1", m))
	}
	return 1 / float64(m)
}

// BetaT returns min(1, d/(2γ)), the bound on |q(f, V) − q(f′, V)| when
// |f(y) − f′(y)| ≤ d at every y (d ≥ 0). It panics if d < 0 or d is NaN
// (programmer misuse).
func (s AccuracyScore) BetaT(d float64) float64 {
	if !(d >= 0) {
		panic(fmt.Sprintf("learners.AccuracyScore.BetaT: d = %g: must be ≥ 0", d))
	}
	return min(1, d/(2*s.Margin))
}
