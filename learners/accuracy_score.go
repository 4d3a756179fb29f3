package learners

import (
	"fmt"
	"math"
)

// AccuracyScore is the validation score of the private choice of settings
// for classifiers (issue 17 item 5; docs/validation.md, "The accuracy
// score"): the balanced accuracy of a candidate classifier f on the m
// validation records — the mean of the two classes' accuracies, so that a
// constant classifier scores ½ whatever the class shares — smoothed at a
// public margin γ > 0, with the class sizes floored at a public M:
//
//	q = ½·(S₊/max(m₊, M) + S₋/max(m₋, M)),   S_l = Σ_{(x,l′)∈V, l′=l} r(l·(f(x) − t)/γ),
//	r(z) = min(1, max(0, (1 + z)/2)),         M = MinClassSize(m) = ⌈m/4⌉,
//
// with labels l ∈ {−1, +1}, m_l the number of validation records of class
// l and the public threshold t of the output (0 for a class score, ½ for a
// probability). A record at least γ on its class's side of t counts 1, at
// least γ on the wrong side 0, linearly in between (½ at f(x) = t). When
// every |f(x) − t| ≥ γ and both classes have at least M records, q is the
// balanced accuracy on V. A class with fewer than M records contributes at
// most m_l/M (the floor is what bounds the sensitivity; the class sizes are
// private).
//
// Stability (replace-one neighbours; docs/validation.md):
//
//   - BetaV(m) = 1/M: replacing a validation record changes at most one
//     term of each class; S_l/max(m_l, M) is a mean of values in [0, 1]
//     over at least M slots, which one added, removed or changed term moves
//     by at most 1/M, and the two halves add ½·(1/M + 1/M);
//   - BetaT(d) = min(1, d/(2γ)): if f moves by at most d at every point,
//     each term moves by at most d/(2γ) (r is ½-Lipschitz, |l| = 1), each
//     S_l/max(m_l, M) by at most that, and q ∈ [0, 1].
type AccuracyScore struct {
	Threshold float64 // t: 0 for a class score, ½ for a probability
	Margin    float64 // γ > 0, public
}

// MinClassSize returns M = ⌈m/4⌉ (at least 1), the public floor of the
// class sizes of AccuracyScore for m validation records.
func MinClassSize(m int) int { return max(1, (m+3)/4) }

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
	var sum [2]float64
	var count [2]int
	for i, v := range pred {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("accuracy score: prediction %d is NaN", i)
		}
		l := labels[i]
		if l != -1 && l != 1 {
			return 0, fmt.Errorf("accuracy score: label %d = %g: must be −1 or +1", i, l)
		}
		c := 0
		if l > 0 {
			c = 1
		}
		sum[c] += min(1, max(0, (1+l*(v-s.Threshold)/s.Margin)/2))
		count[c]++
	}
	floor := MinClassSize(m)
	return (sum[0]/float64(max(count[0], floor)) + sum[1]/float64(max(count[1], floor))) / 2, nil
}

// Bound returns 1, a public bound on |q|: q is the mean of two shares in
// [0, 1].
func (s AccuracyScore) Bound() float64 { return 1 }

// BetaV returns 1/MinClassSize(m), the bound on |q(f, V) − q(f, V′)| for
// validation sets of size m ≥ 1 that differ in one record. It panics if
// m < 1 (programmer misuse).
func (s AccuracyScore) BetaV(m int) float64 {
	if m < 1 {
		panic(fmt.Sprintf("learners.AccuracyScore.BetaV: m = %d: must be ≥ 1", m))
	}
	return 1 / float64(MinClassSize(m))
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
