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
	gap        float64
	iterations int
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

// svmKernel holds the data of the kernel matrix K_ij = exp(−g‖x_i − x_j‖²).
type svmKernel struct {
	dim int
	x   []float64 // n·dim
	l   []float64 // labels
	g   float64   // 1/(2σ²)
}

func (k *svmKernel) eval(a, b []float64) float64 {
	var d2 float64
	for j, v := range a {
		t := v - b[j]
		d2 += t * t
	}
	return math.Exp(-k.g * d2)
}

func (k *svmKernel) point(i int) []float64 { return k.x[i*k.dim : (i+1)*k.dim] }

// qRow writes Q_ij = l_i l_j K_ij, j = 0…n−1, into row.
func (k *svmKernel) qRow(i int, row []float64) {
	xi, li := k.point(i), k.l[i]
	switch k.dim {
	case 1:
		a := xi[0]
		for j, b := range k.x {
			t := a - b
			row[j] = li * k.l[j] * math.Exp(-k.g*(t*t))
		}
	case 2:
		a0, a1 := xi[0], xi[1]
		for j := range row {
			t0, t1 := a0-k.x[2*j], a1-k.x[2*j+1]
			row[j] = li * k.l[j] * math.Exp(-k.g*(t0*t0+t1*t1))
		}
	default:
		for j := range row {
			row[j] = li * k.l[j] * k.eval(xi, k.point(j))
		}
	}
}

// svmRowCache keeps recently used rows of Q under a memory budget (LRU).
type svmRowCache struct {
	rows       [][]float64
	prev, next []int // LRU list over cached indices; head = most recent
	head, tail int
	count, max int
	free       [][]float64
	hits, miss int
}

// svmCacheBytes is the memory budget of the kernel row cache.
const svmCacheBytes = 256 << 20

func newSVMRowCache(n int) *svmRowCache {
	m := svmCacheBytes / (8 * n)
	m = max(2, min(m, n))
	c := &svmRowCache{rows: make([][]float64, n), prev: make([]int, n), next: make([]int, n), head: -1, tail: -1, max: m}
	return c
}

func (c *svmRowCache) unlink(i int) {
	p, nx := c.prev[i], c.next[i]
	if p >= 0 {
		c.next[p] = nx
	} else {
		c.head = nx
	}
	if nx >= 0 {
		c.prev[nx] = p
	} else {
		c.tail = p
	}
}

func (c *svmRowCache) pushFront(i int) {
	c.prev[i], c.next[i] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

// get returns row i of Q, computing it on a miss.
func (c *svmRowCache) get(k *svmKernel, i int) []float64 {
	if r := c.rows[i]; r != nil {
		c.hits++
		if c.head != i {
			c.unlink(i)
			c.pushFront(i)
		}
		return r
	}
	c.miss++
	var r []float64
	if c.count == c.max {
		old := c.tail
		c.unlink(old)
		r, c.rows[old] = c.rows[old], nil
		c.count--
	} else {
		r = make([]float64, len(c.rows))
	}
	k.qRow(i, r)
	c.rows[i] = r
	c.pushFront(i)
	c.count++
	return r
}

// svmMaxUpdates bounds the coordinate updates per record before Fit gives
// up with an error.
const svmMaxUpdates = 2000

// svmSolve fits the bias-free SVM dual to a certified duality gap ≤ gapTol.
//
// For C ≤ 1 (κ² = 1) it returns the exact optimum α = U·1 without
// iterating: for every feasible α, l_i f(d_i) = Σ_j α_j l_i l_j K_ij ≤
// Σ_j α_j ≤ C ≤ 1, so G_i ≤ 0 for all i and α_i = U satisfies the KKT
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
// error if it cannot get there within svmMaxUpdates·n updates.
func svmSolve(ctx context.Context, data Dataset, c, sigma, gapTol float64) (*svmSolution, error) {
	n, dim := data.N(), data.Dim
	upper := svmUpper(c, n)
	if c <= 1 {
		coef := make([]float64, n)
		for i, l := range data.Labels {
			coef[i] = upper * l
		}
		return &svmSolution{sv: append([]float64(nil), data.X...), coef: coef}, nil
	}
	k := &svmKernel{dim: dim, x: data.X, l: data.Labels, g: 1 / (2 * sigma * sigma)}
	s := &svmDual{k: k, n: n, upper: upper, alpha: make([]float64, n), grad: make([]float64, n), cache: newSVMRowCache(n)}
	for i := range s.grad {
		s.grad[i] = -1
	}
	if err := s.run(ctx, gapTol, c); err != nil {
		return nil, err
	}
	sol := &svmSolution{gap: s.gap, iterations: s.updates}
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
	upper   float64
	alpha   []float64
	grad    []float64 // maintained G = Qα − 1 (exact after certify)
	cache   *svmRowCache
	active  []int
	updates int
	gap     float64
}

// step returns the clipped Newton step of coordinate i (Q_ii = 1).
func (s *svmDual) step(i int) float64 {
	a := s.alpha[i]
	return min(max(a-s.grad[i], 0), s.upper) - a
}

func (s *svmDual) run(ctx context.Context, gapTol, c float64) error {
	n := s.n
	s.active = make([]int, n)
	for i := range s.active {
		s.active[i] = i
	}
	// eps is the largest |step| tolerated on the active set before the
	// maintained gap is checked: gap ≤ Σ_i U·|G_i| over violators, and a
	// coordinate with step δ has gap term ≤ U·|δ| + … so start at the level
	// that makes n such terms add up to gapTol.
	eps := gapTol / c
	limit := svmMaxUpdates * n
	sinceShrink := 0
	shrunk := false
	for {
		if s.updates%ermCtxEvery == 0 {
			if err := ermCanceled(ctx, KindSVM); err != nil {
				return err
			}
		}
		// Greedy selection: largest dual increase −G δ − ½δ² of the
		// clipped step.
		best, bestGain, maxStep := -1, 0.0, 0.0
		for _, i := range s.active {
			d := s.step(i)
			if d == 0 {
				continue
			}
			ad := math.Abs(d)
			if ad > maxStep {
				maxStep = ad
			}
			gain := -s.grad[i]*d - 0.5*d*d
			if gain > bestGain {
				best, bestGain = i, gain
			}
		}
		if maxStep <= eps {
			if shrunk {
				s.unshrink()
				shrunk = false
				continue
			}
			if s.estimateGap() <= gapTol/2 {
				g, err := s.certify(ctx, c)
				if err != nil {
					return err
				}
				if g <= gapTol {
					s.gap = g
					return nil
				}
			}
			eps /= 4
			if eps < 1e-300 {
				return fmt.Errorf("%s: duality gap cannot be certified below %.3g (n = %d, C = %g); floating-point limit reached", KindSVM, gapTol, n, c)
			}
			continue
		}
		if s.updates >= limit {
			return fmt.Errorf("%s: solver did not reach the certified duality gap %.3g within %d updates (n = %d, C = %g); try a smaller C or larger σ",
				KindSVM, gapTol, limit, n, c)
		}
		d := s.step(best)
		s.alpha[best] += d
		if s.alpha[best] > s.upper { // guard against rounding
			s.alpha[best] = s.upper
		} else if s.alpha[best] < 0 {
			s.alpha[best] = 0
		}
		row := s.cache.get(s.k, best)
		for j, q := range row {
			s.grad[j] += d * q
		}
		s.updates++
		sinceShrink++
		if sinceShrink >= min(n, 1000) {
			sinceShrink = 0
			if s.shrink(maxStep) {
				shrunk = true
			}
		}
	}
}

// shrink removes from the active set coordinates at a bound whose gradient
// pushes them further into it by more than m; it reports whether any were
// removed. Removed coordinates keep their gradients up to date (rows are
// full), so unshrinking needs no reconstruction.
func (s *svmDual) shrink(m float64) bool {
	kept := s.active[:0]
	for _, i := range s.active {
		a, g := s.alpha[i], s.grad[i]
		if (a == 0 && g > m) || (a == s.upper && g < -m) {
			continue
		}
		kept = append(kept, i)
	}
	removed := len(kept) < len(s.active)
	s.active = kept
	return removed || len(s.active) < s.n
}

func (s *svmDual) unshrink() {
	s.active = s.active[:0]
	for i := range s.n {
		s.active = append(s.active, i)
	}
}

// svmGapTerm is U·max(0, −G) + αG, the non-negative gap contribution of
// one coordinate.
func svmGapTerm(upper, a, g float64) float64 {
	if g >= 0 {
		return a * g
	}
	return (upper - a) * -g
}

// estimateGap evaluates the gap formula on the maintained gradient.
func (s *svmDual) estimateGap() float64 {
	var sum float64
	for i, g := range s.grad {
		sum += svmGapTerm(s.upper, s.alpha[i], g)
	}
	return sum
}

// certify recomputes G = Qα − 1 from scratch (kernel values in float64,
// compensated sums over the support vectors, in parallel), stores it as the
// maintained gradient and returns an upper bound on the exact duality gap of
// α.
//
// Error budget (u = 2⁻⁵³): each f_i = Σ_j α_j l_j K_ij is computed with
// error ≤ Σ_j α_j·((ℓ+5)u + u) + 2u·Σ_j α_j K_ij + O(n u²) ≤ C·(ℓ+9)u
// (kernel error as in svmEvalError, product, compensated sum; Σα ≤ C), so
// |ΔG_i| ≤ C·(ℓ+10)u; each gap term is U-Lipschitz in G_i (U ≤ C/n) and
// rounded with relative error 2u; the compensated sum of the n terms adds
// 2u·gap. Hence gap ≤ ĝ·(1 + 6u) + C²·(ℓ+10)u·(1 + n·u); the margin below
// doubles the last term.
func (s *svmDual) certify(ctx context.Context, c float64) (float64, error) {
	n, k := s.n, s.k
	var svIdx []int
	for i, a := range s.alpha {
		if a > 0 {
			svIdx = append(svIdx, i)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	var wg sync.WaitGroup
	var cancelled error
	var mu sync.Mutex
	chunk := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if (i-lo)%256 == 0 && ctx.Err() != nil {
					mu.Lock()
					cancelled = ctx.Err()
					mu.Unlock()
					return
				}
				xi := k.point(i)
				var acc ermSum
				for _, j := range svIdx {
					acc.add(s.alpha[j] * k.l[j] * k.eval(xi, k.point(j)))
				}
				s.grad[i] = k.l[i]*acc.value() - 1
			}
		})
	}
	wg.Wait()
	if cancelled != nil {
		return 0, fmt.Errorf("%s: fit cancelled: %w", KindSVM, cancelled)
	}
	var gap ermSum
	for i, g := range s.grad {
		gap.add(svmGapTerm(s.upper, s.alpha[i], g))
	}
	u := ermRoundoff
	margin := 2 * c * c * float64(k.dim+10) * u * (1 + float64(n)*u)
	return gap.value()*(1+6*u) + margin, nil
}
