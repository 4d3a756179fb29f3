package mechanism

import (
	"fmt"
	"math"

	"github.com/google/differential-privacy/go/v3/noise"
)

// NoiseScale returns the scale of the noise added to every coefficient:
//
//   - NoiseLaplace (Algorithm 1, line 4): λ = S·m/ε with m = ∏(k_j+1) —
//     the Laplace mechanism (Lemma 1) for the L1 sensitivity S·m of the
//     vector of lattice values (Theorem 3, Appendix B).
//   - NoiseLaplaceApprox (Section 4.2): λ_δ = S/ε′ with
//     ε′ = ε/(2√(2m·ln(1/δ))), i.e. λ_δ = 2·S·√(2m·ln(1/δ))/ε; see
//     ApproxComposedEpsilon for the guarantee.
//   - NoiseGaussian: σ = noise.SigmaForGaussian(m, S, ε, δ) of the secure
//     noise library (Balle & Wang's analytic Gaussian mechanism for L2
//     sensitivity S·√m), exactly the σ its Gaussian().AddNoiseFloat64 uses.
//
// s and p are validated (ValidateSensitivity, Params.Validate); an infinite
// scale is an error.
func NoiseScale(s float64, p Params) (float64, error) {
	if err := ValidateSensitivity(s); err != nil {
		return 0, err
	}
	if err := p.Validate(); err != nil {
		return 0, err
	}
	return noiseScaleValid(s, p)
}

// noiseScaleValid is NoiseScale for already validated arguments.
func noiseScaleValid(s float64, p Params) (float64, error) {
	m := coefficientCount(p.K)
	var scale float64
	switch p.Noise {
	case NoiseLaplace:
		scale = s * float64(m) / p.Epsilon // the library's laplaceLambda: lInf·l0/ε
	case NoiseLaplaceApprox:
		scale = s / approxEpsilonPrime(p.Epsilon, p.Delta, m)
	case NoiseGaussian:
		scale = noise.SigmaForGaussian(int64(m), s, p.Epsilon, p.Delta)
	}
	if !finitePositive(scale) {
		return 0, paramErr("sensitivity", s, "with ε = %g and m = %d coefficients gives a noise scale of %g; it must be finite and > 0", p.Epsilon, m, scale)
	}
	return scale, nil
}

// secureNoise adds release noise from github.com/google/differential-privacy
// (cryptographically secure randomness, floating-point-safe sampling). It is
// the only noise source of Sanitize and SanitizeValues and cannot be
// replaced: it has no seed and no exported form.
type secureNoise struct {
	n     noise.Noise
	l0    int64
	lInf  float64
	eps   float64
	delta float64
}

// newSecureNoise calibrates the library call for validated s and p.
func newSecureNoise(s float64, p Params) (*secureNoise, error) {
	m := coefficientCount(p.K) // ≤ MaxCoefficients, so it fits in int64
	switch p.Noise {
	case NoiseLaplace:
		return &secureNoise{n: noise.Laplace(), l0: int64(m), lInf: s, eps: RoundingSafeEpsilon(p.Epsilon, m)}, nil
	case NoiseLaplaceApprox:
		return &secureNoise{n: noise.Laplace(), l0: 1, lInf: s, eps: approxEpsilonPrime(p.Epsilon, p.Delta, m)}, nil
	case NoiseGaussian:
		return &secureNoise{n: noise.Gaussian(), l0: int64(m), lInf: s, eps: p.Epsilon, delta: p.Delta}, nil
	}
	return nil, paramErr("noise", string(p.Noise), "unknown noise kind")
}

// add returns x plus one fresh secure noise draw.
func (s *secureNoise) add(x float64) (float64, error) {
	y, err := s.n.AddNoiseFloat64(x, s.l0, s.lInf, s.eps, s.delta)
	if err != nil {
		return 0, fmt.Errorf("secure noise: %w", err)
	}
	if math.IsNaN(y) || math.IsInf(y, 0) {
		return 0, fmt.Errorf("secure noise: non-finite noisy value %g for input %g", y, x)
	}
	return y, nil
}
