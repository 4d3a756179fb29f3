package learners

import (
	"fmt"
	"math"
)

// Intercept of the RBF SVM (issue 17 item 5): the kernel is
//
//	K_c(x, y) = exp(−‖x − y‖²/(2σ²)) + c,
//
// with a public constant c ≥ 0 (parameter "intercept"). K_c is the kernel
// of the RKHS H_K ⊕ span{1} with ‖g + β‖² = ‖g‖²_K + β²/c, so a function
// f = g + β of that space has a regularised intercept β: Eq. 5 in H(K_c)
// is the SVM with bias β penalised by β²/(2c). Every argument of the
// bias-free SVM carries over with κ² = sup K_c(y, y) = 1 + c in place of 1
// (docs/sensitivity.md, "Intercepts"):
//
//   - stability: ‖w_D − w_D′‖ ≤ 2MCκ/n and sup_y |f_D(y) − f_D′(y)| ≤
//     2MCκ²/n = 2C(1 + c)/n;
//   - the dual optimum is α = C/n exactly when C·κ² ≤ 1 (svmExact);
//   - the duality gap bounds ‖w − w*‖ ≤ √(2g), hence the sup-norm error by
//     κ√(2g): the public gap tolerance is g_max = (0.05·stab/(2κ))²/2 so
//     the solver term stays 5 % of the stability term;
//   - the fallback's Lipschitz constant is L = n·κ² (svmFallbackPlan).
//
// c = 0 is the bias-free SVM of earlier versions bit for bit, and a
// synopsis or project that does not record "intercept" means c = 0
// (svmInterceptLegacy).

const (
	// svmInterceptDefault is the default intercept constant c.
	svmInterceptDefault = 0
	// svmInterceptLegacy is the c of fits recorded without the parameter.
	svmInterceptLegacy = 0
)

func svmParamIntercept() ParamSpec {
	return ermParamIntercept("Intercept constant c",
		"Public constant added to the kernel, K + c: the decision function gets an intercept (bias) "+
			"regularised by β²/(2c). 0: no intercept (the SVM of files made without this parameter). "+
			"S(F) grows by the factor 1 + c.",
		svmInterceptDefault)
}

// svmExact reports whether the dual optimum is the corner α = C/n, which
// needs no solver: C·κ² ≤ 1 with κ² = 1 + c.
func svmExact(c, icpt float64) bool { return c*(1+icpt) <= 1 }

// svmBounds returns, for n records of dimension dim, parameter C and
// intercept constant icpt (κ² = 1 + icpt), the stability term 2MCκ²/n
// (M = 1), the public duality-gap tolerance g_max, the solver term
// 2·max(κ√(2g_max), κ·r_fb) of S(F) and the public fallback plan. When
// svmExact holds the solver returns the exact optimum and the tolerance,
// the solver term and the plan are 0. For icpt = 0 the values are those of
// the bias-free SVM.
func svmBounds(n, dim int, c, icpt float64) (stab, gapTol, solverTerm float64, plan svmFISTAPlan) {
	k2 := 1 + icpt
	stab = 2 * c * k2 / float64(n)
	if svmExact(c, icpt) {
		return stab, 0, 0, svmFISTAPlan{}
	}
	kappa := math.Sqrt(k2)
	half := ermSVMGapShare * stab / 2 // sup-norm: κ√(2g_max)
	rH := half / kappa                // RKHS norm: √(2g_max)
	gapTol = rH * rH / 2
	plan = svmFallbackPlan(n, dim, c, icpt, rH)
	return stab, gapTol, 2 * math.Max(half, kappa*plan.radius), plan
}

// svmEvalError bounds |computed − exact| of the SVM oracle (Eval and
// EvalGrid) for every query, for n records of dimension ℓ, Σ|α_i| ≤ C and
// intercept constant icpt: each kernel value carries absolute error
// ≤ (5ℓ + 5)u (the exponent t ≥ 0 is computed with relative error γ_{ℓ+3},
// and t·e^{−t} ≤ 1/e; a per-axis product adds 2u per factor), the n-term
// sum adds γ_n·C, and the upper bound fl(C/n) may differ from C/n by u
// relative; the bias icpt·Σcoef is a compensated sum (≤ 3u·icpt·C) added
// with one more rounding. Total ≤ C·(1 + icpt)·γ_{n+5ℓ+12}.
func svmEvalError(n, dim int, c, icpt float64) float64 {
	return c * (1 + icpt) * ermGamma(n+5*dim+12)
}

// svmInterceptNote is the intercept's part of the sensitivity note.
func svmInterceptNote(icpt float64) string {
	if icpt == 0 {
		return "RBF κ = 1, no intercept"
	}
	return fmt.Sprintf("kernel RBF + c with public intercept constant c = %g, κ² = 1 + c", icpt)
}
