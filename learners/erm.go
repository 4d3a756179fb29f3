package learners

// Shared helpers of the regularised-ERM learners (SVM, logistic and ridge
// regression, Section 6 "Regularized Empirical Risk Minimization" of Aldà &
// Rubinstein 2017, Eq. 5):
//
//	w* = argmin_w (C/n) Σ L(l_i, ⟨φ(d_i), w⟩) + ½‖w‖².
//
// The objective is 1-strongly convex, which gives all three proofs in
// docs/sensitivity.md (regularised ERM learners):
//
//   - stability: replace-one neighbours D ~ D' have ‖w*_D − w*_D'‖ ≤ 2MCκ/n
//     when the loss is M-Lipschitz in its second argument on the set where
//     the minimisers lie and ‖φ(x)‖ ≤ κ;
//   - solver certificates: ‖w − w*‖ ≤ √(2(P(w) − P(w*))) ≤ √(2·gap) and
//     ‖w − w*‖ ≤ ‖∇P(w)‖, so a public tolerance on the certificate bounds the
//     distance of the returned solution from the exact one; a solver that
//     cannot certify within its public budget is replaced by a public
//     fallback whose distance is bounded a priori (erm_fallback.go);
//   - floating point: every released value is computed with a forward error
//     bounded by a public multiple of the unit roundoff (Higham, "Accuracy
//     and Stability of Numerical Algorithms", 2nd ed., §3.1 and §4.3).
//
// Unexported identifiers of these learners carry the prefix erm, svm,
// logistic or ridge so they cannot collide with the other learners of the
// package.

import (
	"context"
	"fmt"
	"math"
)

// ermRoundoff is the unit roundoff u = 2⁻⁵³ of float64.
const ermRoundoff = 0x1p-53

// ermGamma returns γ_k = k·u/(1 − k·u), Higham's bound on the relative error
// accumulated by k floating-point operations (Higham Lemma 3.1). It returns
// +Inf when k·u ≥ 1.
func ermGamma(k int) float64 {
	ku := float64(k) * ermRoundoff
	if ku >= 1 {
		return math.Inf(1)
	}
	return ku / (1 - ku)
}

// ermSum is a Neumaier (improved Kahan–Babuška) compensated sum: the
// computed sum s of x_1…x_m satisfies |s − Σx| ≤ 2u·Σ|x| + O(m·u²)·Σ|x|
// independently of the order and the number of terms (Higham §4.3), which
// the duality-gap and gradient certificates need at large n.
type ermSum struct{ s, c float64 }

func (a *ermSum) add(x float64) {
	t := a.s + x
	if math.Abs(a.s) >= math.Abs(x) {
		a.c += (a.s - t) + x
	} else {
		a.c += (x - t) + a.s
	}
	a.s = t
}

func (a *ermSum) value() float64 { return a.s + a.c }

// Solver shares: the fraction of the stability bound spent on solver
// inexactness. The public solver tolerance is chosen so that the solver term
// of S(F) equals share × (stability term); see docs/sensitivity.md (regularised ERM learners).
const (
	// ermSVMGapShare: the certified duality gap of the SVM dual adds 5 % to
	// S(F) (tolerance g_max = (share·MCκ/n)²/2).
	ermSVMGapShare = 0.05
	// ermGradShare: the gradient-norm certificate of logistic and ridge
	// regression adds 1 % to S(F) (Newton and Cholesky reach it cheaply).
	ermGradShare = 0.01
)

// ermCheckData validates a dataset for an ERM learner of the given kind:
// dimension within [minDim, maxDim], at least one record, features finite in
// [0,1], and one label per record that is exactly −1 or +1 (LabelBinary) or
// finite in [−1, 1] (LabelReal). Errors name the record, the value and the
// rule; they are errors (not panics) because data come from files.
func ermCheckData(kind Kind, data Dataset, label LabelKind, minDim, maxDim int) error {
	if data.Dim < minDim || data.Dim > maxDim {
		return fmt.Errorf("%s: dataset has %d feature columns; this learner needs between %d and %d", kind, data.Dim, minDim, maxDim)
	}
	if err := checkSource(kind, data); err != nil {
		return err
	}
	if len(data.X)%data.Dim != 0 {
		return fmt.Errorf("%s: dataset has %d feature values, not a multiple of its %d columns", kind, len(data.X), data.Dim)
	}
	n := data.N()
	if n < 1 {
		return fmt.Errorf("%s: dataset has no records; at least 1 is needed", kind)
	}
	for i, x := range data.X {
		if !(x >= 0 && x <= 1) { // also rejects NaN
			return fmt.Errorf("%s: record %d feature %d = %g: mapped features must lie in [0, 1]", kind, i/data.Dim+1, i%data.Dim+1, x)
		}
	}
	if len(data.Labels) != n {
		return fmt.Errorf("%s: dataset has %d labels for %d records; one label per record is needed", kind, len(data.Labels), n)
	}
	for i, l := range data.Labels {
		switch label {
		case LabelBinary:
			if l != -1 && l != 1 {
				return fmt.Errorf("%s: record %d label = %g: binary labels must be exactly −1 or +1", kind, i+1, l)
			}
		case LabelReal:
			if !(l >= -1 && l <= 1) {
				return fmt.Errorf("%s: record %d label = %g: real labels must lie in [−1, 1] (mapped by the public label bounds)", kind, i+1, l)
			}
		}
	}
	return nil
}

// ermCtxEvery is how many inner-loop steps pass between context checks.
const ermCtxEvery = 1 << 12

// ermCanceled returns ctx.Err() wrapped with the learner kind, or nil.
func ermCanceled(ctx context.Context, kind Kind) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: fit cancelled: %w", kind, err)
	}
	return nil
}

// ermParamIntercept is the public intercept constant of the SVM (kernel
// K + c) and of logistic regression (constant feature b), issue 17 item 5:
// a number in [0, 100], 0 meaning no intercept. Label, help and default are
// the learner's (svm_intercept.go, logistic_intercept.go).
func ermParamIntercept(label, help string, def float64) ParamSpec {
	return ParamSpec{Name: "intercept", Label: label, Help: help, Default: def, Min: 0, Max: 100}
}
