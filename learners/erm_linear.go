package learners

// Linear ERM models shared by logistic and ridge regression: the public
// feature lift, the objective of Eq. 5 with the identity feature map, its
// certified gradient, and the released linear oracle.

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// ermLiftB is the lift with a public constant feature b ≥ 0 (the logistic
// learner's "intercept" parameter):
//
//	x̃ = (2x_1 − 1, …, 2x_ℓ − 1, b) / √(ℓ + b²),
//
// so that ‖x̃‖² = (Σ(2x_j − 1)² + b²)/(ℓ + b²) ≤ 1 still holds and every
// Lipschitz and norm argument of docs/sensitivity.md is unchanged. The
// weight on the constant coordinate is an intercept of size w_b·b/√(ℓ+b²);
// a larger b makes it cheaper for the regulariser relative to the slopes.
// b = 1 is ermLift bit for bit (the lift of ridge regression and of logistic
// fits made before the parameter existed); b = 0 is no intercept.
func ermLiftB(x, out []float64, b float64) {
	p := len(x) + 1
	s := 1 / math.Sqrt(float64(len(x))+b*b)
	for j, v := range x {
		out[j] = (2*v - 1) * s
	}
	out[p-1] = b * s
}

// ermLoss is a convex loss L(l, z) of the margin z = ⟨w, x̃⟩.
type ermLoss interface {
	value(l, z float64) float64
	deriv(l, z float64) float64 // ∂L/∂z
	curv(l, z float64) float64  // ∂²L/∂z²
}

// ermLinearProblem is P(w) = (C/n) Σ L(l_i, ⟨w, x̃_i⟩) + ½‖w‖² on the lifted
// features; w has p = ℓ+1 entries.
type ermLinearProblem struct {
	kind   Kind
	p, n   int
	x      []float64 // n·p lifted features, row-major
	l      []float64 // n labels
	c      float64   // C
	loss   ermLoss
	margin []float64 // scratch: n margins
}

func newErmLinearProblem(kind Kind, data Dataset, c float64, loss ermLoss) *ermLinearProblem {
	return newErmLinearProblemB(kind, data, c, loss, 1)
}

// newErmLinearProblemB is newErmLinearProblem on the lift ermLiftB with
// the public constant feature b.
func newErmLinearProblemB(kind Kind, data Dataset, c float64, loss ermLoss, b float64) *ermLinearProblem {
	n, dim := data.N(), data.Dim
	p := dim + 1
	x := make([]float64, n*p)
	for i := range n {
		ermLiftB(data.X[i*dim:(i+1)*dim], x[i*p:(i+1)*p], b)
	}
	return &ermLinearProblem{kind: kind, p: p, n: n, x: x, l: data.Labels, c: c, loss: loss, margin: make([]float64, n)}
}

func (q *ermLinearProblem) row(i int) []float64 { return q.x[i*q.p : (i+1)*q.p] }

func ermDot(a, b []float64) float64 {
	var s float64
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

func (q *ermLinearProblem) margins(w []float64) {
	for i := range q.n {
		q.margin[i] = ermDot(w, q.row(i))
	}
}

// objective returns P(w) (plain summation; used by the optimiser only).
func (q *ermLinearProblem) objective(w []float64) float64 {
	q.margins(w)
	var s float64
	for i, z := range q.margin {
		s += q.loss.value(q.l[i], z)
	}
	return q.c/float64(q.n)*s + 0.5*ermDot(w, w)
}

// gradient writes ∇P(w) into g (plain summation; used by the optimiser).
func (q *ermLinearProblem) gradient(g, w []float64) {
	q.margins(w)
	clear(g)
	for i, z := range q.margin {
		d := q.loss.deriv(q.l[i], z)
		for j, v := range q.row(i) {
			g[j] += d * v
		}
	}
	k := q.c / float64(q.n)
	for j := range g {
		g[j] = k*g[j] + w[j]
	}
}

// hessian writes ∇²P(w) = I + (C/n) Σ ∂²L/∂z²(l_i, z_i) x̃_i x̃_iᵀ into h.
func (q *ermLinearProblem) hessian(h *mat.SymDense, w []float64) {
	q.margins(w)
	acc := make([]float64, q.p*q.p)
	for i, z := range q.margin {
		d := q.loss.curv(q.l[i], z)
		if d == 0 {
			continue
		}
		r := q.row(i)
		for a := range q.p {
			da := d * r[a]
			for b := a; b < q.p; b++ {
				acc[a*q.p+b] += da * r[b]
			}
		}
	}
	k := q.c / float64(q.n)
	for a := range q.p {
		for b := a; b < q.p; b++ {
			v := k * acc[a*q.p+b]
			if a == b {
				v++
			}
			h.SetSym(a, b, v)
		}
	}
}

// certifiedGradNorm returns an upper bound on the exact ‖∇P(w)‖₂ for the
// floating-point vector w: the gradient is summed with compensated
// summation and a forward-error margin is added. By 1-strong convexity,
// ‖w − w*‖ ≤ ‖∇P(w)‖ (⟨∇P(w) − ∇P(w*), w − w*⟩ ≥ ‖w − w*‖²), so the result
// bounds the distance of w from the exact minimiser.
//
// Error budget (Higham §3.1, §4.3), with p = ℓ+1, ‖x̃_i‖ ≤ 1 and ψ the loss
// derivative (|ψ| ≤ 1 for the log-loss, ≤ |z| + 1 for the square loss, both
// ≤ ‖w‖ + 2, and both 1-Lipschitz in z): each margin z_i is computed with
// error ≤ γ_{p+4}‖w‖, each ψ_i with error ≤ γ_{p+4}‖w‖ + 8u(‖w‖ + 2), each
// term (C/n)ψ_i x̃_ij with a further 4u relative error, and compensated
// summation adds ≤ 3u·Σ|terms| ≤ 3u·C(‖w‖+2) per coordinate. So each
// coordinate of the data part errs by ≤ C·γ_{p+20}(‖w‖+2), and ‖·‖₂ of the
// error by ≤ √p times that; the margin 4√p·C·γ_{p+24}·(‖w‖+2) dominates it
// by a factor ≥ 2. Adding w and taking the norm round with relative error
// ≤ γ_{p+4}, covered by the factor (1 + γ_{p+4}) on the computed norm.
func (q *ermLinearProblem) certifiedGradNorm(ctx context.Context, w []float64) (float64, error) {
	sums := make([]ermSum, q.p)
	k := q.c / float64(q.n)
	for i := range q.n {
		if i%ermCtxEvery == 0 {
			if err := ermCanceled(ctx, q.kind); err != nil {
				return 0, err
			}
		}
		r := q.row(i)
		d := k * q.loss.deriv(q.l[i], ermDot(w, r))
		for j, v := range r {
			sums[j].add(d * v)
		}
	}
	var nrm2, wn2 float64
	for j := range q.p {
		g := sums[j].value() + w[j]
		nrm2 += g * g
		wn2 += w[j] * w[j]
	}
	wn := math.Sqrt(wn2)
	margin := 4 * math.Sqrt(float64(q.p)) * q.c * ermGamma(q.p+24) * (wn + 2)
	return math.Sqrt(nrm2)*(1+ermGamma(q.p+4)) + margin, nil
}

// refineNewton performs up to steps exact Newton steps w ← w − H⁻¹∇P(w),
// stopping as soon as the certified gradient norm is ≤ tol. It returns the
// last certified norm. Newton steps are safe here without a line search
// only close to the minimiser, so callers use it after an optimiser.
func (q *ermLinearProblem) refineNewton(ctx context.Context, w []float64, tol float64, steps int) (float64, error) {
	h := mat.NewSymDense(q.p, nil)
	g := make([]float64, q.p)
	var chol mat.Cholesky
	for s := 0; ; s++ {
		cert, err := q.certifiedGradNorm(ctx, w)
		if err != nil || cert <= tol || s == steps {
			return cert, err
		}
		q.hessian(h, w)
		if !chol.Factorize(h) {
			return cert, fmt.Errorf("%s: Hessian not positive definite (cannot happen for a 1-strongly convex objective; data or C out of range?)", q.kind)
		}
		q.gradient(g, w)
		var d mat.VecDense
		if err := chol.SolveVecTo(&d, mat.NewVecDense(q.p, g)); err != nil {
			return cert, fmt.Errorf("%s: Newton step: %w", q.kind, err)
		}
		for j := range w {
			w[j] -= d.AtVec(j)
		}
	}
}

// ermMaxNewton bounds the optimiser's major iterations; Newton's method on
// these smooth, 1-strongly convex objectives needs far fewer.
const ermMaxNewton = 200

// ermLinearOracle is the released function y ↦ ⟨w, ỹ⟩ (or its logistic
// sigmoid) with ỹ the public lift of y. It is affine in y, so the Bernstein
// operator reproduces it exactly for every k ≥ 1 and h ≥ 1 (B_k preserves
// affine functions; Theorem 3(iii)).
type ermLinearOracle struct {
	dim     int
	w       []float64 // ℓ+1 weights on the lifted query
	b       float64   // the public constant feature of the lift (ermLiftB)
	sigmoid bool
	// r is the public radius of w around the exact minimiser w* (the
	// certificate tolerance, or the fallback's a priori radius when larger;
	// 0: not stated). LinearModelOf's Sensitivity2 needs it.
	r float64
}

func (o *ermLinearOracle) Dim() int { return o.dim }

// Eval returns F_D(y). It panics if len(y) != Dim() (programmer misuse).
func (o *ermLinearOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: query has %d coordinates, oracle has dimension %d", len(y), o.dim))
	}
	p := o.dim + 1
	s := 1 / math.Sqrt(float64(o.dim)+o.b*o.b)
	z := o.w[p-1] * (o.b * s)
	for j, v := range y {
		z += o.w[j] * ((2*v - 1) * s)
	}
	if o.sigmoid {
		return Sigmoid(z)
	}
	return z
}

// ermLinearEvalError bounds |computed − exact| of ermLinearOracle.Eval for
// every y ∈ [0,1]^ℓ, given a public bound wMax ≥ ‖w‖: s = 1/√(ℓ + b²) is
// computed with relative error ≤ γ_4, each lifted coordinate (2y_j − 1)·s
// or b·s then carries error ≤ γ_6·|ỹ_j| + u·s, the dot product of p = ℓ+1
// terms adds γ_p, so |Δz| ≤ γ_{p+6}·‖w‖·(‖ỹ‖ + √ℓ·s) ≤ 2γ_{p+6}·wMax
// (‖ỹ‖ ≤ 1 and √ℓ·s ≤ 1 for every b ≥ 0);
// the sigmoid is ¼-Lipschitz and adds ≤ 8u of its own.
func ermLinearEvalError(dim int, wMax float64, sigmoid bool) float64 {
	dz := 2 * ermGamma(dim+7) * wMax
	if sigmoid {
		return dz/4 + 8*ermRoundoff
	}
	return dz
}

// minimize runs Newton's method (gonum/optimize) from w = 0 within the
// public budget of ermMaxNewton major iterations and polishes with up to 5
// exact Newton steps until the certified gradient norm is ≤ tau. It returns
// the last iterate and its certified gradient norm, which may exceed tau:
// the caller (solveLinear) then releases the public fallback instead. Its
// error is cancellation or a failed Newton step.
func (q *ermLinearProblem) minimize(ctx context.Context, tau float64) ([]float64, float64, error) {
	prob := optimize.Problem{
		Func: q.objective,
		Grad: q.gradient,
		Hess: func(h *mat.SymDense, w []float64) { q.hessian(h, w) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		GradientThreshold: tau / (8 * math.Sqrt(float64(q.p))),
		Converger:         optimize.NeverTerminate{},
		MajorIterations:   ermMaxNewton,
	}
	w0 := make([]float64, q.p)
	result, err := optimize.Minimize(prob, w0, settings, &optimize.Newton{})
	if cerr := ermCanceled(ctx, q.kind); cerr != nil {
		return nil, 0, cerr
	}
	w := w0
	if result != nil && result.X != nil {
		w = append([]float64(nil), result.X...)
	}
	_ = err // a non-nil err only reports early stopping; the certificate below decides
	cert, err := q.refineNewton(ctx, w, tau, 5)
	return w, cert, err
}
