package learners

import (
	"fmt"
	"math"
)

// Lattice sensitivity of the SVM's decision function (issue 17; derivation
// in docs/sensitivity.md, "Lattice sensitivity of the SVM's kernel
// score"). The released function is f(y) = ⟨ŵ, Φ(y)⟩ in the RKHS of
// K_c(x, y) = exp(−‖x − y‖²/(2σ²)) + c, and replace-one neighbours have
// ‖ŵ − ŵ′‖ ≤ D = (stab + solver term)/κ (the RKHS-norm bound behind S =
// κD + fp). For the vector Δ of lattice changes ⟨Δw, Φ(ν/k)⟩ and the
// lattice's Gram matrix G_νμ = K_c(ν/k, μ/k) (m × m, entries > 0):
//
//	‖Δ‖₁ = ⟨Δw, Σ_ν s_ν Φ(ν/k)⟩ ≤ D·√(sᵀGs) ≤ D·√(1ᵀG1)   (s_ν = sign Δ_ν, G ≥ 0)
//	‖Δ‖₂ = sup_{‖u‖≤1} ⟨Δw, Σ_ν u_ν Φ(ν/k)⟩ ≤ D·√λ_max(G) ≤ D·√(max row sum of G)
//
// The Gaussian factorises over the axes, so 1ᵀG1 = ∏_j T_j + c·m² and
// the largest row sum is ∏_j R_j + c·m, with T_j the sum and R_j the
// largest row sum of the (k_j+1)×(k_j+1) matrix exp(−((i − i′)/k_j)²/(2σ²)).
// With the oracle's rounding fp per value:
//
//	L₁(k) = D·√(∏T_j + c·m²)/m + fp     (‖Δ‖₁ ≤ m·L₁: Laplace noise)
//	L₂(k) = D·√((∏R_j + c·m)/m) + fp    (‖Δ‖₂ ≤ √m·L₂ and ‖Δ‖₁ ≤ m·L₂)
//
// Both are ≤ S = κD + fp (T_j ≤ (k_j+1)·R_j, R_j ≤ k_j + 1). The sums are
// computed in float64 and inflated by a relative 10⁻⁹, far above their
// rounding error (each has ≤ 1001 terms, every term ≥ 0 and the diagonal
// terms exactly 1).

// svmLatticeInflate is the relative inflation of the computed lattice sums.
const svmLatticeInflate = 1 + 1e-9

// svmLatticeSensitivities returns L₁ and L₂ above for dimension dim,
// kernel width sigma, intercept constant icpt, RKHS-norm bound d and
// floating-point term fp. They depend on these public values and k only.
func svmLatticeSensitivities(dim int, sigma, icpt, d, fp float64) (l1, l2 func(k []int) float64) {
	l1 = func(k []int) float64 {
		t, _, m := svmLatticeSums(dim, sigma, k)
		return d*math.Sqrt((t+icpt*m*m)*svmLatticeInflate)/m + fp
	}
	l2 = func(k []int) float64 {
		_, r, m := svmLatticeSums(dim, sigma, k)
		return d*math.Sqrt((r+icpt*m)*svmLatticeInflate/m) + fp
	}
	return l1, l2
}

// svmLatticeSums returns ∏_j T_j, ∏_j R_j and m = ∏_j (k_j+1) for the
// Gaussian kernel of width sigma on the lattice of cover sizes k. It
// panics if len(k) ≠ dim or some k_j < 1 (programmer misuse).
func svmLatticeSums(dim int, sigma float64, k []int) (t, r, m float64) {
	if len(k) != dim {
		panic(fmt.Sprintf("learners: svm lattice sensitivity: len(k) = %d, want ℓ = %d", len(k), dim))
	}
	t, r, m = 1, 1, 1
	for j, kj := range k {
		if kj < 1 {
			panic(fmt.Sprintf("learners: svm lattice sensitivity: k[%d] = %d: must be ≥ 1", j, kj))
		}
		tj, rj := svmAxisSums(kj, sigma)
		t, r, m = t*tj, r*rj, m*float64(kj+1)
	}
	return t, r, m
}

// svmAxisSums returns the sum T and the largest row sum R of the
// (k+1)×(k+1) matrix g(i − i′) = exp(−((i − i′)/k)²/(2σ²)): with the
// prefix sums P(a) = Σ_{d=0}^{a} g(d), row i sums to P(i) + P(k − i) − 1,
// and T = (k+1) + 2·Σ_{d=1}^{k} (k+1−d)·g(d).
func svmAxisSums(k int, sigma float64) (t, r float64) {
	g := 1 / (2 * sigma * sigma)
	prefix := make([]float64, k+1)
	t = float64(k + 1)
	prefix[0] = 1
	for d := 1; d <= k; d++ {
		x := float64(d) / float64(k)
		v := math.Exp(-g * x * x)
		prefix[d] = prefix[d-1] + v
		t += 2 * float64(k+1-d) * v
	}
	for i := 0; i <= k; i++ {
		r = max(r, prefix[i]+prefix[k-i]-1)
	}
	return t, r
}
