package learners

// Dual solver of the bias-free RBF SVM and its duality-gap certificate.
//
// Primal (Eq. 5, hinge loss, no bias):
//
//	P(w) = (C/n) Σ max(0, 1 − l_i⟨w, φ(d_i)⟩) + ½‖w‖²_H.
//
// Dual (no equality constraint, because there is no bias):
//
//	D(α) = Σ α_i − ½ αᵀQα,  Q_ij = l_i l_j K(d_i, d_j),  0 ≤ α_i ≤ U = C/n,
//
// with w(α) = Σ α_i l_i φ(d_i). With G = Qα − 1 (G_i = l_i f(d_i) − 1) the
// duality gap of a feasible α is a sum of non-negative terms,
//
//	P(w(α)) − D(α) = Σ_i [U·max(0, −G_i) + α_i G_i],
//
// and, P being 1-strongly convex with minimiser w*,
// ½‖w(α) − w*‖² ≤ P(w(α)) − P(w*) ≤ P(w(α)) − D(α).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

// svmSolution is the fitted decision function Σ coef_i K(·, sv_i).
type svmSolution struct {
	sv   []float64 // support vectors, row-major, dim columns
	coef []float64 // α_i l_i for the support vectors (α_i > 0)
	// gap is the certified upper bound on the duality gap (0 for the exact
	// corner solution); iterations counts coordinate updates. Both are
	// diagnostics only: they depend on the data and never enter S(F).
	gap         float64
	iterations  int
	kernelEvals int
	fallback    bool      // released by svmFallback
	alpha       []float64 // the last feasible α of an uncertified run (svmSolve's errUncertified)
}

// svmUpper returns U = fl(C/n) rounded down if necessary so that U ≤ C/n
// holds exactly: the certificate needs α to be feasible for the exact box.
func svmUpper(c float64, n int) float64 {
	u := c / float64(n)
	if math.FMA(u, float64(n), -c) > 0 { // exact sign of u·n − C
		u = math.Nextafter(u, 0)
	}
	return u
}

// svmFastExp makes svmSolve's kernel rows use vexp (svmKernel.fastExp). A
// variable only so that tests can compare with a fit on math.Exp rows.
var svmFastExp = true

// svmMaxUpdates is the public budget of coordinate updates per record; a
// run that has not certified its gap by then returns errUncertified and Fit
// releases the public fallback (svmFallback). A variable only so that tests
// can force non-certification with a tiny budget.
var svmMaxUpdates = 2000

// svmSolve fits the bias-free SVM dual to a certified duality gap ≤ gapTol.
//
// For C·κ² ≤ 1 (κ² = 1 + c, svmExact) it returns the exact optimum α = U·1
// without iterating: for every feasible α, l_i f(d_i) = Σ_j α_j l_i l_j K_ij ≤
// Σ_j α_j·κ² ≤ C·κ² ≤ 1, so G_i ≤ 0 for all i and α_i = U satisfies the KKT
// conditions of the box (the gap formula gives exactly 0). The released
// function is then the class-difference kernel sum (C/n) Σ l_i K(·, d_i).
//
// For C > 1 it runs dual coordinate ascent with exact one-dimensional
// updates α_i ← clip(α_i − G_i/Q_ii, 0, U) (Q_ii = 1), greedy selection of
// the coordinate with the largest dual increase, an LRU cache of kernel
// rows and shrinking of coordinates stuck at a bound. When the maintained
// gradient says the gap is small, the gradient is recomputed from scratch
// with compensated summation and the gap certified with a rounding margin;
// the solver stops only when that certificate is ≤ gapTol and returns an
// error wrapping errUncertified if it cannot get there within the public
// budget of svmMaxUpdates·n updates (or reaches the floating-point limit).
func svmSolve(ctx context.Context, data Dataset, c, sigma, icpt, gapTol float64) (*svmSolution, error) {
	n, dim := data.N(), data.Dim
	upper := svmUpper(c, n)
	if svmExact(c, icpt) {
		coef := make([]float64, n)
		for i, l := range data.Labels {
			coef[i] = upper * l
		}
		return &svmSolution{sv: append([]float64(nil), data.X...), coef: coef}, nil
	}
	k := &svmKernel{dim: dim, n: n, x: data.X, l: data.Labels, g: 1 / (2 * sigma * sigma), c: icpt, fastExp: svmFastExp}
	s := &svmDual{k: k, n: n, upper: upper, c: c, alpha: make([]float64, n), grad: make([]float64, n), cache: newSVMRowCache(k)}
	if err := s.run(ctx, gapTol); err != nil {
		if errors.Is(err, errUncertified) {
			// The last α is feasible: the fallback may start from it.
			return &svmSolution{alpha: s.alpha, iterations: s.updates}, err
		}
		return nil, err
	}
	sol := &svmSolution{gap: s.gap, iterations: s.updates, kernelEvals: s.rowEvals + s.exactEvals + s.warmEvals}
	for i, a := range s.alpha {
		if a > 0 {
			sol.sv = append(sol.sv, k.point(i)...)
			sol.coef = append(sol.coef, a*k.l[i])
		}
	}
	return sol, nil
}

// svmDual is the state of the dual coordinate ascent.
type svmDual struct {
	k       *svmKernel
	n       int
	upper   float64 // U ≤ C/n
	c       float64
	alpha   []float64
	grad    []float64 // G = Qα − 1, maintained on the active set
	gbar    []float64 // Ḡ_i = U·Σ_{j: α_j = U} Q_ij, maintained for all i
	exact   bool      // grad was recomputed by exactGradient since the last update
	cache   *svmRowCache
	active  []int
	updates int
	gap     float64 // certified gap of the returned α
	// kernel evaluations spent on rows, gradient rebuilds and the warm
	// start (diagnostics for tests and benchmarks).
	rowEvals, exactEvals, warmEvals int
}

// svmWarmSample is the number of kernel columns used to guess the start
// (64: fewer kernel evaluations than 256 at n = 3000 and 10⁴ for C = 10,
// 100 and n, with updates within 5 %; BenchmarkSVMFit).
const svmWarmSample = 64

// warmStart guesses which coordinates end at the upper bound: it estimates
// G at α = U·1 from an evenly spaced sample of m columns,
// Ĝ_i = U·(n/m)·Σ_{j∈sample} Q_ij − 1, and starts from α_i = U where
// Ĝ_i < 0 (the record is not fitted with margin even with every α at U) and
// α_i = 0 elsewhere. Any feasible start is correct; this one makes small C
// (most α at U) and large C (few support vectors) both cheap.
func (s *svmDual) warmStart() {
	n, k := s.n, s.k
	m := min(n, svmWarmSample)
	sample := make([]int, m)
	for t := range sample {
		sample[t] = int((float64(t) + 0.5) * float64(n) / float64(m))
	}
	scale := s.upper * float64(n) / float64(m)
	s.warmEvals += n * m
	// l_i·f_i = Σ_{j ∈ sample} Q_ji in sample order (the labels are ±1,
	// so this is l_i·Σ_j l_j K_ij with the same roundings), computed by
	// kernel row segments of the sample (the specialised loops of
	// qRowRange) over records [lo, hi), the record range split over the
	// cores.
	lf := make([]float64, n)
	parts := 1
	if n >= svmParallelWarm {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() {
			row := make([]float64, n)
			for _, j := range sample {
				k.qRowRange(j, row, lo, hi)
				for i := lo; i < hi; i++ {
					lf[i] += row[i]
				}
			}
		})
	}
	wg.Wait()
	for i, v := range lf {
		if v*scale < 1 {
			s.alpha[i] = s.upper
		}
	}
}

// svmParallelWarm is the number of records from which warmStart splits
// its svmWarmSample kernel row segments over the cores.
const svmParallelWarm = 512

// step returns the clipped Newton step of coordinate i (Q_ii = 1 + c; the
// division is a multiplication by fl(1/(1 + c)), exact for c = 0: any
// feasible α is correct, only the certificate needs exact arithmetic).
func (s *svmDual) step(i int) float64 {
	a := s.alpha[i]
	return min(max(a-s.grad[i]*(1/(1+s.k.c)), 0), s.upper) - a
}

// svmPick is the greedy choice over the active set: the coordinate with
// the largest dual increase −G_i δ_i − ½Q_ii δ_i² of its clipped step δ_i
// (best = −1 if no step increases the dual) and the largest |δ_i|.
type svmPick struct {
	best          int
	gain, maxStep float64
}

// consider offers coordinate i with gradient g (the steps of step, with
// inv = fl(1/Q_ii)); coordinates are offered in the order of the active set,
// and ties keep the first.
func (p *svmPick) consider(i int, a, g, upper, inv, qii float64) {
	// d = min(max(t, 0), upper) − a, written as branches: most
	// coordinates sit at 0 with g ≥ 0 (t ≤ 0, d = −0).
	var d float64
	switch t := a - g*inv; {
	case t <= 0:
		d = -a
	case t >= upper:
		d = upper - a
	default:
		d = t - a
	}
	if d == 0 {
		return
	}
	p.maxStep = max(p.maxStep, math.Abs(d))
	if gain := -g*d - 0.5*qii*d*d; gain > p.gain {
		p.best, p.gain = i, gain
	}
}

// svmAtRest reports whether a coordinate at a bound has a gradient that
// pushes it into the bound (its clipped step is 0, so consider would skip
// it): the common case, tested before the call.
func svmAtRest(a, g, upper float64) bool {
	return (a == 0 && g >= 0) || (a == upper && g <= 0)
}

// pick scans the active set (svmPick).
func (s *svmDual) pick() svmPick {
	p := svmPick{best: -1}
	qii := 1 + s.k.c
	inv := 1 / qii
	for _, i := range s.active {
		if a, g := s.alpha[i], s.grad[i]; !svmAtRest(a, g, s.upper) {
			p.consider(i, a, g, s.upper, inv, qii)
		}
	}
	return p
}

// updatePick adds d·row to the gradient of the active coordinates and
// returns the next pick, in one pass (the same values as the update
// followed by pick).
func (s *svmDual) updatePick(d float64, row []float64) svmPick {
	p := svmPick{best: -1}
	qii := 1 + s.k.c
	inv := 1 / qii
	grad, alpha, upper := s.grad, s.alpha, s.upper
	for _, j := range s.active {
		g := grad[j] + d*row[j]
		grad[j] = g
		if a := alpha[j]; !svmAtRest(a, g, upper) {
			p.consider(j, a, g, upper, inv, qii)
		}
	}
	return p
}

// svmShrinkEvery is the number of updates between shrinking passes.
const svmShrinkEvery = 1000

func (s *svmDual) run(ctx context.Context, gapTol float64) error {
	n := s.n
	s.warmStart()
	// If the starting support vectors are at most half the records and
	// their rows fit in the cache, compute the rows now: the gradient then
	// comes from cached rows, and the same rows serve later updates and the
	// final certificate. Otherwise the symmetric pass of exactGradient is
	// cheaper (up to half the kernel evaluations when most α start at U,
	// as for small C, where the start is often already optimal).
	var warm []int
	for i, a := range s.alpha {
		if a > 0 {
			warm = append(warm, i)
		}
	}
	if len(warm) <= s.cache.max && 2*len(warm) <= n {
		for w, i := range warm {
			if w%64 == 0 {
				if err := ermCanceled(ctx, KindSVM); err != nil {
					return err
				}
			}
			s.row(i)
		}
	}
	if err := s.exactGradient(ctx); err != nil {
		return err
	}
	s.gbar = make([]float64, n)
	for i, g := range s.grad { // every α_j > 0 is at U after warmStart
		s.gbar[i] = g + 1
	}
	s.active = make([]int, n)
	for i := range s.active {
		s.active[i] = i
	}
	// eps is the largest |step| tolerated on the active set before the gap
	// is checked. A violating coordinate contributes ≤ U·|G_i| to the gap,
	// so steps ≤ gapTol/C (n coordinates, U = C/n) keep it near gapTol.
	eps := gapTol / s.c
	limit := svmMaxUpdates * n
	sinceShrink := 0
	// p is the greedy choice (svmPick) for the current state when fresh:
	// the gradient update computes it in the same pass, and shrinking
	// removes only coordinates whose step is 0, which p never holds.
	var p svmPick
	fresh := false
	for {
		if s.updates%ermCtxEvery == 0 {
			if err := ermCanceled(ctx, KindSVM); err != nil {
				return err
			}
		}
		if !fresh {
			p = s.pick()
		}
		fresh = false
		best, maxStep := p.best, p.maxStep
		if maxStep <= eps {
			switch {
			case len(s.active) < n:
				// Rebuild the stale gradients of shrunk coordinates from
				// Ḡ and the free coordinates, then look at all again.
				s.reconstruct()
				continue
			case !s.exact && s.estimateGap() > gapTol/2:
			default:
				if !s.exact {
					if err := s.exactGradient(ctx); err != nil {
						return err
					}
				}
				if g := s.certifiedGap(s.c); g <= gapTol {
					s.gap = g
					return nil
				}
			}
			if eps /= 4; eps < 1e-300 {
				return fmt.Errorf("%s: duality gap cannot be certified below %.3g (n = %d, C = %g): floating-point limit reached: %w", KindSVM, gapTol, n, s.c, errUncertified)
			}
			continue
		}
		if s.updates >= limit {
			return fmt.Errorf("%s: solver did not reach the certified duality gap %.3g within %d updates (n = %d, C = %g): %w",
				KindSVM, gapTol, limit, n, s.c, errUncertified)
		}
		old := s.alpha[best]
		s.alpha[best] = min(max(old+s.step(best), 0), s.upper)
		d := s.alpha[best] - old
		row := s.row(best)
		p, fresh = s.updatePick(d, row), true
		if wasU, isU := old == s.upper, s.alpha[best] == s.upper; wasU != isU {
			v := s.upper
			if wasU {
				v = -v
			}
			for j, q := range row {
				s.gbar[j] += v * q
			}
		}
		s.exact = false
		s.updates++
		if sinceShrink++; sinceShrink >= min(n, svmShrinkEvery) {
			sinceShrink = 0
			s.shrink(maxStep)
		}
	}
}

// shrink removes from the active set the coordinates at a bound whose
// gradient pushes them into it by more than m (the current largest step);
// their gradients go stale until reconstruct.
func (s *svmDual) shrink(m float64) {
	kept := s.active[:0]
	for _, i := range s.active {
		a, g := s.alpha[i], s.grad[i]
		if (a == 0 && g > m) || (a == s.upper && g < -m) {
			continue
		}
		kept = append(kept, i)
	}
	s.active = kept
}

// row returns row i of Q from the cache, counting kernel evaluations.
func (s *svmDual) row(i int) []float64 {
	r, hit := s.cache.get(i)
	if !hit {
		s.rowEvals += s.n
	}
	return r
}

// reconstruct rebuilds G_i = Ḡ_i − 1 + Σ_{0 < α_j < U} α_j Q_ij for the
// shrunk coordinates (as LIBSVM does) and makes every coordinate active.
func (s *svmDual) reconstruct() {
	inactive := make([]bool, s.n)
	for i := range inactive {
		inactive[i] = true
	}
	for _, i := range s.active {
		inactive[i] = false
	}
	var idle []int
	for i, in := range inactive {
		if in {
			idle = append(idle, i)
			s.grad[i] = s.gbar[i] - 1
		}
	}
	for j, a := range s.alpha {
		if a > 0 && a < s.upper {
			row := s.row(j)
			for _, i := range idle {
				s.grad[i] += a * row[i]
			}
		}
	}
	s.unshrink()
}

func (s *svmDual) unshrink() {
	s.active = s.active[:0]
	for i := range s.n {
		s.active = append(s.active, i)
	}
}

// estimateGap evaluates the gap formula on the maintained gradient (all
// coordinates must be active).
func (s *svmDual) estimateGap() float64 {
	var sum float64
	for i, g := range s.grad {
		sum += svmGapTerm(s.upper, s.alpha[i], g)
	}
	return sum
}
