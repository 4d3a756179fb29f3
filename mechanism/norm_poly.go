package mechanism

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The noise standard deviation of a release at y is a constant times
// ∏_j ‖b^(h)(y_j)‖₂ (Polynomial.NoiseStd). Evaluating b^(h)(y) = Tᵀb(y)
// costs O(k²) per axis; this file evaluates the squared norm in O(k).
//
// g(y) = ‖b^(h)(y)‖² = b(y)ᵀ·G·b(y) with G = T·Tᵀ is a polynomial of degree
// 2k. Because b_{i,k}·b_{j,k} = [C(k,i)C(k,j)/C(2k,i+j)]·b_{i+j,2k},
//
//	g(y) = Σ_{s=0}^{2k} c_s·b_{s,2k}(y),  c_s = Σ_{i+j=s} G_ij·C(k,i)C(k,j)/C(2k,s).
//
// The weights C(k,i)C(k,s−i)/C(2k,s) are hypergeometric probabilities
// (they lie in [0,1] and sum to 1 over i), computed from log-gamma with a
// relative error below 1e-11 for k ≤ MaxK. The coefficients c are computed
// once per (k, h), in O(k³) for G (one BLAS product) plus O(k²), and cached
// with the basis.

// normSquared holds the degree-2k Bernstein coefficients of ‖b^(h)(y)‖².
type normSquared struct {
	once sync.Once
	c    []float64
}

// squaredNorm returns ‖b^(h)(y)‖₂² in O(k) (after a one-time O(k³)
// precomputation per basis). y must be in [0,1].
func (b *IteratedBasis) squaredNorm(y float64) float64 {
	b.norm.once.Do(func() { b.norm.c = b.normCoefficients() })
	return bernsteinSum(b.norm.c, y)
}

// normCoefficients computes c_s, s = 0..2k, as documented above.
func (b *IteratedBasis) normCoefficients() []float64 {
	k, n := b.k, b.k+1
	c := make([]float64, 2*k+1)
	var g []float64
	if b.h > 1 {
		g = make([]float64, n*n)
		t := blas64.General{Rows: n, Cols: n, Stride: n, Data: b.t}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, t, t, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: g})
	}
	lnC := func(m, r int) float64 {
		a, _ := math.Lgamma(float64(m + 1))
		p, _ := math.Lgamma(float64(r + 1))
		q, _ := math.Lgamma(float64(m - r + 1))
		return a - p - q
	}
	lnCk := make([]float64, n)
	for i := range lnCk {
		lnCk[i] = lnC(k, i)
	}
	for s := 0; s <= 2*k; s++ {
		ln2k := lnC(2*k, s)
		sum := 0.0
		for i := max(0, s-k); i <= min(s, k); i++ {
			gij := 0.0
			switch {
			case g != nil:
				gij = g[i*n+(s-i)]
			case i == s-i: // h = 1: T = G = I
				gij = 1
			}
			if gij != 0 {
				sum += gij * math.Exp(lnCk[i]+lnCk[s-i]-ln2k)
			}
		}
		c[s] = sum
	}
	return c
}

// bernsteinSum returns Σ_s c_s·b_{s,m}(y), m = len(c)−1, for y ∈ [0,1] in
// O(m). It walks the basis by the ratio b_{s+1}/b_s from the end nearer to
// y's mode and keeps the running term and sum rescaled, so neither the
// starting power (1−y)^m nor the binomials (up to C(2000,1000) ≈ 10^600)
// underflow or overflow; the scale is restored in the log domain at the
// end.
func bernsteinSum(c []float64, y float64) float64 {
	m := len(c) - 1
	if m == 0 {
		return c[0]
	}
	if y == 0 {
		return c[0]
	}
	if y == 1 {
		return c[m]
	}
	const big, bigLog = 0x1p500, 500 * math.Ln2
	if y <= 0.5 {
		r := y / (1 - y)
		term, sum, scaleLog := 1.0, c[0], 0.0
		for s := 0; s < m; s++ {
			term *= float64(m-s) / float64(s+1) * r
			sum += c[s+1] * term
			if term > big {
				term /= big
				sum /= big
				scaleLog += bigLog
			}
		}
		return sum * math.Exp(scaleLog+float64(m)*math.Log1p(-y))
	}
	r := (1 - y) / y
	term, sum, scaleLog := 1.0, c[m], 0.0
	for s := m; s > 0; s-- {
		term *= float64(s) / float64(m-s+1) * r
		sum += c[s-1] * term
		if term > big {
			term /= big
			sum /= big
			scaleLog += bigLog
		}
	}
	return sum * math.Exp(scaleLog+float64(m)*math.Log(y))
}
