package learners

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// logisticLatticeSensitivity returns the lattice noise sensitivity L(k) of
// the affine logistic score F_D(y) = ⟨ŵ, ỹ⟩, ỹ = (2y − 1, b)/√(ℓ + b²), for
// a bound D ≥ ‖ŵ − ŵ'‖ over replace-one neighbours and the floating-point
// term fp (Fitted.LatticeNoiseSensitivity; derivation in docs/sensitivity.md,
// "Lattice sensitivity of the affine logistic score"):
//
//	L(k) = ρ(k)·D + fp,  ρ(k) = √( max(v(k_min), b²) / (ℓ + b²) ),
//	v(k) = (1/(k+1))·Σ_{i=0}^{k} (2i/k − 1)² = (k + 2)/(3k),
//
// so that, over the m = ∏(k_j+1) lattice points, the L2 norm of the change
// of the lattice values is ≤ √m·L(k) and its L1 norm ≤ m·L(k). The proof:
// Σ_ν ỹ_ν ỹ_νᵀ is diagonal (each axis's grid is symmetric about ½) with
// largest entry m·max(v(k_min), b²)/(ℓ + b²), so Σ_ν ⟨Δw, ỹ_ν⟩² ≤
// m·ρ²·‖Δw‖², and Cauchy–Schwarz gives the L1 norm. ρ ≤ 1, so L(k) ≤ S;
// the L2 bound is attained (Δw along the top eigenvector), and at k = 1 the
// L1 bound too (Δw along an axis: every |⟨Δw, ỹ_ν⟩| equals ρ‖Δw‖).
func logisticLatticeSensitivity(dim int, b, d, fp float64) func(k []int) float64 {
	return func(k []int) float64 {
		if len(k) != dim {
			panic(fmt.Sprintf("learners: logistic LatticeNoiseSensitivity: len(k) = %d, want ℓ = %d", len(k), dim))
		}
		kMin := k[0]
		for j, kj := range k {
			if kj < 1 {
				panic(fmt.Sprintf("learners: logistic LatticeNoiseSensitivity: k[%d] = %d: must be ≥ 1", j, kj))
			}
			kMin = min(kMin, kj)
		}
		return logisticLatticeFactor(dim, kMin, b)*d + fp
	}
}

// logisticLatticeFactor is ρ(k) of logisticLatticeSensitivity for the
// smallest cover size kMin.
func logisticLatticeFactor(dim, kMin int, b float64) float64 {
	v := float64(kMin+2) / float64(3*kMin)
	return math.Min(1, math.Sqrt(math.Max(v, b*b)/(float64(dim)+b*b)))
}

// NoiseSensitivity returns the per-coefficient sensitivity the release
// noise of the given kind is calibrated to at cover size k (the one rule;
// mechanism.NoiseScale turns it into the noise scale): for Laplace noise
// LatticeLaplaceSensitivity(k) (L1 sensitivity m·L₁) if the fit states
// one, else LatticeNoiseSensitivity(k); for Gaussian noise
// LatticeNoiseSensitivity(k) (L2 sensitivity √m·L); Sensitivity when the
// fit states no such bound, and always for NoiseLaplaceApprox, whose
// per-coefficient composition needs the sup-norm bound. It never exceeds
// Sensitivity and never reads data.
func (f *Fitted) NoiseSensitivity(k []int, noise mechanism.NoiseKind) float64 {
	lattice := f.LatticeNoiseSensitivity
	if noise == mechanism.NoiseLaplace && f.LatticeLaplaceSensitivity != nil {
		lattice = f.LatticeLaplaceSensitivity
	}
	if lattice == nil || (noise != mechanism.NoiseLaplace && noise != mechanism.NoiseGaussian) {
		return f.Sensitivity
	}
	return math.Min(f.Sensitivity, lattice(k))
}
