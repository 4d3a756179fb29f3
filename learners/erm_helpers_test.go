package learners

import (
	"context"
	"fmt"
)

// Helpers only the tests use (issue 16: no test-only production code): the
// lift with b = 1, the forward-error bound of the compensated sum, and a
// one-call fit of the logistic learner's linear model.

// ermLift writes the lifted feature vector x̃ of x ∈ [0,1]^ℓ into out
// (len ℓ+1):
//
//	x̃ = (2x_1 − 1, …, 2x_ℓ − 1, 1) / √(ℓ+1).
//
// The map is fixed and public (it uses only ℓ), so it needs no
// data-dependent clipping: every coordinate of 2x − 1 lies in [−1, 1], hence
// ‖x̃‖² = (Σ(2x_j − 1)² + 1)/(ℓ+1) ≤ 1, the norm bound under which the
// log-loss and the square loss have the Lipschitz constants used in
// docs/sensitivity.md (regularised ERM learners). The constant last coordinate is an intercept that
// lies inside the norm budget and is regularised like every other weight (an
// unregularised intercept would have unbounded sensitivity). Centring the
// features at the middle of the domain makes boundaries through the centre
// cheap for the regulariser.
func ermLift(x, out []float64) { ermLiftB(x, out, 1) }

// ermCompensatedError bounds the forward error of ermSum over m terms of
// absolute sum sumAbs: 2u·sumAbs + 2m·u²·sumAbs, doubled for safety
// (Higham §4.3 gives (2u + O(m u²))·Σ|x|).
func ermCompensatedError(m int, sumAbs float64) float64 {
	u := ermRoundoff
	return 2 * (2*u + 2*float64(m)*u*u) * sumAbs
}

// FitLinear fits the logistic learner to data with the given values and
// returns its linear model (LinearModelOf of the fit).
func FitLinear(ctx context.Context, kind Kind, data Dataset, values Values) (*LinearModel, error) {
	if kind != KindLogistic {
		return nil, fmt.Errorf("learners: FitLinear: learner %q: only %q exposes its weights", kind, KindLogistic)
	}
	fit, err := NewLogistic().Fit(ctx, data, values)
	if err != nil {
		return nil, err
	}
	return LinearModelOf(kind, fit, values)
}
