package mechanism

import "fmt"

// BernsteinBasis writes the Bernstein basis polynomials of degree k
// (Definition 6)
//
//	b_{ν,k}(y) = C(k,ν)·y^ν·(1−y)^(k−ν),  ν = 0..k,
//
// into out[0..k]. It uses no binomials and no transcendental functions: for
// y ≤ ½ it starts from b_0 = (1−y)^k (binary powering) and applies the ratio
// recurrence b_{ν+1} = b_ν·(k−ν)/(ν+1)·y/(1−y); for y > ½ it starts from
// b_k = y^k and runs downwards with q = 1−y (exact for y ≥ ½). The start is
// the end of the larger of y, 1−y, so it is ≥ 2^−k (a normal float for
// k ≤ 1000 = MaxK), every value is a probability (≤ 1, so no overflow), and
// there is no NaN. The relative error is O(k·2⁻⁵³) for every value above the
// underflow threshold, including y within 1e-300 of 0 or 1 (tested against
// math/big for k ≤ 256); values below it underflow towards 0 gracefully.
// Values are ≥ 0 and sum to 1 up to rounding (Proposition 2).
//
// It panics if k < 1, len(out) != k+1, or y ∉ [0,1] (programmer misuse:
// callers validate queries; Polynomial.Eval returns errors instead).
func BernsteinBasis(k int, y float64, out []float64) {
	if k < 1 {
		panic(fmt.Sprintf("mechanism.BernsteinBasis: k = %d: must be ≥ 1", k))
	}
	if len(out) != k+1 {
		panic(fmt.Sprintf("mechanism.BernsteinBasis: len(out) = %d: must be k+1 = %d", len(out), k+1))
	}
	if !(y >= 0 && y <= 1) {
		panic(fmt.Sprintf("mechanism.BernsteinBasis: y = %g: must be in [0,1]", y))
	}
	bernstein(k, y, out, nil)
}

// powInt returns x^n for n ≥ 0 by binary powering: O(log n) products and
// a relative error of O(log n·2⁻⁵³) on top of the error of x. For
// x ∈ [½, 1] and n ≤ 1000 the result and every intermediate value is ≥ 2⁻¹⁰⁰⁰,
// a normal float.
func powInt(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// ratioTable holds up[ν] = (k−ν)/(ν+1) and down[ν] = ν/(k−ν+1) so that the
// hot evaluation loops need no division. Entries are computed exactly as
// bernstein computes them inline, so results are bit-identical.
type ratioTable struct {
	up, down []float64
}

func newRatioTable(k int) *ratioTable {
	t := &ratioTable{up: make([]float64, k+1), down: make([]float64, k+1)}
	for nu := 0; nu <= k; nu++ {
		t.up[nu] = float64(k-nu) / float64(nu+1)
		t.down[nu] = float64(nu) / float64(k-nu+1)
	}
	return t
}

// bernstein is BernsteinBasis without checks; rt may be nil.
func bernstein(k int, y float64, out []float64, rt *ratioTable) {
	out = out[:k+1]
	if y <= 0.5 {
		q := 1 - y
		b := powInt(q, k)
		r := y / q
		out[0] = b
		if rt != nil {
			up := rt.up[:k+1]
			for nu := 0; nu < k; nu++ {
				b *= up[nu] * r
				out[nu+1] = b
			}
		} else {
			for nu := 0; nu < k; nu++ {
				b *= float64(k-nu) / float64(nu+1) * r
				out[nu+1] = b
			}
		}
		return
	}
	q := 1 - y // exact for y ∈ [½, 1] (Sterbenz)
	b := powInt(y, k)
	r := q / y
	out[k] = b
	if rt != nil {
		down := rt.down[:k+1]
		for nu := k; nu > 0; nu-- {
			b *= down[nu] * r
			out[nu-1] = b
		}
	} else {
		for nu := k; nu > 0; nu-- {
			b *= float64(nu) / float64(k-nu+1) * r
			out[nu-1] = b
		}
	}
}
