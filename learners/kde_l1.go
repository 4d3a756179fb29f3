package learners

import (
	"fmt"
	"math"
	"slices"
)

// kdeLatticeL1 returns the KDE's lattice-L1 sensitivity L(k) for bandwidths
// bw and n records (Fitted.LatticeL1Sensitivity; derivation in
// docs/sensitivity.md, "Lattice-L1 sensitivity of the KDE"):
//
//	L(k) = min( S, (2/n)·( ∏_j θ_j(k_j)/(k_j + 1) − K·e^{−q} ) ),
//
// with p_j = 1/(√(2π)·b_j) the peak of the axis-j Gaussian g_j,
// K = ∏_j p_j, q = Σ_j 1/(2b_j²), S = K·(1 − e^{−q})/n the sup-norm
// sensitivity, and θ_j(k) ≥ sup_x Σ_{ν=0}^{k} g_j(ν/k − x) the axis bound of
// latticeSumBound (≤ k + p_j). The proof: F_D − F_D' = (K(·−x) − K(·−x'))/n
// for the replaced record x and its replacement x'; |a − b| = a + b −
// 2·min(a, b) with both kernel values ≥ K·e^{−q} on the unit cube; and the
// lattice sum of one kernel factorises over the axes. L depends on n, the
// bandwidths and k only.
func kdeLatticeL1(bw []float64, n int) func(k []int) float64 {
	bw = slices.Clone(bw)
	big, q := 1.0, 0.0
	for _, b := range bw {
		big *= gaussPeak(b)
		q += 1 / (2 * b * b)
	}
	floor := big * math.Exp(-q)
	sup := big * -math.Expm1(-q) / float64(n)
	return func(k []int) float64 {
		if len(k) != len(bw) {
			panic(fmt.Sprintf("learners: kde LatticeL1Sensitivity: len(k) = %d, want ℓ = %d", len(k), len(bw)))
		}
		r := 1.0
		for j, kj := range k {
			if kj < 1 {
				panic(fmt.Sprintf("learners: kde LatticeL1Sensitivity: k[%d] = %d: must be ≥ 1", j, kj))
			}
			r *= latticeSumBound(bw[j], kj) / float64(kj+1)
		}
		return max(0, min(sup, 2*(r-floor)/float64(n)))
	}
}

// latticeSumBound returns θ ≥ sup_{x ∈ ℝ} Σ_{ν=0}^{k} g(ν/k − x) for the
// Gaussian density g of bandwidth b (peak p = 1/(√(2π)·b)):
//
//   - always θ ≤ k + p: for any unimodal g with ∫g = 1 and spacing d,
//     d·Σ_{ν∈ℤ} g(νd − x) ≤ ∫g + d·max g (docs/sensitivity.md);
//   - for the Gaussian, by Poisson summation Σ_{ν∈ℤ} g(νd − x) =
//     (1/d)·Σ_m e^{−2π²b²m²/d²}·cos(2πmx/d) is largest at x = 0, where it
//     equals p·Σ_{m∈ℤ} e^{−m²/(2s²)}, s = b·k. This theta sum is computed
//     for s ≤ 50 with |m| ≤ M = ⌈40s⌉ + 1 (the tail Σ_{m>M} ≤
//     (s²/M)·e^{−M²/(2s²)} < e^{−800} is below float64 resolution); for
//     s > 50 it differs from k + p by less than 1% and k + p is used.
//
// It panics unless b > 0 and k ≥ 1 (programmer misuse).
func latticeSumBound(b float64, k int) float64 {
	if !(b > 0) || k < 1 {
		panic(fmt.Sprintf("learners: latticeSumBound(b = %g, k = %d): need b > 0 and k ≥ 1", b, k))
	}
	p := gaussPeak(b)
	general := float64(k) + p
	s := b * float64(k)
	if s > 50 {
		return general
	}
	mMax := int(math.Ceil(40*s)) + 1
	var tail float64
	for m := mMax; m >= 1; m-- { // small terms first
		fm := float64(m)
		tail += math.Exp(-fm * fm / (2 * s * s))
	}
	return min(general, p*(1+2*tail))
}
