package peers

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// MaxOutputPerturbationDim bounds d, the length of a perturbed weight
// vector (memory, not privacy).
const MaxOutputPerturbationDim = 1 << 20

// NoiseSource is the caller-supplied source of the draws a peer needs:
// mechanism.SimulationNoise (seeded, for figures and previews) satisfies
// it. A real release would need a cryptographically seeded source; peers
// draw no noise of their own (see the package comment).
type NoiseSource interface {
	// Laplace returns a draw from Laplace(0, scale).
	Laplace(scale float64) float64
	// Gaussian returns a draw from N(0, sigma²).
	Gaussian(sigma float64) float64
}

// OutputPerturbationScale returns Δ₂/ε, the scale θ of the noise norm of
// OutputPerturbationNoise. Δ₂ (sens2) must be positive and finite (the L2
// sensitivity of the perturbed vector), ε as mechanism.ValidateEpsilon.
func OutputPerturbationScale(sens2, epsilon float64) (float64, error) {
	if !(sens2 > 0) || math.IsInf(sens2, 0) {
		return 0, fmt.Errorf("peers.OutputPerturbation: sensitivity Δ₂ = %v: must be positive and finite", sens2)
	}
	if err := mechanism.ValidateEpsilon(epsilon); err != nil {
		return 0, fmt.Errorf("peers.OutputPerturbation: %w", err)
	}
	return sens2 / epsilon, nil
}

// OutputPerturbationNoise draws b ∈ ℝ^d with density ∝ exp(−(ε/Δ₂)‖b‖₂),
// the noise of Chaudhuri & Vinterbo (NIPS 2013), Appendix, Algorithm 4
// (output perturbation for L2-regularised linear classifiers): there
// w* + (2/(λαn))·R with ρ(R) ∝ e^{−‖R‖}, and 2/(λn) is the L2 sensitivity
// of w* (their proof of Theorem 4), so the scale is Δ₂/ε with α = ε.
//
// Guarantee: if the exact vector w has ‖w_D − w_D′‖₂ ≤ Δ₂ for all
// neighbours, releasing w + b is ε-DP: the densities of w_D + b and
// w_D′ + b at any v differ by the factor
// exp((ε/Δ₂)(‖v − w_D′‖ − ‖v − w_D‖)) ≤ exp((ε/Δ₂)‖w_D − w_D′‖) ≤ e^ε.
//
// Sampling: in polar coordinates the density factors into a direction
// uniform on the sphere S^{d−1} and a norm with density ∝ r^{d−1}e^{−r/θ},
// i.e. Gamma(shape d, scale θ = Δ₂/ε). The direction is a normalised
// vector of d standard Gaussians (rotation invariance); the norm is θ
// times the sum of d Exp(1) draws, each the absolute value of a
// Laplace(1) draw. All draws come from src (see NoiseSource).
//
// 1 ≤ d ≤ MaxOutputPerturbationDim, Δ₂ and ε positive and finite, src not
// nil; errors name the value and the rule.
func OutputPerturbationNoise(d int, sens2, epsilon float64, src NoiseSource) ([]float64, error) {
	if d < 1 || d > MaxOutputPerturbationDim {
		return nil, fmt.Errorf("peers.OutputPerturbationNoise: d = %d: must be between 1 and %d", d, MaxOutputPerturbationDim)
	}
	theta, err := OutputPerturbationScale(sens2, epsilon)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("peers.OutputPerturbationNoise: noise source is nil: the caller must supply one")
	}
	b := make([]float64, d)
	for {
		var s float64
		for i := range b {
			b[i] = src.Gaussian(1)
			s += b[i] * b[i]
		}
		if s > 0 { // probability 1; redraw the null vector
			inv := 1 / math.Sqrt(s)
			for i := range b {
				b[i] *= inv
			}
			break
		}
	}
	var r float64
	for range d {
		r += math.Abs(src.Laplace(1))
	}
	r *= theta
	for i := range b {
		b[i] *= r
	}
	return b, nil
}
