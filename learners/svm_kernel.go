package learners

import (
	"math"
	"sync"

	"github.com/bernsteinrelease/bernstein/internal/vexp"
)

// svmKernel holds the data of the kernel matrix K_ij = exp(−g‖x_i − x_j‖²)
// + c, g = 1/(2σ²), c ≥ 0 the public intercept constant (svm_intercept.go),
// and of Q_ij = l_i l_j K_ij. K_ii = 1 + c = κ².
type svmKernel struct {
	dim int
	n   int
	x   []float64 // n·dim
	l   []float64 // labels
	g   float64   // 1/(2σ²)
	c   float64   // intercept constant
	// fastExp: rows (qRowRange) take their exponentials from vexp.Exp
	// (relative error ≤ 4u) instead of math.Exp (< 1 ulp). svmSolve sets
	// it (its certificate's margin covers both); the public fallback
	// (erm_fallback.go), whose FISTA error plan assumes math.Exp, does not.
	fastExp bool
}

func (k *svmKernel) point(i int) []float64 { return k.x[i*k.dim : (i+1)*k.dim] }

// exponent returns −t = −g·Σ(a_j − b_j)², the argument of the kernel's
// exponential (K(a, b) = e^{−t} + c). Error of a kernel value formed from
// it: t ≥ 0 carries relative error ≤ γ_{ℓ+3}, which perturbs e^{−t} by
// ≤ t·e^{−t}·γ_{ℓ+3}·(1 + o(1)) ≤ γ_{ℓ+3}/e; math.Exp adds < 1 ulp (total
// ≤ (ℓ+5)u), vexp.Exp ≤ 4u·e^{−t} + vexp.Tiny (total ≤ (ℓ+7)u + Tiny), and
// adding c one rounding of ≤ (1+c)u.
func (k *svmKernel) exponent(a, b []float64) float64 {
	var d2 float64
	for j, v := range a {
		t := v - b[j]
		d2 += t * t
	}
	return -k.g * d2
}

// qRowRange writes Q_ij for j ∈ [lo, hi) into row[lo:hi]: the exponents
// −g‖x_i − x_j‖² (exponent's roundings) first, then their
// exponentials (with fastExp by vexp.Exp, relative error ≤ vexp.RelErr =
// 4u plus vexp.Tiny = 2⁻¹⁰²¹ absolute, where math.Exp has < 1 ulp: each
// value then errs by ≤ (ℓ+7)u + u(1+c) + Tiny, which svmCertifiedGap's
// margin covers), then the constant and the labels.
func (k *svmKernel) qRowRange(i int, row []float64, lo, hi int) {
	xi, li := k.point(i), k.l[i]
	seg := row[lo:hi]
	switch {
	case k.fastExp && k.dim == 2:
		// Exponents and exponentials in one pass of the assembly.
		vexp.GaussRow2(seg, k.x[2*lo:2*hi], xi[0], xi[1], k.g)
	case k.dim == 1:
		a := xi[0]
		for j := range seg {
			t := a - k.x[lo+j]
			seg[j] = -k.g * (t * t)
		}
	case k.dim == 2:
		a0, a1 := xi[0], xi[1]
		x := k.x[2*lo : 2*hi]
		for j := range seg {
			t0, t1 := a0-x[2*j], a1-x[2*j+1]
			seg[j] = -k.g * (t0*t0 + t1*t1)
		}
	default:
		for j := range seg {
			seg[j] = k.exponent(xi, k.point(lo+j))
		}
	}
	switch {
	case k.fastExp && k.dim == 2:
	case k.fastExp:
		vexp.Exp(seg, seg)
	default:
		for j, t := range seg {
			seg[j] = math.Exp(t)
		}
	}
	l := k.l[lo:hi]
	for j, e := range seg {
		seg[j] = li * l[j] * (e + k.c)
	}
}

// svmParallelRow is the row length from which qRow splits the work over two
// goroutines (a goroutine costs about 1 µs; a row entry about 10 ns with
// math.Exp). With vexp's assembly (fastExp and vexp.Fast()) an entry costs
// about 1 ns, and the split is kept for rows of svmParallelRowFast entries
// and more (≥ 30 µs a row, the goroutine ≤ 5 %): at n = 3000 and 10⁴,
// single-threaded rows cut the fit's CPU time by about a fifth
// (BenchmarkSVMFitSVC) without a longer wall time.
const (
	svmParallelRow     = 1024
	svmParallelRowFast = 1 << 15
)

// qRow writes Q_ij, j = 0…n−1, into row.
func (k *svmKernel) qRow(i int, row []float64) {
	from := svmParallelRow
	if k.fastExp && vexp.Fast() {
		from = svmParallelRowFast
	}
	if k.n < from {
		k.qRowRange(i, row, 0, k.n)
		return
	}
	var wg sync.WaitGroup
	mid := k.n / 2
	wg.Go(func() { k.qRowRange(i, row, mid, k.n) })
	k.qRowRange(i, row, 0, mid)
	wg.Wait()
}

// svmRowCache keeps recently used rows of Q under a memory budget (LRU).
type svmRowCache struct {
	k          *svmKernel
	rows       [][]float64
	prev, next []int // LRU list over cached indices; head = most recent
	head, tail int
	count, max int
}

// svmCacheBytes is the memory budget of the kernel row cache.
const svmCacheBytes = 256 << 20

func newSVMRowCache(k *svmKernel) *svmRowCache {
	n := k.n
	m := max(2, min(svmCacheBytes/(8*n), n))
	return &svmRowCache{k: k, rows: make([][]float64, n), prev: make([]int, n), next: make([]int, n), head: -1, tail: -1, max: m}
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

// get returns row i of Q, computing it on a miss, and whether it was
// cached.
func (c *svmRowCache) get(i int) ([]float64, bool) {
	if r := c.rows[i]; r != nil {
		if c.head != i {
			c.unlink(i)
			c.pushFront(i)
		}
		return r, true
	}
	var r []float64
	if c.count == c.max {
		old := c.tail
		c.unlink(old)
		r, c.rows[old] = c.rows[old], nil
		c.count--
	} else {
		r = make([]float64, len(c.rows))
	}
	c.k.qRow(i, r)
	c.rows[i] = r
	c.pushFront(i)
	c.count++
	return r, false
}
