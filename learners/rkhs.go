package learners

import (
	"fmt"
	"math"
)

// RKHSSensitivity is what the Gaussian-process release of Hall, Rinaldo &
// Wasserman (mechanism/peers, GPRelease) needs from a learner: a proven
// bound Delta ≥ sup_{D∼D′} ‖F_D − F_D′‖_{H(K)} over replace-one neighbours
// of size n, and the kernel K itself,
//
//	K(x, y) = Amplitude · ∏_j exp(−(x_j − y_j)²/(2·Sigmas[j]²)),
//
// which must be used unchanged as the covariance of the released process:
// the bound holds in the RKHS of exactly this function (scaling K by a
// scales every RKHS norm by 1/√a). Like Fitted.Sensitivity, it depends only
// on n, the parameters and the public bounds, never on data values.
type RKHSSensitivity struct {
	Delta     float64   // RKHS-norm sensitivity Δ_H
	Amplitude float64   // A of K
	Sigmas    []float64 // σ_j of K, one per axis
	Note      string    // the formula with its numbers, for ledgers and UIs
}

// rkhsMargin is a relative margin on every Δ_H: it absorbs the rounding in
// computing the bound itself (a handful of operations, each ≤ u = 2⁻⁵³).
const rkhsMargin = 1e-12

// RKHSPeer returns the RKHS-norm sensitivity and the kernel of learner kind
// for n records of dimension dim and parameter values (validated like Fit
// does, Spec.Resolve). Only the learners whose F_D lies in a Gaussian RKHS
// are supported:
//
//   - kde: F_D = (1/n)Σ K(d_i, ·) with the KDE's own kernel, A = ∏_j
//     1/(√(2π)·b_j), σ_j = b_j. Replacing d by d′ changes F_D by
//     (K(d,·) − K(d′,·))/n, whose squared norm is (2A − 2K(d,d′))/n² ≤
//     2A(1 − e^{−q})/n², q = Σ_j 1/(2b_j²), because |d_j − d′_j| ≤ 1 in
//     [0,1]^ℓ. So Δ_H = √(2A(1 − e^{−q}))/n, attained at opposite corners.
//     Hall et al. (Section 3) use (2/n)·sup‖K(x,·)‖ = 2√A/n, at least √2
//     times larger; the exact value is used.
//   - svm without intercept (parameter intercept = 0; c > 0 is refused
//     because F_D then lies in the RKHS of K + c, not of K):
//     F_D = w_D = Σ α_i l_i K(d_i, ·) with the SVM's RBF kernel,
//     A = 1, σ_j = σ. The objective (C/n)Σ hinge + ½‖w‖² is 1-strongly
//     convex and the hinge is 1-Lipschitz with κ = sup √K(x,x) = 1, so
//     ‖w*_D − w*_D′‖ ≤ 2C/n (Hall et al.'s L·κ/(nλ) with λ = 1/(2C)); the
//     solver's certified duality gap g ≤ g_max moves each fitted function
//     by ≤ √(2g_max), and the exact corner solution for C ≤ 1 uses
//     U = fl(C/n) ≤ C/n (≤ C·u in norm per fit). So
//     Δ_H = 2C/n + 2√(2g_max) + 2C·u.
//
// Derivations: docs/sensitivity.md, "RKHS-norm sensitivities". Errors name
// the kind, the value and the rule.
func RKHSPeer(kind Kind, n int, values Values, dim int) (RKHSSensitivity, error) {
	if n < 1 {
		return RKHSSensitivity{}, fmt.Errorf("%s: n = %d records: the RKHS sensitivity needs at least 1", kind, n)
	}
	switch kind {
	case KindKDE:
		res, err := kdeSpec.Resolve(values, dim)
		if err != nil {
			return RKHSSensitivity{}, err
		}
		bw := res["bandwidth"]
		a, q := 1.0, 0.0
		for _, b := range bw {
			a *= gaussPeak(b)
			q += 1 / (2 * b * b)
		}
		d := math.Sqrt(2*a*-math.Expm1(-q)) / float64(n) * (1 + rkhsMargin)
		return RKHSSensitivity{
			Delta:     d,
			Amplitude: a,
			Sigmas:    append([]float64(nil), bw...),
			Note: fmt.Sprintf("Δ_H = √(2A(1 − e^{−Σ 1/(2b_j²)}))/n = %.6g, A = %s = %.6g, n = %d "+
				"(replace-one; RKHS of the KDE kernel itself; Hall et al.'s 2√A/n would be %.6g)", d, kernelPeakWords, a, n, 2*math.Sqrt(a)/float64(n)),
		}, nil
	case KindSVM:
		spec := svm{}.Spec()
		res, err := spec.Resolve(values, dim)
		if err != nil {
			return RKHSSensitivity{}, err
		}
		c, sigma := res.Scalar("C"), res.Scalar("sigma")
		if icpt := res.Scalar("intercept"); icpt != 0 {
			// F_D lies in the RKHS of K + c, not of the Gaussian K that the
			// release uses as its covariance.
			return RKHSSensitivity{}, paramError(kind, "intercept", formatValue(icpt),
				"the Gaussian-process release needs the SVM without intercept (intercept = 0): with K + c the decision function is not in the RKHS of the Gaussian kernel")
		}
		stab, gapTol, solverTerm, _ := svmBounds(n, dim, c, 0)
		d := (stab + solverTerm + 2*c*ermRoundoff) * (1 + rkhsMargin)
		sig := make([]float64, dim)
		for j := range sig {
			sig[j] = sigma
		}
		return RKHSSensitivity{
			Delta:     d,
			Amplitude: 1,
			Sigmas:    sig,
			Note: fmt.Sprintf("Δ_H = 2C/n + 2√(2g) + 2Cu = 2·%g/%d + %.3g = %.6g: replace-one stability of the 1-strongly convex "+
				"objective in the RBF RKHS (hinge L = 1, κ = 1), certified duality gap g = %.3g or the public fallback; GP kernel = SVM kernel (A = 1, σ = %g)",
				c, n, solverTerm, d, gapTol, sigma),
		}, nil
	}
	return RKHSSensitivity{}, fmt.Errorf("%s: no RKHS-norm sensitivity: the Gaussian-process release supports only %s and %s", kind, KindKDE, KindSVM)
}
