package learners

import (
	"fmt"
	"slices"
)

// LinearModel exposes the fitted weight vector of a linear ERM learner
// (logistic regression) for peer mechanisms that perturb the weights
// instead of the released function: the output perturbation of Chaudhuri &
// Vinterbo (NIPS 2013, Appendix, Algorithm 4). It changes nothing about the
// learner's own release; it only reads what Fit computed.
//
// The model is F_D(y) = ⟨W, ỹ⟩ (Sigmoid false) or σ(⟨W, ỹ⟩) (Sigmoid true)
// with ỹ = Lift(y) = (2y_1 − 1, …, 2y_ℓ − 1, b)/√(ℓ + b²), the public lift
// of ermLiftB with the fit's public intercept feature b = Intercept
// (‖ỹ‖ ≤ 1 on [0,1]^ℓ for every b ≥ 0, so Sensitivity2 does not depend on b).
//
// Sensitivity2 is a certified bound on the L2 sensitivity of the weights,
// ‖Ŵ_D − Ŵ_D′‖₂ over replace-one neighbours D ~ D′ of the same size n: the
// stability term 2C/n of logisticBounds (λ = 1/C in C&V's (1/n)Σ ℓ +
// (λ/2)‖w‖² form, so 2/(nλ) = 2C/n; log-loss 1-Lipschitz, ‖x̃‖ ≤ 1) plus
// the solver term 2r, r the fit's public radius around w* (the certified
// τ = 0.01·C/n, or the public fallback's a priori radius r_fb when that is
// larger, which happens only at extreme n and C: n = 10⁹, C = 10⁻⁹ gives
// r_fb = 13·τ):
//
//	Δ₂ = 2C/n + 2·max(τ, r_fb) = (2C/n)·(1 + 0.01) when r_fb ≤ τ.
//
// It depends on n, ℓ and C only, never on data values (docs/peers.md,
// "Chaudhuri & Vinterbo: output perturbation"; docs/sensitivity.md,
// logistic regression). The score's S(F) is this bound times sup ‖ỹ‖ = 1
// plus a floating-point term for evaluating the oracle, which a vector
// release does not need.
type LinearModel struct {
	Dim          int       // ℓ
	W            []float64 // ℓ+1 weights on the lifted features (private)
	Sensitivity2 float64   // certified bound on ‖W_D − W_D′‖₂
	Sigmoid      bool      // the learner releases σ(⟨W, ỹ⟩) (output = probability)
	Intercept    float64   // the public constant feature b of the lift (parameter "intercept")
}

// Lift writes the public lift ỹ of y ∈ [0,1]^ℓ into out (len ℓ+1). It
// panics if len(y) != m.Dim or len(out) != m.Dim+1 (programmer misuse).
func (m *LinearModel) Lift(y, out []float64) {
	if len(y) != m.Dim || len(out) != m.Dim+1 {
		panic(fmt.Sprintf("learners: LinearModel.Lift: len(y) = %d, len(out) = %d: want %d and %d", len(y), len(out), m.Dim, m.Dim+1))
	}
	ermLiftB(y, out, m.Intercept)
}

// Link applies the model's output link to a margin z: σ(z) if Sigmoid,
// else z.
func (m *LinearModel) Link(z float64) float64 {
	if m.Sigmoid {
		return Sigmoid(z)
	}
	return z
}

// LinearModelOf returns the linear model behind a logistic-regression fit
// made by NewLogistic().Fit with the given parameter values (nil: the
// defaults). It refuses other learners (kind names the learner) and fits
// that did not come from the logistic learner. The weights are copied.
func LinearModelOf(kind Kind, fit *Fitted, values Values) (*LinearModel, error) {
	if kind != KindLogistic {
		return nil, fmt.Errorf("learners: LinearModelOf: learner %q: only %q exposes its weights", kind, KindLogistic)
	}
	if fit == nil {
		return nil, fmt.Errorf("learners: LinearModelOf: fit is nil")
	}
	o, ok := fit.Oracle.(*ermLinearOracle)
	if !ok {
		return nil, fmt.Errorf("learners: LinearModelOf: the fit's oracle (%T) is not a logistic-regression fit", fit.Oracle)
	}
	res, err := NewLogistic().Spec().Resolve(values, o.dim)
	if err != nil {
		return nil, err
	}
	if fit.N < 1 {
		return nil, fmt.Errorf("learners: LinearModelOf: fit has n = %d records: must be at least 1", fit.N)
	}
	if prob := res.Scalar("output") == logisticOutputProbability; prob != o.sigmoid {
		return nil, fmt.Errorf("learners: LinearModelOf: values say output = %g but the fit was made with the other output mode", res.Scalar("output"))
	}
	if b := res.Scalar("intercept"); b != o.b {
		return nil, fmt.Errorf("learners: LinearModelOf: values say intercept = %g but the fit was made with intercept = %g", b, o.b)
	}
	// ŵ is within r = max(τ, fallback radius) of w* (the fit's public
	// radius; r = τ but at extreme n and C), so neighbours' ŵ differ by
	// ≤ 2C/n + 2r.
	stab, tau, _ := logisticBounds(fit.N, res.Scalar("C"))
	return &LinearModel{Dim: o.dim, W: slices.Clone(o.w), Sensitivity2: stab + 2*max(tau, o.r), Sigmoid: o.sigmoid, Intercept: o.b}, nil
}
