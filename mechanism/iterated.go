package mechanism

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// IteratedBasis is the iterated Bernstein basis b^(h)_{ν,k}, ν = 0..k, of
// Definition 8 for one (k, h). It is data-independent (public) and immutable,
// so it is safe for concurrent use.
//
// With M the (k+1)×(k+1) collocation matrix M[μ][ν] = b_{ν,k}(μ/k), the
// Bernstein operator acts on basis functions as B_k^j(b_ν; y) = (b(y)ᵀM^j)_ν,
// hence
//
//	b^(h)(y)ᵀ = b(y)ᵀ·T,  T = Σ_{i=1}^h C(h,i)(−1)^{i−1} M^{i−1} = Σ_{j=0}^{h−1} (I−M)^j.
//
// (Both sums are the polynomial p with x·p(x) = 1 − (1−x)^h, evaluated at M.)
// T is built with the second form by Horner's rule, T ← I + (I−M)·T, using
// h−1 dense matrix products; the alternating binomials of the first form are
// never formed, so there is no cancellation. Rows of T are b^(h)(μ/k), so
// |T[μ][ν]| ≤ 2^h − 1 (Eq. 12).
type IteratedBasis struct {
	k, h   int
	t      []float64 // T, (k+1)×(k+1) row-major
	ratios *ratioTable
	norm   normSquared // ‖b^(h)(y)‖² as a degree-2k polynomial, built on first use
}

type basisKey struct{ k, h int }

type basisEntry struct {
	once sync.Once
	b    *IteratedBasis
}

// basisCache memoises IteratedBasis per (k, h). It is bounded: when the
// cached transforms exceed basisCacheBytes the cache is emptied (bases held
// by polynomials stay alive through those polynomials).
var basisCache struct {
	mu      sync.Mutex
	entries map[basisKey]*basisEntry
	bytes   int
}

const basisCacheBytes = 256 << 20

// NewIteratedBasis returns the iterated Bernstein basis for cover size k and
// order h, computing T once per (k, h) and caching it (safe for concurrent
// use; concurrent first calls for the same (k, h) share one computation).
//
// It panics unless 1 ≤ k ≤ MaxK and 1 ≤ h ≤ MaxH: k and h come from
// validated Params or Polynomial values, so anything else is programmer
// misuse.
func NewIteratedBasis(k, h int) *IteratedBasis {
	if k < 1 || k > MaxK {
		panic(fmt.Sprintf("mechanism.NewIteratedBasis: k = %d: must be between 1 and %d", k, MaxK))
	}
	if h < 1 || h > MaxH {
		panic(fmt.Sprintf("mechanism.NewIteratedBasis: h = %d: must be between 1 and %d", h, MaxH))
	}
	key := basisKey{k, h}
	size := 8 * (k + 1) * (k + 1)
	basisCache.mu.Lock()
	if basisCache.entries == nil {
		basisCache.entries = make(map[basisKey]*basisEntry)
	}
	e, ok := basisCache.entries[key]
	if !ok {
		if basisCache.bytes+size > basisCacheBytes {
			basisCache.entries = make(map[basisKey]*basisEntry)
			basisCache.bytes = 0
		}
		e = &basisEntry{}
		basisCache.entries[key] = e
		basisCache.bytes += size
	}
	basisCache.mu.Unlock()
	e.once.Do(func() { e.b = buildIteratedBasis(k, h) })
	return e.b
}

func buildIteratedBasis(k, h int) *IteratedBasis {
	n := k + 1
	rt := newRatioTable(k)
	t := make([]float64, n*n)
	for i := 0; i < n; i++ {
		t[i*n+i] = 1
	}
	if h > 1 {
		// N = I − M.
		nm := make([]float64, n*n)
		for mu := 0; mu < n; mu++ {
			row := nm[mu*n : (mu+1)*n]
			bernstein(k, float64(mu)/float64(k), row, rt)
			for nu := range row {
				row[nu] = -row[nu]
			}
			row[mu]++
		}
		N := blas64.General{Rows: n, Cols: n, Stride: n, Data: nm}
		tmp := make([]float64, n*n)
		for step := 1; step < h; step++ {
			// tmp ← I; tmp ← N·T + tmp; T ← tmp.
			clear(tmp)
			for i := 0; i < n; i++ {
				tmp[i*n+i] = 1
			}
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, N,
				blas64.General{Rows: n, Cols: n, Stride: n, Data: t}, 1,
				blas64.General{Rows: n, Cols: n, Stride: n, Data: tmp})
			t, tmp = tmp, t
		}
	}
	return &IteratedBasis{k: k, h: h, t: t, ratios: rt}
}

// K returns the cover size k.
func (b *IteratedBasis) K() int { return b.k }

// H returns the iterated Bernstein order h.
func (b *IteratedBasis) H() int { return b.h }

// Transform returns T, the (k+1)×(k+1) row-major matrix with
// b^(h)(y)ᵀ = b(y)ᵀ·T. The slice is shared: callers must not modify it.
func (b *IteratedBasis) Transform() []float64 { return b.t }

// At writes b^(h)_{ν,k}(y), ν = 0..k (Definition 8), into out, computed as
// Tᵀ·b(y) in O(k²). The values sum to 1 and their absolute values sum to at
// most 2^h − 1 (Eq. 12); for h ≥ 2 some are negative.
//
// It panics if len(out) != k+1 or y ∉ [0,1] (programmer misuse).
func (b *IteratedBasis) At(y float64, out []float64) {
	n := b.k + 1
	if len(out) != n {
		panic(fmt.Sprintf("mechanism.IteratedBasis.At: len(out) = %d: must be k+1 = %d", len(out), n))
	}
	if !(y >= 0 && y <= 1) {
		panic(fmt.Sprintf("mechanism.IteratedBasis.At: y = %g: must be in [0,1]", y))
	}
	if b.h == 1 {
		bernstein(b.k, y, out, b.ratios)
		return
	}
	plain := make([]float64, n)
	bernstein(b.k, y, plain, b.ratios)
	b.applyTransposed(plain, out)
}

// applyTransposed sets out = Tᵀ·v.
func (b *IteratedBasis) applyTransposed(v, out []float64) {
	n := b.k + 1
	clear(out)
	for mu := 0; mu < n; mu++ {
		c := v[mu]
		if c == 0 {
			continue
		}
		row := b.t[mu*n : (mu+1)*n]
		for nu, x := range row {
			out[nu] += c * x
		}
	}
}
