package learners

// Ridge regression from its sufficient statistics (issue 20): the sums an
// SQL engine computes in one pass instead of the records. Used by
// project/aggregate.

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// RidgeMoments are the sufficient statistics of ridge regression in
// mapped units (features x ∈ [0,1]^ℓ, labels y ∈ [−1, 1], as
// dataset.MapToUnit and RealLabels give them): Σx_j, Σx_j·x_k (j ≤ k),
// Σx_j·y and Σy over the records.
type RidgeMoments struct {
	Dim int
	// N is the public number of records; Records, the count in the
	// aggregates, must equal it (it never defines n).
	N       int
	Records int64
	SumX    []float64 // ℓ sums Σx_j
	SumXX   []float64 // ℓ(ℓ+1)/2 sums Σx_j·x_k, j ≤ k, row by row (11, 12, …, 1ℓ, 22, …)
	SumXY   []float64 // ℓ sums Σx_j·y
	SumY    float64
	// SumError is a public bound on the absolute error of every sum as
	// delivered, against the exact sum of the exact products of the mapped
	// values (the engine's rounding, the decimal text): it enters the
	// certificate, so the release stays within the in-memory bound.
	SumError float64
}

// FitRidgeMoments fits NewRidge from the moments: the lifted Gram matrix
// X̃ᵀX̃ and X̃ᵀl of the in-memory fit (x̃ = (2x − 1, 1)/√(ℓ+1)) are affine
// functions of the moments, so the objective
//
//	P(w) = (C/n)(½wᵀAw − wᵀb + ½Σl²) + ½‖w‖²,  A = X̃ᵀX̃, b = X̃ᵀl,
//
// is the in-memory one and the same closed form (Cholesky of I + (C/n)A)
// gives the same ŵ up to rounding. The certificate ‖∇P(ŵ)‖ ≤ τ adds a
// margin for the moments' error (SumError) and the rounding of the
// conversion; if it is not met after up to four Newton steps, the public
// gradient-descent fallback runs on the moments. S, the note, the range
// and the stand-in are NewRidge's for the same n and C whenever the
// moment margins stay below τ (docs/sensitivity.md, "Ridge from
// sufficient statistics").
//
// Errors (public checks only): C as NewRidge's Fit; ℓ outside 1…6, sums of
// the wrong count or not finite, SumError negative or not finite, n < 1,
// or Records ≠ N.
func FitRidgeMoments(ctx context.Context, m RidgeMoments, values Values) (*Fitted, error) {
	spec := ridge{}.Spec()
	res, err := spec.Resolve(values, m.Dim)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	c := res.Scalar("C")
	n := m.N
	stab, tau, wStar := ridgeBounds(n, c)
	plan := ridgePlan(m.Dim, c, wStar, tau)
	q := newRidgeMomentProblem(m, c)
	gd := q.gdRadius(plan, wStar)
	r := math.Max(math.Max(tau, plan.radius), gd)
	wMax := wStar + r

	w, cert, err := q.solve(ctx, tau)
	if err != nil {
		return nil, err
	}
	if cert > tau {
		if w, err = q.gradientDescent(ctx, plan); err != nil {
			return nil, err
		}
	}
	return ridgeFitted(m.Dim, n, c, w, wMax, stab, r, tau, plan, " (fitted from sufficient statistics)"), nil
}

// check validates the moments (public checks).
func (m RidgeMoments) check() error {
	k := KindRidge
	if m.Dim < 1 || m.Dim > 6 {
		return fmt.Errorf("%s: %d feature columns; this learner needs between 1 and 6", k, m.Dim)
	}
	if len(m.SumX) != m.Dim || len(m.SumXY) != m.Dim || len(m.SumXX) != m.Dim*(m.Dim+1)/2 {
		return fmt.Errorf("%s: moments of the wrong size for %d features (%d, %d and %d sums)", k, m.Dim, len(m.SumX), len(m.SumXX), len(m.SumXY))
	}
	if m.N < 1 {
		return fmt.Errorf("%s: n = %d; the public number of records must be at least 1", k, m.N)
	}
	if m.Records != int64(m.N) {
		return fmt.Errorf("%s: the aggregates count %d records but the declared n is %d: n is public and declared, never taken from the aggregates", k, m.Records, m.N)
	}
	if !(m.SumError >= 0) || math.IsInf(m.SumError, 0) {
		return fmt.Errorf("%s: sum error bound %v must be a finite number ≥ 0", k, m.SumError)
	}
	for _, s := range [][]float64{m.SumX, m.SumXX, m.SumXY, {m.SumY}} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: a sum of the aggregates is %v, not a finite number", k, v)
			}
		}
	}
	return nil
}

// ridgeMomentProblem is P(w) of FitRidgeMoments on the lifted moments.
type ridgeMomentProblem struct {
	p    int
	n    float64
	c    float64
	a    []float64 // p×p lifted Gram matrix X̃ᵀX̃
	b    []float64 // p: X̃ᵀl
	errA float64   // bound on |Â_jk − A_jk|
	errB float64   // bound on |b̂_j − b_j|
}

// newRidgeMomentProblem lifts the moments: with s = 1/√(ℓ+1),
// x̃_j·x̃_k = s²(4x_jx_k − 2x_j − 2x_k + 1), x̃_j·x̃_p = s²(2x_j − 1),
// x̃_p² = s², x̃_j·l = s(2x_j·l − l), x̃_p·l = s·l (x̃_p the constant
// coordinate). Each entry of A combines four sums (errors 4E + 2E + 2E)
// of magnitude ≤ 9n in ≤ 10 rounded operations, each of b three sums.
func newRidgeMomentProblem(m RidgeMoments, c float64) *ridgeMomentProblem {
	d := m.Dim
	p := d + 1
	n := float64(m.N)
	s2 := 1 / float64(p)
	s := math.Sqrt(s2)
	xx := func(j, k int) float64 {
		if j > k {
			j, k = k, j
		}
		return m.SumXX[j*d-j*(j-1)/2+(k-j)]
	}
	a := make([]float64, p*p)
	for j := range d {
		for k := range d {
			a[j*p+k] = s2 * (4*xx(j, k) - 2*m.SumX[j] - 2*m.SumX[k] + n)
		}
		a[j*p+d] = s2 * (2*m.SumX[j] - n)
		a[d*p+j] = a[j*p+d]
	}
	a[d*p+d] = s2 * n
	b := make([]float64, p)
	for j := range d {
		b[j] = s * (2*m.SumXY[j] - m.SumY)
	}
	b[d] = s * m.SumY
	e := m.SumError
	return &ridgeMomentProblem{
		p: p, n: n, c: c, a: a, b: b,
		errA: s2 * (8*e + 9*n*ermGamma(12)),
		errB: s * (3*e + 3*n*ermGamma(8)),
	}
}

// gradient writes ĝ = (C/n)(Âw − b̂) + w into g.
func (q *ridgeMomentProblem) gradient(g, w []float64) {
	k := q.c / q.n
	for j := range q.p {
		row := q.a[j*q.p : (j+1)*q.p]
		g[j] = k*(ermDot(row, w)-q.b[j]) + w[j]
	}
}

// gradErr bounds ‖ĝ − ∇P(w)‖ for ‖w‖ ≤ bw, ∇P the exact gradient of the
// exact moments: per coordinate, the moments' error (C/n)(errA·‖w‖₁ +
// errB) with ‖w‖₁ ≤ √p·bw, the matrix-vector product's rounding
// γ_{p+4}·(C/n)(Σ_k|A_jk||w_k| + |b_j|) with |A_jk| ≤ n/p·… ≤ n and
// |b_j| ≤ n, and the final addition's γ_2·(|w_j| + C(bw + 1)); times √p
// for the norm, and doubled.
func (q *ridgeMomentProblem) gradErr(bw float64) float64 {
	sp := math.Sqrt(float64(q.p))
	k := q.c / q.n
	coord := k*(q.errA*sp*bw+q.errB) + q.c*ermGamma(q.p+4)*(sp*bw+1) + ermGamma(2)*(bw+q.c*(bw+1))
	return 2 * sp * coord
}

// certify returns an upper bound on ‖∇P(w)‖ for the exact moments.
func (q *ridgeMomentProblem) certify(w []float64) float64 {
	g := make([]float64, q.p)
	q.gradient(g, w)
	wn := math.Sqrt(ermDot(w, w)) * (1 + ermGamma(q.p+2))
	return math.Sqrt(ermDot(g, g))*(1+ermGamma(q.p+4)) + q.gradErr(wn)
}

// solve returns the closed-form solution of (I + (C/n)Â)w = (C/n)b̂,
// refined by up to four Newton steps until certified ≤ tau, and its
// certificate.
func (q *ridgeMomentProblem) solve(ctx context.Context, tau float64) ([]float64, float64, error) {
	k := q.c / q.n
	h := mat.NewSymDense(q.p, nil)
	for j := range q.p {
		for l := j; l < q.p; l++ {
			v := k * q.a[j*q.p+l]
			if j == l {
				v++
			}
			h.SetSym(j, l, v)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return nil, 0, fmt.Errorf("%s: Hessian not positive definite (cannot happen for a 1-strongly convex objective)", KindRidge)
	}
	w := make([]float64, q.p)
	g := make([]float64, q.p)
	for step := 0; ; step++ {
		if err := ermCanceled(ctx, KindRidge); err != nil {
			return nil, 0, err
		}
		cert := q.certify(w)
		if cert <= tau || step == 4 {
			return w, cert, nil
		}
		q.gradient(g, w)
		var d mat.VecDense
		if err := chol.SolveVecTo(&d, mat.NewVecDense(q.p, g)); err != nil {
			return nil, 0, fmt.Errorf("%s: Newton step: %w", KindRidge, err)
		}
		for j := range w {
			w[j] -= d.AtVec(j)
		}
	}
}

// gdRadius is the a-priori radius of gradient descent by plan on the
// moments: ermLinearGDPlan's bound with the moment gradient's error
// gradErr in place of the per-record one.
func (q *ridgeMomentProblem) gdRadius(plan ermGDPlan, wStar float64) float64 {
	u := ermRoundoff
	bw := 2.002 * wStar
	gErr := q.gradErr(bw)
	gNorm := bw + q.c*(bw+1) + gErr
	rounding := 2 * (gErr + 3*u*(bw/plan.step+gNorm))
	return (math.Exp(float64(plan.iters)*math.Log1p(-plan.step))*wStar + rounding) * (1 + 1e-9)
}

// gradientDescent runs plan from w = 0 on the moments.
func (q *ridgeMomentProblem) gradientDescent(ctx context.Context, plan ermGDPlan) ([]float64, error) {
	w := make([]float64, q.p)
	g := make([]float64, q.p)
	for it := range plan.iters {
		if it%1024 == 0 {
			if err := ermCanceled(ctx, KindRidge); err != nil {
				return nil, err
			}
		}
		q.gradient(g, w)
		for j := range w {
			w[j] -= plan.step * g[j]
		}
	}
	return w, nil
}
