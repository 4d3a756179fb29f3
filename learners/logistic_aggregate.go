package learners

// Logistic regression from aggregates (issue 20): Newton's method where
// every iteration is one pass of an SQL engine over the records, returning
// the sums of the gradient and of the Hessian at the current weights. The
// loop is here, engine-agnostic (LogisticPasser); project/aggregate writes
// the pass's query and project/aggregate/duckdb runs it.

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LogisticCoef are the coefficients of one pass: the margin of a record
// with mapped features x ∈ [0,1]^ℓ is z = A0 + Σ_j A[j]·x_j, the lifted
// weights' ⟨w, x̃⟩ written in mapped units (logisticCoefOf).
type LogisticCoef struct {
	A0 float64
	A  []float64
}

// L1 returns |A0| + Σ|A_j|, the bound on |z| and the scale of its rounding.
func (c LogisticCoef) L1() float64 {
	s := math.Abs(c.A0)
	for _, a := range c.A {
		s += math.Abs(a)
	}
	return s
}

// LogisticSums are what one pass returns, in mapped units, with l = ±1
// the label, z the margin of LogisticCoef, ψ = ∂L/∂z = −l·σ(−l·z) the
// log-loss derivative and h = σ(z)(1 − σ(z)) its curvature:
// G[0] = Σψ, G[j] = Σψ·x_j (j = 1…ℓ), H[0] = Σh, H[j] = Σh·x_j and
// HXX = Σh·x_j·x_k (j ≤ k, row by row as RidgeMoments.SumXX).
// G is certified (LogisticPasser.TermError); H only steers Newton.
type LogisticSums struct {
	Records int64
	G       []float64 // ℓ + 1
	H       []float64 // ℓ + 1
	HXX     []float64 // ℓ(ℓ+1)/2
}

// LogisticPasser runs one pass over the records: the sums at the given
// coefficients. TermError is its public error model: for coefficients
// with L1() ≤ a, every delivered G sum is within n·TermError(a) of the
// exact sum of the exact terms (the engine's rounding of the margin, the
// exponential, the products, the exact-decimal cast and the reading back).
type LogisticPasser interface {
	Pass(ctx context.Context, coef LogisticCoef) (LogisticSums, error)
	TermError(a float64) float64
}

// LogisticAggregates describes the records a LogisticPasser reads: ℓ and
// the public, declared n (every pass must count exactly n records).
type LogisticAggregates struct {
	Dim int
	N   int
}

// logisticAggNewtonPasses is the public budget of Newton passes (the
// certifying pass included); beyond it the public gradient-descent
// fallback runs, one pass per step. A variable for the fallback test only.
var logisticAggNewtonPasses = 40

// FitLogisticAggregates fits NewLogistic from passes over the records
// (docs/sensitivity.md, "Logistic regression from aggregates"): damped
// Newton steps from w = 0, each pass giving ∇P(w) and ∇²P(w) of the
// in-memory objective P(w) = (C/n)Σ log(1 + e^{−l⟨w, x̃⟩}) + ½‖w‖² on the
// same lift x̃ = (2x − 1, b)/√(ℓ + b²); it stops at the first pass whose
// gradient certifies ‖∇P(w)‖ ≤ τ (logisticBounds's τ, the in-memory rule)
// with the passer's error model added. If logisticAggNewtonPasses passes
// do not certify, the public plan of gradient steps (logisticPlan) runs
// on passes, a priori within its radius (with the passes' error) of w*.
// S, the note, the range and the stand-in are logisticFitted's, as for
// the in-memory fit with the same n, C, b and output; S is the in-memory
// S whenever the aggregate fallback's radius stays below τ.
//
// Guarantee: the released ŵ is within r of w* (r as in the note), like
// the in-memory fit's; so both fits' scores differ by at most 2r at every
// query. The number of passes depends on the data and is published
// nowhere (nor is whether the fallback ran).
//
// Errors: parameters (Resolve), ℓ outside 1…6, n < 1, a pass's error, a
// pass whose record count is not the declared n, or sums of the wrong
// size or not finite.
func FitLogisticAggregates(ctx context.Context, agg LogisticAggregates, passer LogisticPasser, values Values) (*Fitted, error) {
	spec := logistic{}.Spec()
	res, err := spec.Resolve(values, agg.Dim)
	if err != nil {
		return nil, err
	}
	if agg.Dim < spec.MinDim || agg.Dim > spec.MaxDim {
		return nil, fmt.Errorf("%s: %d feature columns; this learner needs between %d and %d", spec.Kind, agg.Dim, spec.MinDim, spec.MaxDim)
	}
	if agg.N < 1 {
		return nil, fmt.Errorf("%s: n = %d; the public number of records must be at least 1", spec.Kind, agg.N)
	}
	c, prob, b := res.Scalar("C"), res.Scalar("output") == logisticOutputProbability, res.Scalar("intercept")
	n := agg.N
	stab, tau, wStar := logisticBounds(n, c)
	plan := logisticPlan(agg.Dim, c, wStar, tau)
	q := &logisticAggProblem{dim: agg.Dim, p: agg.Dim + 1, n: float64(n), records: int64(n), c: c, b: b, passer: passer}
	gd := q.gdRadius(plan, wStar)
	r := math.Max(math.Max(tau, plan.radius), gd)

	w, cert, err := q.newton(ctx, tau)
	if err != nil {
		return nil, err
	}
	if cert > tau {
		if w, err = q.gradientDescent(ctx, plan); err != nil {
			return nil, err
		}
	}
	return logisticFitted(agg.Dim, n, c, b, prob, w, r, stab, tau, plan, " (fitted by Newton passes over aggregates)"), nil
}

// logisticAggProblem is P(w) seen through passes.
type logisticAggProblem struct {
	dim, p  int
	n       float64
	records int64
	c, b    float64
	passer  LogisticPasser
}

// scale returns s = 1/√(ℓ + b²), ermLiftB's.
func (q *logisticAggProblem) scale() float64 { return 1 / math.Sqrt(float64(q.dim)+q.b*q.b) }

// coef writes ⟨w, x̃⟩ = s·(Σ w_j(2x_j − 1) + b·w_ℓ) as A0 + Σ A_j x_j:
// A_j = 2s·w_j, A0 = s·(b·w_ℓ − Σ w_j).
func (q *logisticAggProblem) coef(w []float64) LogisticCoef {
	s := q.scale()
	a := make([]float64, q.dim)
	sum := 0.0
	for j := range q.dim {
		a[j] = 2 * s * w[j]
		sum += w[j]
	}
	return LogisticCoef{A0: s * (q.b*w[q.dim] - sum), A: a}
}

// pass runs one pass at w and checks its shape and count.
func (q *logisticAggProblem) pass(ctx context.Context, w []float64) (LogisticSums, LogisticCoef, error) {
	if err := ermCanceled(ctx, KindLogistic); err != nil {
		return LogisticSums{}, LogisticCoef{}, err
	}
	coef := q.coef(w)
	s, err := q.passer.Pass(ctx, coef)
	if err != nil {
		return s, coef, err
	}
	k := KindLogistic
	if s.Records != q.records {
		return s, coef, fmt.Errorf("%s: the pass counted %d records but the declared n is %d: n is public and declared, never taken from the aggregates", k, s.Records, q.records)
	}
	if len(s.G) != q.p || len(s.H) != q.p || len(s.HXX) != q.dim*(q.dim+1)/2 {
		return s, coef, fmt.Errorf("%s: a pass returned sums of the wrong size for %d features (%d, %d and %d)", k, q.dim, len(s.G), len(s.H), len(s.HXX))
	}
	for _, v := range [][]float64{s.G, s.H, s.HXX} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return s, coef, fmt.Errorf("%s: a sum of a pass is %v, not a finite number", k, x)
			}
		}
	}
	return s, coef, nil
}

// gradient writes ĝ = (C/n)·Σψ·x̃ + w into g, lifting the mapped sums:
// Σψ·x̃_j = s(2G_j − G_0), Σψ·x̃_ℓ = s·b·G_0.
func (q *logisticAggProblem) gradient(g, w []float64, s LogisticSums) {
	sc, k := q.scale(), q.c/q.n
	for j := range q.dim {
		g[j] = k*(sc*(2*s.G[j+1]-s.G[0])) + w[j]
	}
	g[q.dim] = k*(sc*q.b*s.G[0]) + w[q.dim]
}

// gradErr bounds ‖ĝ − ∇P(w)‖ for a pass at coefficients of L1 norm ≤ a
// and ‖w‖ ≤ bw. Each G sum errs by ≤ E = n·(TermError(a) + ¼·δz), δz =
// γ_{ℓ+8}·a the rounding of the coefficients themselves (ψ is
// ¼-Lipschitz in z), and |G| ≤ n. A lifted coordinate combines two sums
// with weights ≤ 2s and s·b (s ≤ 1, s·b ≤ 1): error ≤ 3E + γ_6·3n; times
// C/n, plus γ_2·(|w_j| + 3C) for the scaling and the addition of w; times
// √p for the norm, and doubled.
func (q *logisticAggProblem) gradErr(a, bw float64) float64 {
	e := q.n * (q.passer.TermError(a) + 0.25*ermGamma(q.dim+8)*a)
	k := q.c / q.n
	coord := k*(3*e+ermGamma(6)*3*q.n) + ermGamma(2)*(bw+3*q.c)
	return 2 * math.Sqrt(float64(q.p)) * coord
}

// certify returns an upper bound on the exact ‖∇P(w)‖ from the pass at w.
func (q *logisticAggProblem) certify(w []float64, s LogisticSums, coef LogisticCoef) float64 {
	g := make([]float64, q.p)
	q.gradient(g, w, s)
	wn := math.Sqrt(ermDot(w, w)) * (1 + ermGamma(q.p+2))
	return math.Sqrt(ermDot(g, g))*(1+ermGamma(q.p+4)) + q.gradErr(coef.L1()*(1+ermGamma(q.p+4)), wn)
}

// hessian writes I + (C/n)·Σh·x̃x̃ᵀ, lifted from the mapped sums like
// RidgeMoments's Gram matrix: x̃_jx̃_k = s²(4x_jx_k − 2x_j − 2x_k + 1),
// x̃_jx̃_ℓ = s²·b(2x_j − 1), x̃_ℓ² = s²b².
func (q *logisticAggProblem) hessian(h *mat.SymDense, s LogisticSums) {
	d := q.dim
	s2, k := q.scale()*q.scale(), q.c/q.n
	hxx := func(j, l int) float64 {
		if j > l {
			j, l = l, j
		}
		return s.HXX[j*d-j*(j-1)/2+(l-j)]
	}
	for j := range d {
		for l := j; l < d; l++ {
			v := k * s2 * (4*hxx(j, l) - 2*s.H[j+1] - 2*s.H[l+1] + s.H[0])
			if j == l {
				v++
			}
			h.SetSym(j, l, v)
		}
		h.SetSym(j, d, k*s2*q.b*(2*s.H[j+1]-s.H[0]))
	}
	h.SetSym(d, d, 1+k*s2*q.b*q.b*s.H[0])
}

// newton runs damped Newton passes from w = 0 until a pass certifies
// ‖∇P(w)‖ ≤ tau or the budget is spent; it returns the last w and its
// certificate. The step w ← w − t·d, d = H⁻¹∇P, t = ln(1 + β)/β with
// β = ‖d‖, is the damped Newton step of generalised self-concordant
// functions (Sun & Tran-Dinh 2019, "Generalized self-concordant functions",
// Math. Program.; the log-loss on ‖x̃‖ ≤ 1 is (1, 2)-self-concordant): it decreases P from any start and tends to the
// full step near w*, where convergence is quadratic.
func (q *logisticAggProblem) newton(ctx context.Context, tau float64) ([]float64, float64, error) {
	w := make([]float64, q.p)
	g := make([]float64, q.p)
	h := mat.NewSymDense(q.p, nil)
	var chol mat.Cholesky
	cert := math.Inf(1)
	for range logisticAggNewtonPasses {
		s, coef, err := q.pass(ctx, w)
		if err != nil {
			return nil, 0, err
		}
		if cert = q.certify(w, s, coef); cert <= tau {
			return w, cert, nil
		}
		q.gradient(g, w, s)
		q.hessian(h, s)
		if !chol.Factorize(h) {
			return w, cert, nil // cannot happen (H ⪰ I); the fallback decides
		}
		var d mat.VecDense
		if err := chol.SolveVecTo(&d, mat.NewVecDense(q.p, g)); err != nil {
			return w, cert, nil
		}
		beta := mat.Norm(&d, 2)
		t := 1.0
		if beta > 1e-8 {
			t = math.Log1p(beta) / beta
		}
		for j := range w {
			w[j] -= t * d.AtVec(j)
		}
	}
	return w, cert, nil
}

// gdRadius is the a-priori radius of the public gradient-descent plan run
// on passes: ermLinearGDPlan's bound with the passes' gradient error at
// ‖w‖ ≤ B = 2.002·wStar (coefficients of L1 norm ≤ 3√p·B, as
// |A0| + Σ|A_j| ≤ s(b|w_ℓ| + 3Σ|w_j|)) in place of the per-record one.
func (q *logisticAggProblem) gdRadius(plan ermGDPlan, wStar float64) float64 {
	u := ermRoundoff
	bw := 2.002 * wStar
	gErr := q.gradErr(3*math.Sqrt(float64(q.p))*bw, bw)
	gNorm := bw + q.c + gErr
	rounding := 2 * (gErr + 3*u*(bw/plan.step+gNorm))
	return (math.Exp(float64(plan.iters)*math.Log1p(-plan.step))*wStar + rounding) * (1 + 1e-9)
}

// gradientDescent runs plan from w = 0, one pass per step.
func (q *logisticAggProblem) gradientDescent(ctx context.Context, plan ermGDPlan) ([]float64, error) {
	w := make([]float64, q.p)
	g := make([]float64, q.p)
	for range plan.iters {
		s, _, err := q.pass(ctx, w)
		if err != nil {
			return nil, err
		}
		q.gradient(g, w, s)
		for j := range w {
			w[j] -= plan.step * g[j]
		}
	}
	return w, nil
}
