package learners

// Public fallbacks of the ERM solvers (issue 13 item 5: no release may fail
// because of private values after the public checks).
//
// Each ERM learner first runs its fast solver (Newton for logistic and
// ridge, dual coordinate ascent for the SVM) within a public budget and
// certifies that the solution ŵ is within a public radius r of the exact
// minimiser w*. If the certificate is not reached, Fit does not fail:
// it runs a second, slower method for a public number of iterations T whose
// distance from w* is bounded a priori — for every dataset, by a
// convergence theorem rather than a certificate — by a public radius r_fb.
// Both branches are within max(r, r_fb) of w*, so the sensitivity bound
// S = λ·(stab + 2·max(r, r_fb)) + fp holds for every pair of neighbours,
// whichever branch each of them took; r_fb ≤ r for all practical sizes, and
// S is then unchanged. The branch taken is never published (only the
// released function, through the mechanism). Derivations: docs/sensitivity.md
// ("Public solver budgets and fallbacks").

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// ermForceFallback is a test seam: when non-nil and true for a dataset, the
// ERM learners discard their primary solver's result as if it had not been
// certified and release the fallback. It is nil outside tests.
var ermForceFallback func(Dataset) bool

func ermFallbackForced(d Dataset) bool { return ermForceFallback != nil && ermForceFallback(d) }

// errUncertified reports that a primary solver did not reach its certificate
// within the public budget; Fit then uses the public fallback.
var errUncertified = errors.New("solver did not certify within the public budget")

// ermGDPlan is the public plan of the linear fallback: T steps of gradient
// descent with step α from w = 0, a priori within radius of w*.
type ermGDPlan struct {
	step   float64 // α ≤ 2/(M + 1)
	iters  int     // T
	radius float64 // a priori bound on ‖ŵ_T − w*‖, floating point included
}

// ermLinearGDPlan returns the fallback plan for P(w) = (C/n) Σ L + ½‖w‖² on
// lifted features (‖x̃‖ ≤ 1) of dimension dim + 1, where the loss has
// curvature ∂²L/∂z² ≤ curv (so μ = 1 ≤ ∇²P ≤ M = 1 + C·curv), |∂L/∂z| ≤
// psi(B) for ‖w‖ ≤ B, ‖w*‖ ≤ wStar, and the target radius is tau.
//
// With α ≤ 2/(M + 1) the gradient step is a contraction with factor
// q = 1 − α towards w* (the eigenvalues of I − α∇²P lie in [1 − αM, 1 − α]
// ⊂ [−q, q]); T = ⌈ln(2·wStar/tau)/(−ln q)⌉ + 1 makes q^T·wStar ≤ tau/2. A
// computed step errs by e ≤ α·E_g + 3u(‖ŵ‖ + α‖ĝ‖) (E_g the gradient's
// forward error, as in certifiedGradNorm), so ‖ŵ_T − w*‖ ≤ q^T·wStar +
// e/(1 − q); the iterates stay in ‖w‖ ≤ B = 2.002·wStar as long as
// e/(1 − q) ≤ 0.002·wStar, which holds for all 10⁻⁹ ≤ C ≤ 10⁶ and ℓ ≤ 6
// (TestErmFallbackPlanRoundoff). The radius doubles the rounding term.
func ermLinearGDPlan(dim int, c, curv, wStar float64, psi func(float64) float64, tau float64) ermGDPlan {
	u := ermRoundoff
	p := dim + 1
	m := 1 + c*curv
	step := 2 / (m + 1) * (1 - 8*u) // rounded below 2/(M+1)
	lnq := math.Log1p(-step)
	iters := 0
	if ratio := 2 * wStar / tau; ratio > 1 {
		iters = int(math.Ceil(math.Log(ratio)/-lnq)) + 1
	}
	b := 2.002 * wStar
	ps := psi(b)
	gErr := math.Sqrt(float64(p))*c*ermGamma(p+20)*(b+2) + ermGamma(2)*(b+c*ps)
	gNorm := b + c*ps + gErr
	rounding := 2 * (gErr + 3*u*(b/step+gNorm))
	radius := (math.Exp(float64(iters)*lnq)*wStar + rounding) * (1 + 1e-9)
	return ermGDPlan{step: step, iters: iters, radius: radius}
}

// gradientDescent runs plan from w = 0: w ← w − α·∇P(w), the gradient
// summed with compensated summation (the error model of ermLinearGDPlan).
func (q *ermLinearProblem) gradientDescent(ctx context.Context, plan ermGDPlan) ([]float64, error) {
	w := make([]float64, q.p)
	sums := make([]ermSum, q.p)
	k := q.c / float64(q.n)
	for range plan.iters {
		if err := ermCanceled(ctx, q.kind); err != nil {
			return nil, err
		}
		clear(sums)
		for i := range q.n {
			if i%ermCtxEvery == ermCtxEvery-1 {
				if err := ermCanceled(ctx, q.kind); err != nil {
					return nil, err
				}
			}
			r := q.row(i)
			d := k * q.loss.deriv(q.l[i], ermDot(w, r))
			for j, v := range r {
				sums[j].add(d * v)
			}
		}
		for j := range w {
			w[j] -= plan.step * (sums[j].value() + w[j])
		}
	}
	return w, nil
}

// solveLinear returns the primary solver's w if it certified ‖∇P(w)‖ ≤ tau
// (and the test seam does not force the fallback), else the fallback's
// gradient-descent iterate. Only cancellation is an error: a solver that
// fails or does not certify falls back.
func (q *ermLinearProblem) solveLinear(ctx context.Context, data Dataset, tau float64, plan ermGDPlan,
	primary func(ctx context.Context) (w []float64, cert float64, err error)) ([]float64, error) {
	w, cert, err := primary(ctx)
	if cerr := ermCanceled(ctx, q.kind); cerr != nil {
		return nil, cerr
	}
	if err == nil && cert <= tau && !ermFallbackForced(data) {
		return w, nil
	}
	return q.gradientDescent(ctx, plan)
}

// svmFISTAPlan is the public plan of the SVM fallback: at most iters
// iterations of accelerated projected gradient (FISTA) on the dual, a priori
// within radius (in the RKHS norm) of w*.
type svmFISTAPlan struct {
	iters  int
	radius float64
}

// svmFallbackPlan returns the SVM fallback plan for n records of dimension
// dim, C and target radius r (the certified branch's κ√(2g_max)).
//
// The dual F(α) = ½αᵀQα − 1ᵀα over the box [0, U]ⁿ has ∇F L-Lipschitz with
// L = n ≥ λ_max(Q) (|Q_ij| ≤ 1), and every feasible α satisfies
// ½‖w(α) − w*‖² ≤ F(α) − F* (docs/sensitivity.md, Lemma 6). FISTA from any
// feasible α₀ (‖α₀ − α*‖ ≤ R = √n·U = C/√n) with gradient errors
// ‖e_k‖ ≤ E and an exact projection satisfies F(α_T) − F* ≤
// 2L/(T+1)²·(R + 2A_T)², A_T = Σ_{k≤T} k‖e_k‖/L (Schmidt, Le Roux & Bach
// 2011, Prop. 2), hence ‖w(α_T) − w*‖ ≤ 2C/(T + 1) + 2T·E/√n.
// T + 1 = ⌈4C/r⌉ makes the first term ≤ r/2. E bounds the computed gradient
// (compensated sums over |y_j| ≤ 2U, kernel error (ℓ+5)u), and the rounding
// of the extrapolation and of the step, both written as gradient errors;
// the radius doubles it.
//
// With the intercept constant icpt (kernel K + icpt, κ² = 1 + icpt) the
// same argument holds with L = n·κ² (|Q_ij| ≤ κ²): ‖w(α_T) − w*‖ ≤
// 2Cκ/(T + 1) + 2T·E/(κ√n), and E scales with κ² (every kernel value and
// product is κ² times larger); T + 1 = ⌈4Cκ/r⌉. For icpt = 0 this is the
// plan above, bit for bit.
func svmFallbackPlan(n, dim int, c, icpt, r float64) svmFISTAPlan {
	u := ermRoundoff
	nf := float64(n)
	k2 := 1 + icpt
	kappa := math.Sqrt(k2)
	iters := int(math.Ceil(4*c*kappa/r)) - 1
	e := 2 * math.Sqrt(nf) * u * (2*c*float64(dim+10)*(1+nf*u) + 26*c + 2) * k2
	radius := (2*c*kappa/float64(iters+1) + 2*float64(iters)*e/(kappa*math.Sqrt(nf))) * (1 + 1e-9)
	return svmFISTAPlan{iters: iters, radius: radius}
}

// svmFallbackDense is the largest n for which the fallback stores Q
// (n² float64s, 32 MiB); above it, rows are recomputed for every product.
const svmFallbackDense = 2048

// svmFallbackCheckEvery is how many FISTA iterations pass between duality-gap
// certificates: an iterate whose certified gap is ≤ g_max is within
// κ√(2g_max) of w* like any certified solution, and is released at once.
const svmFallbackCheckEvery = 25

// svmQ computes products with Q = (l_i l_j K_ij) for the fallback: from a
// stored matrix up to svmFallbackDense records, else row by row.
type svmQ struct {
	k       *svmKernel
	dense   []float64
	scratch []float64
}

func newSVMQ(k *svmKernel) *svmQ {
	q := &svmQ{k: k, scratch: make([]float64, k.n)}
	if k.n <= svmFallbackDense {
		q.dense = make([]float64, k.n*k.n)
		for i := range k.n {
			k.qRow(i, q.dense[i*k.n:(i+1)*k.n])
		}
	}
	return q
}

// gradient writes G = Qv − 1 into g with compensated sums.
func (q *svmQ) gradient(ctx context.Context, v, g []float64) error {
	n := q.k.n
	for i := range n {
		if i%64 == 0 {
			if err := ermCanceled(ctx, KindSVM); err != nil {
				return err
			}
		}
		row := q.scratch
		if q.dense != nil {
			row = q.dense[i*n : (i+1)*n]
		} else {
			q.k.qRow(i, row)
		}
		var s ermSum
		for j, x := range row {
			s.add(x * v[j])
		}
		g[i] = s.value() - 1
	}
	return nil
}

// svmFallback runs plan on the bias-free SVM dual (see svmFallbackPlan) from
// start (a feasible α; nil: the centre (U/2)·1) and returns the solution
// with α in [0, U] exactly. Every checkEvery iterations (0: never) it
// certifies the duality gap of the current iterate and stops early if it is
// ≤ gapTol; otherwise it runs all plan.iters iterations.
func svmFallback(ctx context.Context, data Dataset, c, sigma, icpt, gapTol float64, plan svmFISTAPlan, start []float64, checkEvery int) (*svmSolution, error) {
	n, dim := data.N(), data.Dim
	upper := svmUpper(c, n)
	k := &svmKernel{dim: dim, n: n, x: data.X, l: data.Labels, g: 1 / (2 * sigma * sigma), c: icpt}
	q := newSVMQ(k)
	x, prev, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = upper / 2
		if start != nil {
			x[i] = min(max(start[i], 0), upper)
		}
	}
	copy(y, x)
	grad := make([]float64, n)
	inv := 1 / (float64(n) * (1 + icpt)) // step 1/L, L = n·κ²
	sol := &svmSolution{fallback: true}
	for it := 1; it <= plan.iters; it++ {
		if err := q.gradient(ctx, y, grad); err != nil {
			return nil, err
		}
		copy(prev, x)
		for i := range n {
			x[i] = min(max(y[i]-grad[i]*inv, 0), upper)
		}
		beta := float64(it-1) / float64(it+2)
		for i := range n {
			y[i] = x[i] + beta*(x[i]-prev[i])
		}
		sol.iterations = it
		if checkEvery > 0 && it%checkEvery == 0 {
			if err := q.gradient(ctx, x, grad); err != nil {
				return nil, err
			}
			if g := svmCertifiedGap(c, icpt, upper, dim, x, grad); g <= gapTol {
				sol.gap = g
				break
			}
		}
	}
	for i, a := range x {
		if a > 0 {
			sol.sv = append(sol.sv, k.point(i)...)
			sol.coef = append(sol.coef, a*k.l[i])
		}
	}
	return sol, nil
}

// ermFallbackNote describes the linear fallback in the sensitivity note
// (public: it depends on n and the parameters only).
func ermFallbackNote(plan ermGDPlan, tau float64) string {
	if plan.radius > tau {
		return fmt.Sprintf("; uncertified fits fall back to %d public gradient steps, a priori within %.3g of w* (used as τ)", plan.iters, plan.radius)
	}
	return fmt.Sprintf("; uncertified fits fall back to %d public gradient steps, a priori within τ", plan.iters)
}
