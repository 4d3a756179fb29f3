package mechanism

import (
	"context"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
)

// TestBasisBlockMatchesBernstein: the block basis (assembly where
// available) has the same bits as bernstein, column by column, including
// y = 0, ½, 1, values next to them and the largest k.
func TestBasisBlockMatchesBernstein(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, 1, 0.5, math.Nextafter(0.5, 0), math.Nextafter(0.5, 1), 1e-300, 1 - 1e-16, 5e-324, 0.25, 0.75}
	for _, k := range []int{1, 2, 3, 20, 64, 1000} {
		ys := make([]float64, 48)
		copy(ys, special)
		for i := len(special); i < len(ys); i++ {
			ys[i] = r.Float64()
		}
		ldo := len(ys) + 5
		out := make([]float64, (k+1)*ldo)
		rt := newRatioTable(k)
		basisBlock(k, ys, rt, out, ldo)
		col := make([]float64, k+1)
		for q, y := range ys {
			bernstein(k, y, col, rt)
			for nu, want := range col {
				if got := out[nu*ldo+q]; math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("k=%d y=%v ν=%d: block %.17g, bernstein %.17g", k, y, nu, got, want)
				}
			}
		}
	}
}

// naiveIteratedAbsAll returns β_ν(y) = Σ_{i=1}^h C(h,i)·B_k^{i−1}(b_ν; y) for
// all ν: Definition 8 with every term counted positively (B is a positive
// operator, so each term is ≥ 0). Σ_ν |c_ν|·∏_j β_{ν_j}(y_j) is the scale of
// the rounding errors of any evaluation of Definition 9 that sums these
// terms, including the literal one.
func naiveIteratedAbsAll(k, h int, y float64) []float64 {
	out := make([]float64, k+1)
	for nu := range out {
		for i := 1; i <= h; i++ {
			out[nu] += naiveBinom(h, i) * naiveBernsteinPowerOfBasis(k, nu, i-1, y)
		}
	}
	return out
}

// TestEvalBatchMatchesDefinition8: EvalBatch (the blocked matrix products
// where available) and Eval agree with the literal Definition 9 sum of
// Definition 8 bases built from binomials and math.Pow, for ℓ = 1, 2, 3 and
// several k and h, to a relative 1e-12 of the scale
// S = Σ_ν |c_ν|·∏_j β_{ν_j}(y_j) (naiveIteratedAbsAll). Relative to S, not
// to |P(y)|: with coefficients of both signs P(y) can be 0 while its terms
// are not, and no evaluation order gets a relative error below about
// 2⁻⁵³·S/|P(y)| there. The observed errors are below 1e-14·S.
func TestEvalBatchMatchesDefinition8(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const tol = 1e-12
	worst := 0.0
	for _, s := range []struct {
		k []int
		h int
	}{
		{[]int{1}, 1}, {[]int{7}, 3}, {[]int{40}, 4}, {[]int{20}, 5},
		{[]int{20, 20}, 3}, {[]int{5, 9}, 2}, {[]int{13, 4}, 4}, {[]int{3, 7}, 1},
		{[]int{4, 5, 6}, 3}, {[]int{20, 20, 20}, 2}, {[]int{2, 3, 7}, 5},
	} {
		p := randomPolynomial(t, r, s.k, s.h)
		dim := len(s.k)
		const n = 13
		pts, out := randomBatch(t, r, p, n)
		for i := range n {
			y := pts[i*dim : (i+1)*dim]
			want := naiveEval(s.k, s.h, p.Coefficients(), y)
			abs := make([][]float64, dim)
			for j := range abs {
				abs[j] = naiveIteratedAbsAll(s.k[j], s.h, y[j])
			}
			absCoeffs := make([]float64, len(p.Coefficients()))
			for c, v := range p.Coefficients() {
				absCoeffs[c] = math.Abs(v)
			}
			scale := naiveEvalWithBases(s.k, absCoeffs, abs)
			single, err := p.Eval(y)
			if err != nil {
				t.Fatal(err)
			}
			if single != out[i] {
				t.Errorf("k=%v h=%d y=%v: Eval %.17g != EvalBatch %.17g", s.k, s.h, y, single, out[i])
			}
			rel := math.Abs(out[i]-want) / scale
			worst = max(worst, rel)
			if !(rel <= tol) {
				t.Errorf("k=%v h=%d y=%v: EvalBatch %.17g, Definition 8/9 %.17g: error %.3g of the scale %.3g (tolerance %g)", s.k, s.h, y, out[i], want, rel, scale, tol)
			}
		}
	}
	t.Logf("largest error: %.3g of the scale (blocked kernel: %v)", worst, gemm.Fast())
}

// TestEvalBatchBlockShapes: batch and single evaluation give the same bits
// on shapes that exercise the block plan's edges: rows R = m/(k_ℓ+1) not a
// multiple of the kernel's row tile (the zero-padded tail), blocks shorter
// than a column tile, chunks of several blocks, and a plan too large for a
// block (query by query).
func TestEvalBatchBlockShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, s := range []struct {
		k       []int
		h       int
		n       int
		blocked bool
	}{
		{[]int{20, 20}, 3, 5000, true}, {[]int{3, 7}, 2, 7, true}, {[]int{4, 9}, 1, 100, true},
		{[]int{1}, 2, 1, true}, {[]int{30}, 3, 2049, true}, {[]int{4, 3, 5}, 4, 300, true},
		{[]int{300, 300, 1}, 2, 30, false},
	} {
		p := randomPolynomial(t, r, s.k, s.h)
		if got := p.block != nil; got != (s.blocked && gemm.Fast()) {
			t.Errorf("k=%v: blocked = %v, want %v", s.k, got, s.blocked && gemm.Fast())
		}
		dim := len(s.k)
		pts, out := randomBatch(t, r, p, s.n)
		for i := range s.n {
			y := pts[i*dim : (i+1)*dim]
			want, _ := p.Eval(y)
			if math.Float64bits(out[i]) != math.Float64bits(want) {
				t.Fatalf("k=%v h=%d query %d: EvalBatch %.17g != Eval %.17g", s.k, s.h, i, out[i], want)
			}
			if lit := naiveEvalWithBases(s.k, p.prime, plainBases(s.k, y)); math.Abs(lit-want) > 1e-12*sumAbs(p.prime) {
				t.Fatalf("k=%v h=%d query %d: Eval %.17g, Σ C′_ν ∏ b_ν %.17g", s.k, s.h, i, want, lit)
			}
		}
	}
}

func plainBases(k []int, y []float64) [][]float64 {
	b := make([][]float64, len(k))
	for j, kj := range k {
		b[j] = make([]float64, kj+1)
		for nu := range b[j] {
			b[j][nu] = naiveBasis(kj, nu, y[j])
		}
	}
	return b
}

func sumAbs(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}

// randomBatch returns n random query points for p (randomPoint) and their
// values by EvalBatch.
func randomBatch(t *testing.T, r *rand.Rand, p *Polynomial, n int) (pts, out []float64) {
	t.Helper()
	dim := p.Dim()
	pts = make([]float64, n*dim)
	for i := range n {
		copy(pts[i*dim:], randomPoint(r, dim))
	}
	out = make([]float64, n)
	if err := p.EvalBatch(context.Background(), pts, out); err != nil {
		t.Fatal(err)
	}
	return pts, out
}
