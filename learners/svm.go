package learners

import (
	"context"
	"errors"
	"fmt"
	"math"
)

type svm struct{}

// NewSVM returns the RBF-kernel support vector machine of Section 6
// ("Regularized Empirical Risk Minimization", Fig. 2) of Aldà & Rubinstein
// (2017): Eq. 5 with the hinge loss L(l, z) = max(0, 1 − lz) in the RKHS of
//
//	K(x, y) = exp(−‖x − y‖²/(2σ²))       (κ² = sup K(y, y) = 1),
//
// released as F_D(y) = Σ α_i l_i K(y, d_i). Binary labels −1/+1, ℓ = 1…6,
// parameters C and σ (defaults C = σ = 1, as in Fig. 2). There is no bias
// term: Eq. 5 does not regularise a bias, so the strong-convexity argument
// does not cover it, and an unregularised bias has unbounded sensitivity.
//
// Sensitivity (docs/sensitivity.md (regularised ERM learners) §SVM): the hinge loss is 1-Lipschitz
// (M = 1), the objective is 1-strongly convex in the RKHS, so replace-one
// neighbours have ‖w − w'‖_H ≤ 2MCκ/n and sup_y |f_w(y) − f_w'(y)| ≤
// 2MCκ²/n = 2C/n. This is twice the value printed in Section 6 (MC/n·sup K),
// which is the bound for removing one record, not replacing it; the factor
// 2 is attained (C ≤ 1, one label flipped, see svm_audit_test.go). The
// solver certifies a duality gap g ≤ g_max = (0.05·C/n)²/2, a public
// tolerance, so each released function is within κ√(2g_max) = 0.05·C/n of
// the exact one and
//
//	S = (2C/n)·(1 + 0.05) + fp        (C > 1),
//	S = 2C/n + fp                     (C ≤ 1: the dual optimum is α = C/n
//	                                   exactly, see svmSolve),
//
// where fp ≤ 2C·γ_{n+5ℓ+10} bounds floating-point evaluation error.
//
// If the solver cannot certify the gap within its public budget of updates,
// Fit releases the public fallback instead (accelerated projected gradient
// on the dual for a public number of iterations, a priori within
// 0.05·C/n of the exact solution; svmFallback): no data value makes Fit
// fail.
func NewSVM() Learner { return svm{} }

func (svm) Spec() Spec {
	return Spec{
		Kind:  KindSVM,
		Title: "Support vector machine (RBF kernel)",
		Description: "Kernel SVM with the Gaussian (RBF) kernel and the hinge loss, regularised as in Eq. 5, " +
			"without a bias term. Releases the decision function Σ α_i l_i K(y, d_i); class +1 where it is ≥ 0.",
		MinDim: 1,
		MaxDim: 6,
		Label:  LabelBinary,
		Params: []ParamSpec{
			ermParamC(),
			{
				Name:    "sigma",
				Label:   "Kernel width σ",
				Help:    "Width of the Gaussian kernel exp(−‖x − y‖²/(2σ²)) in mapped units ([0,1] per feature). Small σ gives a wiggly decision function that needs a finer Bernstein lattice.",
				Default: 1,
				Min:     1e-3,
				Max:     100,
			},
		},
		Output: OutputSpec{
			Name:    "score",
			Meaning: "The SVM decision value Σ α_i l_i K(y, d_i); class +1 where ≥ 0, else −1.",
			Kind:    OutputClassScore,
		},
	}
}

// svmBounds returns, for n records of dimension dim and parameter C, the
// stability term 2MCκ²/n (M = κ = 1), the public duality-gap tolerance
// g_max, the solver term 2κ·max(√(2g_max), r_fb) of S(F) and the public
// fallback plan (radius r_fb ≤ √(2g_max) unless n is in the hundreds of
// thousands). For C ≤ 1 the solver returns the exact optimum (see svmSolve)
// and the tolerance, the solver term and the plan are 0.
func svmBounds(n, dim int, c float64) (stab, gapTol, solverTerm float64, plan svmFISTAPlan) {
	stab = 2 * c / float64(n)
	if c <= 1 {
		return stab, 0, 0, svmFISTAPlan{}
	}
	half := ermSVMGapShare * stab / 2 // κ√(2g_max)
	gapTol = half * half / 2
	plan = svmFallbackPlan(n, dim, c, half)
	return stab, gapTol, 2 * math.Max(half, plan.radius), plan
}

// svmEvalError bounds |computed − exact| of the SVM oracle (Eval and
// EvalGrid) for every query, for n records of dimension ℓ and Σ|α_i| ≤ C:
// each kernel value carries absolute error ≤ (5ℓ + 5)u (the exponent
// t ≥ 0 is computed with relative error γ_{ℓ+3}, and t·e^{−t} ≤ 1/e; a
// per-axis product adds 2u per factor), the n-term sum adds γ_n·C, and the
// upper bound fl(C/n) may differ from C/n by u relative. Total
// ≤ C·γ_{n+5ℓ+10}.
func svmEvalError(n, dim int, c float64) float64 {
	return c * ermGamma(n+5*dim+10)
}

func (sv svm) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	spec := sv.Spec()
	res, err := spec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	if err := ermCheckData(spec.Kind, data, spec.Label, spec.MinDim, spec.MaxDim); err != nil {
		return nil, err
	}
	c, sigma := res.Scalar("C"), res.Scalar("sigma")
	n := data.N()
	stab, gapTol, solverTerm, plan := svmBounds(n, data.Dim, c)

	sol, err := svmSolve(ctx, data, c, sigma, gapTol)
	if c > 1 && (errors.Is(err, errUncertified) || (err == nil && ermFallbackForced(data))) {
		var start []float64 // the primary's last α if uncertified, else the centre
		if err != nil {
			start = sol.alpha
		}
		sol, err = svmFallback(ctx, data, c, sigma, gapTol, plan, start, svmFallbackCheckEvery)
	}
	if err != nil {
		return nil, err
	}
	fp := 2 * svmEvalError(n, data.Dim, c)
	s := stab + solverTerm + fp
	var note string
	if c <= 1 {
		note = fmt.Sprintf("S = 2MCκ²/n + fp = 2·%g/%d + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, RBF κ = 1; twice the paper's removal bound); C ≤ 1 so the dual optimum α = C/n is exact (no solver term)",
			c, n, fp, s)
	} else {
		note = fmt.Sprintf("S = 2MCκ²/n + 2κ√(2g) + fp = 2·%g/%d + %.3g + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, RBF κ = 1; twice the paper's removal bound); duality gap certified ≤ g = %.3g (public tolerance); "+
			"uncertified fits fall back to %d public FISTA iterations, a priori within %.3g of w*",
			c, n, solverTerm, fp, s, gapTol, plan.iters, plan.radius)
	}
	// |f| ≤ Σα_i ≤ C, and |f| ≤ ‖ŵ‖κ with ‖ŵ‖ ≤ ‖w*‖ + solverTerm/2 and
	// ½‖w*‖² ≤ P(w*) ≤ P(0) = C.
	r := math.Min(c, math.Sqrt(2*c)+solverTerm/2) + fp/2
	return &Fitted{
		Oracle:          newSVMOracle(data.Dim, sigma, sol),
		Sensitivity:     s,
		SensitivityNote: note,
		OutputRange:     [2]float64{-r, r},
		N:               n,
	}, nil
}
