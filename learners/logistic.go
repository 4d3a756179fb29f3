package learners

import (
	"context"
	"fmt"
	"math"
)

// Logistic-regression output modes (parameter "output").
const (
	logisticOutputScore       = 0 // F_D(y) = ⟨w*, ỹ⟩
	logisticOutputProbability = 1 // F_D(y) = σ(⟨w*, ỹ⟩)
)

type logistic struct{}

// NewLogistic returns L2-regularised logistic regression (Section 6,
// "Logistic Regression", and Appendix G of Aldà & Rubinstein 2017):
//
//	w* = argmin_w (C/n) Σ log(1 + exp(−l_i⟨w, x̃_i⟩)) + ½‖w‖²,
//
// on the public lift x̃ = (2x − 1, 1)/√(ℓ+1) of the mapped features (see
// ermLift: ‖x̃‖ ≤ 1 with no data-dependent clipping; the constant coordinate
// is a regularised intercept; the parameter "intercept" sets the constant
// feature b of the lift (2x − 1, b)/√(ℓ + b²), default 1 as in earlier
// versions, 0 for none: logistic_intercept.go). Binary labels −1/+1,
// ℓ = 1…6, parameters C (default 1), intercept and output (0: linear score ⟨w*, ỹ⟩, default; 1: probability
// σ(⟨w*, ỹ⟩)).
//
// Sensitivity (docs/sensitivity.md (regularised ERM learners) §Logistic): the log-loss is
// 1-Lipschitz in the margin and ‖x̃‖ ≤ 1, so replace-one stability of the
// 1-strongly convex objective gives ‖w − w'‖ ≤ 2C/n (Chaudhuri, Monteleoni &
// Sarwate 2011, as quoted in Appendix G), and ‖ỹ‖ ≤ 1 for every query gives
//
//	S = (2C/n)·(1 + 0.01)       (score)
//	S = (C/(2n))·(1 + 0.01)     (probability, σ is ¼-Lipschitz)
//
// plus a floating-point term below 10⁻¹³·max(1, C). The factor 1.01 is the
// solver term: the fit certifies ‖∇P(w)‖ ≤ τ = 0.01·C/n, and then
// ‖w − w*‖ ≤ τ by strong convexity; if Newton's method cannot certify within
// its public budget, a public number of gradient steps from 0, a priori
// within τ of w*, is released instead (erm_fallback.go) — Fit never fails
// because of the data. Appendix G's C√ℓ/(2n) comes from
// bounding the unscaled query by √ℓ while the training points were assumed
// in the unit ball; lifting queries and data by the same public map removes
// the √ℓ.
func NewLogistic() Learner { return logistic{} }

func (logistic) Spec() Spec {
	return Spec{
		Kind:  KindLogistic,
		Title: "Logistic regression",
		Description: "L2-regularised logistic regression (Eq. 5 with the log-loss) on the features " +
			"rescaled to the unit ball, with a regularised intercept. Releases the linear score " +
			"or the probability of class +1; the score is linear in the query, so the Bernstein " +
			"approximation is exact and only the privacy noise remains.",
		MinDim: 1,
		MaxDim: 6,
		Label:  LabelBinary,
		Params: []ParamSpec{
			ermParamC(),
			logisticParamIntercept(),
			{
				Name:         "output",
				Label:        "Output",
				Help:         "What to release: the linear score ⟨w, y⟩ (class +1 where ≥ 0; exact under the Bernstein approximation) or the probability of class +1 (S(F) four times smaller).",
				Default:      logisticOutputScore,
				Min:          0,
				Max:          1,
				Integer:      true,
				Choices:      []float64{logisticOutputScore, logisticOutputProbability},
				ChoiceLabels: []string{"linear score", "probability"},
			},
		},
		Output: OutputSpec{
			Name: "score",
			Meaning: "With output = 0 the linear score ⟨w, y⟩ (class +1 where ≥ 0); with output = 1 " +
				"the probability of class +1 (class +1 where ≥ ½).",
			Kind: OutputClassScore,
		},
	}
}

// ermParamC is the regularisation parameter C of Eq. 5, shared by the three
// ERM learners.
func ermParamC() ParamSpec {
	return ParamSpec{
		Name:         "C",
		Label:        "Regularisation C",
		Help:         "Weight of the data term in (C/n)·Σ loss + ½‖w‖². Larger C fits the data more closely; the sensitivity grows in proportion to C (faster for ridge).",
		Default:      1,
		Min:          0,
		MinExclusive: true,
		Max:          1e6,
	}
}

// logisticLoss is L(l, z) = log(1 + e^{−lz}).
type logisticLoss struct{}

func (logisticLoss) value(l, z float64) float64 {
	m := -l * z
	if m > 0 {
		return m + math.Log1p(math.Exp(-m))
	}
	return math.Log1p(math.Exp(m))
}

func (logisticLoss) deriv(l, z float64) float64 { return -l * Sigmoid(-l*z) }

func (logisticLoss) curv(l, z float64) float64 {
	s := Sigmoid(z)
	return s * (1 - s)
}

// logisticBounds returns, for n records and parameter C, the stability term
// 2C/n of the score, the public gradient tolerance τ, and the public bound
// wStar ≥ ‖w*‖: P(w*) ≤ P(0) = C·log 2 gives ‖w*‖ ≤ √(2C·log 2).
func logisticBounds(n int, c float64) (stab, tau, wStar float64) {
	stab = 2 * c / float64(n)
	tau = ermGradShare * stab / 2
	wStar = logisticWStar(c)
	return
}

// logisticPlan is the public fallback of logistic regression: the
// log-loss has curvature ≤ ¼ and derivative |∂L/∂z| ≤ 1.
func logisticPlan(dim int, c, wStar, tau float64) ermGDPlan {
	return ermLinearGDPlan(dim, c, 0.25, wStar, func(float64) float64 { return 1 }, tau)
}

func (lr logistic) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	spec := lr.Spec()
	res, err := spec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	if err := ermCheckData(spec.Kind, data, spec.Label, spec.MinDim, spec.MaxDim); err != nil {
		return nil, err
	}
	c, prob, b := res.Scalar("C"), res.Scalar("output") == logisticOutputProbability, res.Scalar("intercept")
	n := data.N()
	stab, tau, wStar := logisticBounds(n, c)
	plan := logisticPlan(data.Dim, c, wStar, tau)
	r := math.Max(tau, plan.radius) // every released ŵ is within r of w*

	q := newErmLinearProblemB(spec.Kind, data, c, logisticLoss{}, b)
	w, err := q.solveLinear(ctx, data, tau, plan, func(ctx context.Context) ([]float64, float64, error) {
		return q.minimize(ctx, tau)
	})
	if err != nil {
		return nil, err
	}

	return logisticFitted(data.Dim, n, c, b, prob, w, r, stab, tau, plan, ""), nil
}

// logisticFitted is the one home of what a logistic fit releases, from
// records (Fit) or from aggregates (FitLogisticAggregates): the oracle of ŵ,
// S(F), its note (suffix says how ŵ was computed; public), the output
// range and the stand-in, for n records, C, intercept feature b, ŵ within
// r of w*, the stability term stab, the certificate tolerance τ and the
// public fallback plan.
func logisticFitted(dim, n int, c, b float64, prob bool, w []float64, r, stab, tau float64, plan ermGDPlan, suffix string) *Fitted {
	wMax := logisticWStar(c) + r
	// Score: |ŵ·ỹ − ŵ'·ỹ| ≤ (‖ŵ − w*‖ + ‖w* − w*'‖ + ‖w*' − ŵ'‖)·‖ỹ‖ ≤ 2r + 2C/n.
	fp := 2 * ermLinearEvalError(dim, wMax, prob)
	link, rng := 1.0, [2]float64{-wMax - fp/2, wMax + fp/2} // |z| ≤ ‖ŵ‖‖ỹ‖ ≤ wMax, plus rounding
	if prob {
		link, rng = 0.25, [2]float64{0, 1}
	}
	s := link*(stab+2*r) + fp
	note := fmt.Sprintf("S = %s(2C/n + 2τ) + fp = %s(2·%g/%d + 2·%.3g) + %.1g = %.6g: replace-one stability of the "+
		"1-strongly convex L2-regularised log-loss (M = 1, ‖x̃‖ ≤ 1, ‖ỹ‖ ≤ 1%s); τ = %g·C/n is the certified gradient-norm tolerance%s%s",
		linkText(prob), linkText(prob), c, n, r, fp, s, logisticInterceptNote(b), ermGradShare, ermFallbackNote(plan, tau), suffix)
	var lattice func(k []int) float64
	if !prob {
		// The score is affine in ỹ: a tighter bound on the lattice's L1
		// and L2 change (logistic_lattice.go).
		lattice = logisticLatticeSensitivity(dim, b, stab+2*r, fp)
		note += "; Laplace and Gaussian lattice noise use the tighter L(k) = ρ(k)·(2C/n + 2τ) + fp ≤ S of the affine score " +
			"(docs/sensitivity.md, \"Lattice sensitivity of the affine logistic score\")"
	}
	return &Fitted{
		Oracle:                  &ermLinearOracle{dim: dim, w: w, b: b, sigmoid: prob, r: r},
		Sensitivity:             s,
		SensitivityNote:         note,
		OutputRange:             rng,
		N:                       n,
		Output:                  logisticOutput(prob),
		StandIn:                 logisticStandIn(prob, math.Sqrt(c*math.Ln2), b, rng, dim),
		LatticeNoiseSensitivity: lattice,
	}
}

// logisticWStar is logisticBounds's public bound on ‖w*‖, √(2C·log 2).
func logisticWStar(c float64) float64 { return math.Sqrt(2 * c * math.Ln2) }

// logisticOutput describes what a fit returns for the chosen output mode.
func logisticOutput(prob bool) OutputSpec {
	if prob {
		return OutputSpec{Name: "probability", Kind: OutputProbability,
			Meaning: "The probability of class +1 (class +1 where ≥ ½)."}
	}
	return OutputSpec{Name: "score", Kind: OutputClassScore,
		Meaning: "The linear score ⟨w, y⟩ (class +1 where ≥ 0)."}
}

func linkText(prob bool) string {
	if prob {
		return "¼·"
	}
	return ""
}
