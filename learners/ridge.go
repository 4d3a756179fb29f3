package learners

import (
	"context"
	"fmt"
	"math"
)

type ridge struct{}

// NewRidge returns ridge regression, Eq. 5 of Aldà & Rubinstein (2017) with
// the identity feature map and the square loss L(l, z) = ½(l − z)²:
//
//	w* = argmin_w (C/n) Σ ½(l_i − ⟨w, x̃_i⟩)² + ½‖w‖²,
//
// on the public lift x̃ = (2x − 1, 1)/√(ℓ+1) (ermLift: ‖x̃‖ ≤ 1, regularised
// intercept). Real labels in [−B, B] with B = 1 (mapped units), ℓ = 1…6,
// parameter C (default 1). The released function is the regression value
// F_D(y) = ⟨w*, ỹ⟩, affine in y, so the Bernstein approximation is exact
// (h = 1, k = 1).
//
// Sensitivity (docs/sensitivity.md (regularised ERM learners) §Ridge): the square loss is not
// globally Lipschitz, but P(w*) ≤ P(0) ≤ C·B²/2 gives ‖w*‖ ≤ √C·B for every
// dataset, so on that ball |z| ≤ √C·B and |∂L/∂z| = |z − l| ≤ M = B(1 + √C).
// Replace-one stability then gives ‖w − w'‖ ≤ 2MC/n and, with ‖ỹ‖ ≤ 1,
//
//	S = (2C(1 + √C)/n)·(1 + 0.01)
//
// plus a floating-point term below 10⁻¹³·max(1, C). The factor 1.01 is the
// solver term: the closed-form Newton/Cholesky solution is certified to
// ‖∇P(w)‖ ≤ τ = 0.01·MC/n, hence ‖w − w*‖ ≤ τ; if it cannot be, a public
// number of gradient steps from 0, a priori within τ of w*, is released
// instead (erm_fallback.go) — Fit never fails because of the data.
func NewRidge() Learner { return ridge{} }

func (ridge) Spec() Spec {
	return Spec{
		Kind:  KindRidge,
		Title: "Ridge regression",
		Description: "L2-regularised least squares (Eq. 5 with the square loss) on the features rescaled " +
			"to the unit ball, with a regularised intercept. Releases the regression value, which is " +
			"linear in the query, so the Bernstein approximation is exact and only the privacy noise remains.",
		MinDim: 1,
		MaxDim: 6,
		Label:  LabelReal,
		Params: []ParamSpec{ermParamC()},
		Output: OutputSpec{
			Name:    "regression",
			Meaning: "The ridge prediction of the label at y, in mapped label units.",
			Kind:    OutputRegression,
		},
	}
}

// ridgeLoss is L(l, z) = ½(l − z)².
type ridgeLoss struct{}

func (ridgeLoss) value(l, z float64) float64 { return 0.5 * (l - z) * (l - z) }
func (ridgeLoss) deriv(l, z float64) float64 { return z - l }
func (ridgeLoss) curv(float64, float64) float64 {
	return 1
}

// ridgeBounds returns, for n records and parameter C (label bound B = 1), the
// stability term 2MC/n with M = 1 + √C, the public gradient tolerance τ and
// the public bound wStar ≥ ‖w*‖ (P(w*) ≤ P(0) ≤ C/2 gives ‖w*‖ ≤ √C).
func ridgeBounds(n int, c float64) (stab, tau, wStar float64) {
	m := 1 + math.Sqrt(c)
	stab = 2 * m * c / float64(n)
	tau = ermGradShare * stab / 2
	wStar = math.Sqrt(c)
	return
}

// ridgePlan is the public fallback of ridge regression: the square loss has
// curvature 1 and |∂L/∂z| = |z − l| ≤ B + 1 for ‖w‖ ≤ B.
func ridgePlan(dim int, c, wStar, tau float64) ermGDPlan {
	return ermLinearGDPlan(dim, c, 1, wStar, func(b float64) float64 { return b + 1 }, tau)
}

func (rr ridge) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	spec := rr.Spec()
	res, err := spec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	if err := ermCheckData(spec.Kind, data, spec.Label, spec.MinDim, spec.MaxDim); err != nil {
		return nil, err
	}
	c := res.Scalar("C")
	n := data.N()
	stab, tau, wStar := ridgeBounds(n, c)
	plan := ridgePlan(data.Dim, c, wStar, tau)
	r := math.Max(tau, plan.radius) // every released ŵ is within r of w*
	wMax := wStar + r

	// The objective is quadratic: one Newton step from 0 is the closed-form
	// solution (I + (C/n)X̃ᵀX̃)w = (C/n)X̃ᵀl via Cholesky; further steps are
	// iterative refinement, taken only if the certificate is not yet met.
	q := newErmLinearProblem(spec.Kind, data, c, ridgeLoss{})
	w, err := q.solveLinear(ctx, data, tau, plan, func(ctx context.Context) ([]float64, float64, error) {
		w := make([]float64, q.p)
		cert, err := q.refineNewton(ctx, w, tau, 3)
		return w, cert, err
	})
	if err != nil {
		return nil, err
	}

	return ridgeFitted(data.Dim, n, c, w, wMax, stab, r, tau, plan, ""), nil
}

// ridgeFitted is the one home of ridge's sensitivity and output range
// (docs/sensitivity.md §Ridge), for fits from the records and from
// sufficient statistics (ridge_aggregate.go): S = stab + 2r + fp, where r
// bounds ‖ŵ − w*‖ and fp the floating-point error of evaluating ⟨ŵ, ỹ⟩.
// how is appended to the sensitivity note (e.g. where the fit came from).
func ridgeFitted(dim, n int, c float64, w []float64, wMax, stab, r, tau float64, plan ermGDPlan, how string) *Fitted {
	fp := 2 * ermLinearEvalError(dim, wMax, false)
	s := stab + 2*r + fp
	rng := wMax + fp/2 // |F| ≤ ‖ŵ‖·‖ỹ‖ ≤ √C + r, plus rounding
	note := fmt.Sprintf("S = 2MC/n + 2τ + fp = 2·%.4g·%g/%d + 2·%.3g + %.1g = %.6g: replace-one stability of the 1-strongly convex "+
		"ridge objective, square loss ½(l − z)² with M = 1 + √C on ‖w‖ ≤ √C (‖x̃‖, ‖ỹ‖ ≤ 1, |l| ≤ 1); τ = %g·MC/n is the certified gradient-norm tolerance%s%s",
		1+math.Sqrt(c), c, n, r, fp, s, ermGradShare, how, ermFallbackNote(plan, tau))
	return &Fitted{
		Oracle:          &ermLinearOracle{dim: dim, w: w, b: 1},
		Sensitivity:     s,
		SensitivityNote: note,
		OutputRange:     [2]float64{-rng, rng},
		N:               n,
		StandIn:         linearStandIn(rng, dim),
	}
}
