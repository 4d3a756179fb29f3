package mechanism

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Polynomial is the multivariate iterated Bernstein polynomial of
// Definition 9 with given lattice coefficients c_ν (lattice order, see
// Lattice):
//
//	P(y) = Σ_ν c_ν ∏_j b^(h)_{ν_j,k_j}(y_j).
//
// At construction the data-independent per-axis transforms T_j of
// IteratedBasis are applied to the coefficients once,
// C′ = (T_1 ⊗ … ⊗ T_ℓ)·C, so that P(y) = Σ_ν C′_ν ∏_j b_{ν_j,k_j}(y_j) needs
// only the plain Bernstein bases of the query, contracted axis by axis
// (last axis first): O(Σ_j k_j + m) per query instead of O(ℓ·m) products
// of O(h·k²)-cost iterated bases. C′ is a deterministic function of the
// coefficients, so for a release it is post-processing.
//
// A Polynomial is immutable and safe for concurrent use. Queries outside
// [0,1]^ℓ are errors: the polynomial is never extrapolated.
type Polynomial struct {
	k       []int
	h       int
	coeffs  []float64 // c, lattice order
	prime   []float64 // C′ = (T_1⊗…⊗T_ℓ)·c, lattice order
	bases   []*IteratedBasis
	scratch sync.Pool  // *evalScratch
	block   *blockPlan // nil: Eval and EvalBatch evaluate query by query (evalWith)
	blocks  sync.Pool  // *blockScratch, when block != nil
}

type evalScratch struct {
	basis [][]float64 // per axis, k_j+1
	tmp   []float64   // m/(k_ℓ+1)
}

// NewPolynomial validates k and h (as Params.Validate does), checks that
// len(coeffs) == ∏(k_j+1) and that every coefficient is finite, and returns
// the polynomial with its own copy of k and coeffs.
func NewPolynomial(k []int, h int, coeffs []float64) (*Polynomial, error) {
	if err := validateShape(k, h); err != nil {
		return nil, err
	}
	if err := checkCoefficients(k, coeffs); err != nil {
		return nil, err
	}
	return newPolynomial(slices.Clone(k), h, slices.Clone(coeffs)), nil
}

func checkCoefficients(k []int, coeffs []float64) error {
	m := coefficientCount(k)
	if len(coeffs) != m {
		return paramErr("coefficients", fmt.Sprintf("%d values", len(coeffs)), "need exactly %d (the product of k_j+1 over the axes) for k = %v", m, k)
	}
	for i, c := range coeffs {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			l := Lattice{K: k}
			return paramErr(fmt.Sprintf("coefficients[%d]", i), c, "must be finite (%s)", l.describe(i))
		}
	}
	return nil
}

// newPolynomial takes ownership of k and coeffs, which must be valid.
func newPolynomial(k []int, h int, coeffs []float64) *Polynomial {
	p := &Polynomial{k: k, h: h, coeffs: coeffs, bases: make([]*IteratedBasis, len(k))}
	for j, kj := range k {
		p.bases[j] = NewIteratedBasis(kj, h)
	}
	if h == 1 {
		p.prime = coeffs // T = I
	} else {
		shape := make([]int, len(k))
		for j, kj := range k {
			shape[j] = kj + 1
		}
		// Apply T_j along every axis in place on one copy (coeffs itself is
		// never overwritten): memory is coeffs, prime and a small block.
		p.prime = slices.Clone(coeffs)
		for j := range k {
			modeProductInPlace(p.prime, shape, j, p.bases[j].t)
		}
	}
	p.block = newBlockPlan(k, p.prime)
	if p.block != nil {
		p.blocks.New = func() any { return p.newBlockScratch() }
	}
	m := len(coeffs)
	p.scratch.New = func() any {
		s := &evalScratch{basis: make([][]float64, len(k)), tmp: make([]float64, m/(k[len(k)-1]+1))}
		for j, kj := range k {
			s.basis[j] = make([]float64, kj+1)
		}
		return s
	}
	return p
}

// modeProduct computes the mode-`axis` product of the tensor x (dimensions
// shape, row-major) with the matrix a (rows × shape[axis], row-major):
// out[…, r, …] = Σ_κ a[r][κ]·x[…, κ, …]. out has shape with shape[axis]
// replaced by rows.
func modeProduct(x []float64, shape []int, axis int, a []float64, rows int, out []float64) {
	P, Q := modeDims(shape, axis)
	K := shape[axis]
	A := blas64.General{Rows: rows, Cols: K, Stride: K, Data: a}
	if Q == 1 {
		// out (P×rows) = x (P×K) · aᵀ.
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: P, Cols: K, Stride: K, Data: x}, A, 0,
			blas64.General{Rows: P, Cols: rows, Stride: rows, Data: out})
		return
	}
	for p := 0; p < P; p++ {
		// out_p (rows×Q) = a (rows×K) · x_p (K×Q).
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A,
			blas64.General{Rows: K, Cols: Q, Stride: Q, Data: x[p*K*Q : (p+1)*K*Q]}, 0,
			blas64.General{Rows: rows, Cols: Q, Stride: Q, Data: out[p*rows*Q : (p+1)*rows*Q]})
	}
}

// modeDims returns the products of the dimensions before and after axis:
// the tensor is P × shape[axis] × Q in row-major order.
func modeDims(shape []int, axis int) (P, Q int) {
	P, Q = 1, 1
	for i := 0; i < axis; i++ {
		P *= shape[i]
	}
	for i := axis + 1; i < len(shape); i++ {
		Q *= shape[i]
	}
	return P, Q
}

// modeProductBlock is the number of fibres modeProductInPlace transforms
// per BLAS call: its scratch holds modeProductBlock·shape[axis] values.
const modeProductBlock = 256

// modeProductInPlace overwrites the tensor x (dimensions shape, row-major)
// with its mode-`axis` product with the square matrix a (shape[axis] ×
// shape[axis], row-major): x[…, r, …] ← Σ_κ a[r][κ]·x[…, κ, …]. It is
// modeProduct with out = x, done a block of at most modeProductBlock fibres
// at a time through a scratch copy, so its extra memory is
// modeProductBlock·shape[axis] values rather than a second tensor.
func modeProductInPlace(x []float64, shape []int, axis int, a []float64) {
	P, Q := modeDims(shape, axis)
	K := shape[axis]
	A := blas64.General{Rows: K, Cols: K, Stride: K, Data: a}
	tmp := make([]float64, K*min(modeProductBlock, max(P, Q)))
	if Q == 1 {
		// Rows r0…r1 of x (P×K) ← rows of x · aᵀ.
		for r0 := 0; r0 < P; r0 += modeProductBlock {
			n := min(modeProductBlock, P-r0)
			blk := x[r0*K : (r0+n)*K]
			copy(tmp, blk)
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: n, Cols: K, Stride: K, Data: tmp[:n*K]}, A, 0,
				blas64.General{Rows: n, Cols: K, Stride: K, Data: blk})
		}
		return
	}
	for p := 0; p < P; p++ {
		xp := x[p*K*Q : (p+1)*K*Q] // K×Q, row stride Q
		for c0 := 0; c0 < Q; c0 += modeProductBlock {
			n := min(modeProductBlock, Q-c0)
			for r := 0; r < K; r++ {
				copy(tmp[r*n:(r+1)*n], xp[r*Q+c0:r*Q+c0+n])
			}
			// Columns c0…c0+n of x_p ← a · (those columns).
			blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, A,
				blas64.General{Rows: K, Cols: n, Stride: n, Data: tmp[:K*n]}, 0,
				blas64.General{Rows: K, Cols: n, Stride: Q, Data: xp[c0 : (K-1)*Q+c0+n]})
		}
	}
}

// K returns the cover sizes k_j (a shared slice: do not modify).
func (p *Polynomial) K() []int { return p.k }

// H returns the iterated Bernstein order h.
func (p *Polynomial) H() int { return p.h }

// Dim returns ℓ.
func (p *Polynomial) Dim() int { return len(p.k) }

// Lattice returns the lattice of the coefficients.
func (p *Polynomial) Lattice() Lattice { return Lattice{K: p.k} }

// Coefficients returns the lattice coefficients c_ν in lattice order. The
// slice is shared, not copied: callers must treat it as immutable.
func (p *Polynomial) Coefficients() []float64 { return p.coeffs }

// checkQuery validates one query point.
func (p *Polynomial) checkQuery(y []float64) error {
	if len(y) != len(p.k) {
		return paramErr("y", fmt.Sprint(y), "needs %d coordinates, got %d", len(p.k), len(y))
	}
	for j, v := range y {
		if !(v >= 0 && v <= 1) {
			return paramErr(fmt.Sprintf("y[%d]", j), v, "must be in [0,1] (the polynomial is never extrapolated)")
		}
	}
	return nil
}

// Eval returns P(y) (Algorithm 1, line 11). y must have Dim() coordinates
// in [0,1]; anything else (including NaN) is an error.
func (p *Polynomial) Eval(y []float64) (float64, error) {
	if err := p.checkQuery(y); err != nil {
		return 0, err
	}
	s := p.scratch.Get().(*evalScratch)
	var v float64
	if p.block != nil {
		v = p.evalFMA(y, s)
	} else {
		v = p.evalWith(y, s)
	}
	p.scratch.Put(s)
	return v, nil
}

// evalWith evaluates a validated query with the given scratch space.
func (p *Polynomial) evalWith(y []float64, s *evalScratch) float64 {
	for j, kj := range p.k {
		bernstein(kj, y[j], s.basis[j], p.bases[j].ratios)
	}
	c := p.prime
	switch len(p.k) {
	case 1:
		return dot(c, s.basis[0])
	case 2:
		b1, b2 := s.basis[0], s.basis[1]
		n2 := len(b2)
		var sum float64
		for mu, w := range b1 {
			sum += w * dot(c[mu*n2:(mu+1)*n2], b2)
		}
		return sum
	}
	// General ℓ: contract the last axis into tmp, then the others in place.
	last := len(p.k) - 1
	n := len(s.basis[last])
	rows := len(c) / n
	tmp := s.tmp[:rows]
	for r := range rows {
		tmp[r] = dot(c[r*n:(r+1)*n], s.basis[last])
	}
	for j := last - 1; j >= 0; j-- {
		b := s.basis[j]
		n := len(b)
		rows /= n
		for r := range rows {
			tmp[r] = dot(tmp[r*n:(r+1)*n], b) // reads indices ≥ r·n ≥ r only
		}
	}
	return tmp[0]
}

// dot returns Σ a[i]·b[i] for len(a) ≤ len(b), with four accumulators.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// EvalBatch evaluates n = len(out) queries: query i is
// points[i·ℓ : (i+1)·ℓ] and its value goes to out[i]. It validates every
// point first (an error names the first bad one), then evaluates in parallel
// on runtime.GOMAXPROCS(0) goroutines, bit-identically to Eval: where the
// vectorised kernel is available (internal/gemm) a block of queries at a
// time as matrix products (eval_block.go), otherwise query by query by the
// axis-by-axis contraction. Cancelling ctx returns ctx.Err(); out is then
// partially written.
func (p *Polynomial) EvalBatch(ctx context.Context, points, out []float64) error {
	l := len(p.k)
	if len(points) != len(out)*l {
		return paramErr("points", fmt.Sprintf("%d values", len(points)), "need len(out)·ℓ = %d·%d = %d values", len(out), l, len(out)*l)
	}
	inCube := true
	for _, v := range points { // the common case in one pass; checkQuery names a bad point
		if !(v >= 0 && v <= 1) {
			inCube = false
			break
		}
	}
	for i := 0; !inCube && i < len(out); i++ {
		if err := p.checkQuery(points[i*l : (i+1)*l]); err != nil {
			return fmt.Errorf("query %d: %w", i, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	const chunk = 2048
	n := len(out)
	nChunks := (n + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nChunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s *evalScratch
			var bs *blockScratch
			if p.block != nil {
				bs = p.blocks.Get().(*blockScratch)
				defer p.blocks.Put(bs)
			} else {
				s = p.scratch.Get().(*evalScratch)
				defer p.scratch.Put(s)
			}
			for {
				c := int(next.Add(1) - 1)
				if c >= nChunks || ctx.Err() != nil {
					return
				}
				hi := min((c+1)*chunk, n)
				if bs != nil {
					for i := c * chunk; i < hi; i += p.block.q {
						e := min(i+p.block.q, hi)
						p.evalBlock(points[i*l:e*l], out[i:e], bs)
					}
					continue
				}
				for i := c * chunk; i < hi; i++ {
					out[i] = p.evalWith(points[i*l:(i+1)*l], s)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// EvalGrid evaluates P on the tensor grid axes[0] × … × axes[ℓ−1] and
// returns the values in lattice order (last axis fastest), length
// ∏ len(axes[j]) ≤ MaxGridPoints. It uses the tensor structure: with B_j the
// len(axes[j])×(k_j+1) matrix of plain Bernstein bases of the axis values,
// the grid is C′ ×_1 B_1 ×_2 … ×_ℓ B_ℓ (for ℓ = 2, B_1·C′·B_2ᵀ), computed
// by gonum BLAS matrix products. Every value must be in [0,1].
func (p *Polynomial) EvalGrid(axes [][]float64) ([]float64, error) {
	if len(axes) != len(p.k) {
		return nil, paramErr("axes", fmt.Sprintf("%d axes", len(axes)), "need one axis per coordinate (%d)", len(p.k))
	}
	total := 1
	for j, a := range axes {
		if len(a) == 0 {
			return nil, paramErr(fmt.Sprintf("axes[%d]", j), "[]", "must not be empty")
		}
		for i, v := range a {
			if !(v >= 0 && v <= 1) {
				return nil, paramErr(fmt.Sprintf("axes[%d][%d]", j, i), v, "must be in [0,1] (the polynomial is never extrapolated)")
			}
		}
		if len(a) > MaxGridPoints || total*len(a) > MaxGridPoints {
			return nil, paramErr("axes", fmt.Sprintf("grid of ≥ %d points", total*len(a)), "must have at most %d points", MaxGridPoints)
		}
		total *= len(a)
	}
	// Apply the axes in increasing order of growth n_j/(k_j+1), which keeps
	// the intermediate tensors small; the axis positions, and hence the
	// output order, do not depend on this order.
	order := make([]int, len(axes))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra := float64(len(axes[a])) / float64(p.k[a]+1)
		rb := float64(len(axes[b])) / float64(p.k[b]+1)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	shape := make([]int, len(p.k))
	for j, kj := range p.k {
		shape[j] = kj + 1
	}
	cur := p.prime
	for _, j := range order {
		n, kn := len(axes[j]), p.k[j]+1
		bm := make([]float64, n*kn)
		for i, v := range axes[j] {
			bernstein(p.k[j], v, bm[i*kn:(i+1)*kn], p.bases[j].ratios)
		}
		next := make([]float64, len(cur)/kn*n)
		modeProduct(cur, shape, j, bm, n, next)
		shape[j] = n
		cur = next
	}
	return cur, nil // ℓ ≥ 1, so cur is a fresh slice, never p.prime
}

// EvalNearest is the baseline of Section 4.2: it returns the coefficient at
// the lattice point nearest to y, ν_j = ⌊y_j·k_j + ½⌋ (ties — y_j·k_j
// exactly half-integral in floating point — round half up). For a release
// this is the noisy value F̃_D(p) of that point. The result is piecewise
// constant, with error O(k^−γ) for (γ,L)-Hölder F_D.
func (p *Polynomial) EvalNearest(y []float64) (float64, error) {
	if err := p.checkQuery(y); err != nil {
		return 0, err
	}
	idx := 0
	for j, kj := range p.k {
		nu := min(int(math.Floor(y[j]*float64(kj)+0.5)), kj)
		idx = idx*(kj+1) + nu
	}
	return p.coeffs[idx], nil
}

// NoiseStd returns the standard deviation at y of the noise part of a
// release with these lattice and order, Σ_ν Z_ν ∏_j b^(h)_{ν_j,k_j}(y_j) with
// Z_ν i.i.d.:
//
//	Laplace(λ) (NoiseLaplace, NoiseLaplaceApprox):  √2·λ·∏_j ‖b^(h)(y_j)‖₂
//	Normal(0, σ²) (NoiseGaussian):                  σ·∏_j ‖b^(h)(y_j)‖₂
//
// since Var Σ_ν w_ν Z_ν = Var Z·Σ_ν w_ν² and the weights factor over axes.
// It depends only on public quantities (k, h, kind, scale, y), never on the
// coefficients. scale must be ≥ 0 and finite. Cost O(Σ_j k_j) per query
// (norm_poly.go), after a one-time O(k³) precomputation per (k, h).
func (p *Polynomial) NoiseStd(y []float64, kind NoiseKind, scale float64) (float64, error) {
	var factor float64
	switch kind {
	case NoiseLaplace, NoiseLaplaceApprox:
		factor = math.Sqrt2
	case NoiseGaussian:
		factor = 1
	default:
		return 0, paramErr("noise", string(kind), "must be one of %q, %q, %q", NoiseLaplace, NoiseLaplaceApprox, NoiseGaussian)
	}
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return 0, paramErr("scale", scale, "must be ≥ 0 and finite")
	}
	if err := p.checkQuery(y); err != nil {
		return 0, err
	}
	std := factor * scale
	for j, b := range p.bases {
		std *= math.Sqrt(max(b.squaredNorm(y[j]), 0))
	}
	return std, nil
}
