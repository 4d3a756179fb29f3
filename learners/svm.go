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
// parameters C and σ (defaults C = σ = 1, as in Fig. 2). There is no
// unregularised bias term: Eq. 5 does not regularise a bias, so the
// strong-convexity argument does not cover it, and an unregularised bias
// has unbounded sensitivity. A regularised intercept is the parameter
// "intercept" c ≥ 0 (kernel K + c, κ² = 1 + c; default 0: none), with every
// bound below multiplied by κ² (svm_intercept.go).
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
// The release's Laplace and Gaussian noise are calibrated to the smaller
// lattice bounds L₁(k) and L₂(k) of the kernel score (svm_lattice.go,
// docs/sensitivity.md, "Lattice sensitivity of the SVM's kernel score").
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
			"optionally with a regularised intercept (kernel K + c). Releases the decision function Σ α_i l_i K(y, d_i); class +1 where it is ≥ 0.",
		MinDim: 1,
		MaxDim: 6,
		Label:  LabelBinary,
		Params: []ParamSpec{
			ermParamC(),
			svmParamIntercept(),
			{
				Name:     "sigma",
				Label:    "Kernel width σ",
				Help:     "Width of the Gaussian kernel exp(−‖x − y‖²/(2σ²)) in mapped units ([0,1] per feature). Small σ gives a wiggly decision function that needs a finer Bernstein lattice.",
				Default:  1,
				Min:      1e-3,
				Max:      100,
				Auto:     rbfWidthDefault,
				AutoRule: rbfWidthRule,
			},
		},
		Output: OutputSpec{
			Name:    "score",
			Meaning: "The SVM decision value Σ α_i l_i K(y, d_i); class +1 where ≥ 0, else −1.",
			Kind:    OutputClassScore,
		},
	}
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
	c, sigma, icpt := res.Scalar("C"), res.Scalar("sigma"), res.Scalar("intercept")
	n := data.N()
	stab, gapTol, solverTerm, plan := svmBounds(n, data.Dim, c, icpt)

	sol, err := svmSolve(ctx, data, c, sigma, icpt, gapTol)
	if !svmExact(c, icpt) && (errors.Is(err, errUncertified) || (err == nil && ermFallbackForced(data))) {
		var start []float64 // the primary's last α if uncertified, else the centre
		if err != nil {
			start = sol.alpha
		}
		sol, err = svmFallback(ctx, data, c, sigma, icpt, gapTol, plan, start, svmFallbackCheckEvery)
	}
	if err != nil {
		return nil, err
	}
	fp := 2 * svmEvalError(n, data.Dim, c, icpt)
	s := stab + solverTerm + fp
	var note string
	k2 := 1 + icpt
	switch {
	case svmExact(c, icpt) && icpt == 0:
		note = fmt.Sprintf("S = 2MCκ²/n + fp = 2·%g/%d + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, RBF κ = 1; twice the paper's removal bound); C ≤ 1 so the dual optimum α = C/n is exact (no solver term)",
			c, n, fp, s)
	case svmExact(c, icpt):
		note = fmt.Sprintf("S = 2MCκ²/n + fp = 2·%g·%g/%d + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, %s; twice the paper's removal bound); Cκ² ≤ 1 so the dual optimum α = C/n is exact (no solver term)",
			c, k2, n, fp, s, svmInterceptNote(icpt))
	case icpt == 0:
		note = fmt.Sprintf("S = 2MCκ²/n + 2κ√(2g) + fp = 2·%g/%d + %.3g + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, RBF κ = 1; twice the paper's removal bound); duality gap certified ≤ g = %.3g (public tolerance); "+
			"uncertified fits fall back to %d public FISTA iterations, a priori within %.3g of w*",
			c, n, solverTerm, fp, s, gapTol, plan.iters, plan.radius)
	default:
		note = fmt.Sprintf("S = 2MCκ²/n + 2κ√(2g) + fp = 2·%g·%g/%d + %.3g + %.1g = %.6g: replace-one stability of the 1-strongly convex RKHS objective "+
			"(hinge M = 1, %s; twice the paper's removal bound); duality gap certified ≤ g = %.3g (public tolerance); "+
			"uncertified fits fall back to %d public FISTA iterations, a priori within %.3g of w* in the RKHS norm",
			c, k2, n, solverTerm, fp, s, svmInterceptNote(icpt), gapTol, plan.iters, plan.radius)
	}
	note += "; Laplace and Gaussian lattice noise use the tighter L₁(k), L₂(k) ≤ S of the kernel score " +
		"(docs/sensitivity.md, \"Lattice sensitivity of the SVM's kernel score\")"
	// |f| ≤ Σα_i·κ² ≤ Cκ², and |f| ≤ ‖ŵ‖κ with ‖ŵ‖ ≤ ‖w*‖ + solverTerm/(2κ)
	// and ½‖w*‖² ≤ P(w*) ≤ P(0) = C.
	l1, l2 := svmLatticeSensitivities(data.Dim, sigma, icpt, (stab+solverTerm)/math.Sqrt(k2), fp)
	r := math.Min(c*k2, math.Sqrt(2*c*k2)+solverTerm/2) + fp/2
	return &Fitted{
		Oracle:          newSVMOracle(data.Dim, sigma, icpt, sol),
		Sensitivity:     s,
		SensitivityNote: note,
		OutputRange:     [2]float64{-r, r},
		N:               n,
		StandIn:         svmStandIn(r, sigma, data.Dim),
		// The decision function is linear in the RKHS: tighter bounds on
		// the lattice's L1 and L2 change (svm_lattice.go).
		LatticeNoiseSensitivity:   l2,
		LatticeLaplaceSensitivity: l1,
	}, nil
}
