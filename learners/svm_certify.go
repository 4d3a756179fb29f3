package learners

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/internal/vexp"
)

// svmGapTerm is U·max(0, −G) + αG, the non-negative duality-gap
// contribution of one coordinate with 0 ≤ α ≤ U.
func svmGapTerm(upper, a, g float64) float64 {
	if g >= 0 {
		return a * g
	}
	return (upper - a) * -g
}

// svmCertifyBlock is the number of rows a worker of exactGradient takes at
// a time.
const svmCertifyBlock = 32

// exactGradient recomputes G = Qα − 1 for every coordinate from scratch:
// f_i = Σ_{j: α_j > 0} α_j l_j K_ij with kernel values in float64 and
// compensated (Neumaier) summation, in parallel. Support vectors whose Q
// row is in the solver's cache contribute α_j·Q_ji·l_i from that row (the
// same float64 kernel values, no exponentials); for the others, pairs of
// two such support vectors are evaluated once and credited to both rows, so
// the kernel evaluations number (n − m)·m + m²/2 for m uncached support
// vectors.
//
// Error (u = 2⁻⁵³, Σ_j α_j ≤ C): each term α_j l_j K_ij is off by
// ≤ α_j((ℓ+7)u + u + vexp.Tiny) when gradientRow computes K_ij (exponent,
// then vexp.Exp with relative error ≤ 4u where math.Exp has < 1 ulp) and
// by ≤ α_j((ℓ+7)u + 4u + vexp.Tiny) when it comes from a cached row of the
// solver (qRowRange with fastExp; the product and the plain sum of
// cachedRows' group of four: γ₄; the signs l are exact), the compensated
// sums (including the merge of the partial sums) add ≤ 3u·Σ_j α_j K_ij +
// O(n u²)·C, so |ΔG_i| ≤ C·(ℓ+15)u·(1 + n·u) (C·vexp.Tiny < C·u·2⁻⁹⁶⁰ and
// the O(u²) parts of γ₄ hide in the factor 1 + n·u), used by
// certifiedGap.
func (s *svmDual) exactGradient(ctx context.Context) error {
	n, k := s.n, s.k
	isSV := make([]bool, n) // uncached support vectors
	var sv, cached []int
	for i, a := range s.alpha {
		switch {
		case a == 0:
		case s.cache.rows[i] != nil:
			cached = append(cached, i)
		default:
			sv = append(sv, i)
			isSV[i] = true
		}
	}
	coef := make([]float64, n) // α_j l_j
	for _, j := range sv {
		coef[j] = s.alpha[j] * k.l[j]
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), n/svmCertifyBlock))
	accs := make([][]ermSum, workers+1)
	accs[workers] = make([]ermSum, n) // cached rows; each i written by one worker
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		acc := make([]ermSum, n)
		accs[w] = acc
		buf := make([]float64, len(sv)) // kernel values of one row
		wg.Go(func() {
			for {
				lo := int(next.Add(svmCertifyBlock)) - svmCertifyBlock
				if lo >= n || ctx.Err() != nil {
					return
				}
				hi := min(n, lo+svmCertifyBlock)
				for i := lo; i < hi; i++ {
					s.gradientRow(i, isSV[i], sv, coef, acc, buf)
				}
				s.cachedRows(lo, hi, cached, accs[workers])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: fit cancelled: %w", KindSVM, err)
	}
	for i := range n {
		var t ermSum
		for _, acc := range accs {
			t.add(acc[i].s)
			t.add(acc[i].c)
		}
		s.grad[i] = k.l[i]*t.value() - 1
	}
	s.exact = true
	m := len(sv)
	s.exactEvals += (n-m)*m + m*(m-1)/2
	return nil
}

// cachedRows adds α_j·Q_ji·l_i = α_j l_j K_ij to acc[i], i ∈ [lo, hi), for
// the support vectors j whose Q row is cached (read only here), four rows
// at a time: the four products are summed in plain floating point (at most
// four roundings per term, γ₄ relative to Σ|α_j Q_ji| of the group) and
// the group's sum enters the compensated sum (one Neumaier step per four
// terms instead of per term).
func (s *svmDual) cachedRows(lo, hi int, cached []int, acc []ermSum) {
	l, rows, alpha := s.k.l[lo:hi], s.cache.rows, s.alpha
	acc = acc[lo:hi]
	j := 0
	for ; j+4 <= len(cached); j += 4 {
		a0, a1, a2, a3 := alpha[cached[j]], alpha[cached[j+1]], alpha[cached[j+2]], alpha[cached[j+3]]
		r0, r1, r2, r3 := rows[cached[j]][lo:hi], rows[cached[j+1]][lo:hi], rows[cached[j+2]][lo:hi], rows[cached[j+3]][lo:hi]
		for i := range acc {
			acc[i].add((a0*r0[i] + a1*r1[i] + a2*r2[i] + a3*r3[i]) * l[i])
		}
	}
	for ; j < len(cached); j++ {
		a, row := alpha[cached[j]], rows[cached[j]][lo:hi]
		for i := range acc {
			acc[i].add(a * row[i] * l[i])
		}
	}
}

// gradientRow adds row i's contributions to acc: f_i gets α_j l_j K_ij for
// every support vector j (only j ≥ i if i is itself a support vector), and
// f_j gets α_i l_i K_ij for support vectors j > i. The kernel values are
// formed in buf (len(buf) ≥ len(sv)): the exponents, then vexp.Exp over
// the row (relative error ≤ 4u where math.Exp has < 1 ulp; the
// margin of svmCertifiedGap counts it, as for cached rows).
func (s *svmDual) gradientRow(i int, iSV bool, sv []int, coef []float64, acc []ermSum, buf []float64) {
	k := s.k
	xi := k.point(i)
	start := 0
	if iSV {
		// sv is sorted: skip j < i, whose pairs row j has credited to i.
		lo, hi := 0, len(sv)
		for lo < hi {
			m := (lo + hi) / 2
			if sv[m] < i {
				lo = m + 1
			} else {
				hi = m
			}
		}
		start = lo
	}
	js := sv[start:]
	kv := buf[:len(js)]
	for t, j := range js {
		kv[t] = k.exponent(xi, k.point(j))
	}
	vexp.Exp(kv, kv)
	ci := coef[i]
	ai := &acc[i]
	for t, j := range js {
		if j == i {
			ai.add(ci * (1 + k.c)) // K_ii = 1 + c
			continue
		}
		kij := kv[t] + k.c
		ai.add(coef[j] * kij)
		if iSV {
			acc[j].add(ci * kij)
		}
	}
}

// certifiedGap returns an upper bound on the exact duality gap P(w(α)) −
// D(α) from the exact gradient of exactGradient: the gap terms are summed
// with compensated summation; each term is U-Lipschitz in G_i (U ≤ C/n)
// and rounded with relative error 2u, and the sum adds 2u·gap, so
//
//	gap ≤ ĝ·(1 + 6u) + C²·(ℓ+15)u·(1 + n·u);
//
// the margin below doubles the last term.
func (s *svmDual) certifiedGap(c float64) float64 {
	if !s.exact {
		panic("learners: svm certifiedGap without an exact gradient") // programmer misuse
	}
	return svmCertifiedGap(c, s.k.c, s.upper, s.k.dim, s.alpha, s.grad)
}

// svmCertifiedGap is the certified gap of certifiedGap for feasible alpha
// (0 ≤ α_i ≤ upper ≤ C/n) and a gradient G = Qα − 1 computed from float64
// kernel values (math.Exp, or the solver's vexp.Exp rows) with compensated
// summation (|ΔG_i| ≤ C(ℓ+15)u(1 + nu) for the RBF part; with the
// intercept constant icpt every kernel value is ≤ κ² = 1 + icpt and errs by
// ≤ (ℓ+8)u·κ², so the margin is scaled by κ²).
func svmCertifiedGap(c, icpt, upper float64, dim int, alpha, grad []float64) float64 {
	var gap ermSum
	for i, g := range grad {
		gap.add(svmGapTerm(upper, alpha[i], g))
	}
	u := ermRoundoff
	margin := 2 * c * c * (1 + icpt) * float64(dim+16) * u * (1 + float64(len(grad))*u)
	return gap.value()*(1+6*u) + margin
}
