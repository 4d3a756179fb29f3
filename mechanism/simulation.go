package mechanism

import (
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: simulations and previews only, never releases
	"slices"
)

// SimulationNoise is a SEEDED, reproducible noise source for previews,
// plots, utility simulations and tests. It is not cryptographically secure
// and its output is predictable from the seed, so it must never perturb a
// release: the release functions (Sanitize, SanitizeValues) accept no noise
// source at all, and Simulate returns a SimulatedRelease, a type that cannot
// be converted to a Synopsis. It is not safe for concurrent use.
type SimulationNoise struct {
	r *rand.Rand
}

// NewSimulationNoise returns a PCG-seeded simulation noise source.
func NewSimulationNoise(seed uint64) *SimulationNoise {
	return &SimulationNoise{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Laplace returns one Laplace(0, scale) draw (density e^{−|z|/scale}/(2·scale)),
// as a random sign times an Exp(1) draw times scale.
func (s *SimulationNoise) Laplace(scale float64) float64 {
	z := s.r.ExpFloat64() * scale
	if s.r.Uint64()&1 == 0 {
		return -z
	}
	return z
}

// Gaussian returns one Normal(0, σ²) draw.
func (s *SimulationNoise) Gaussian(sigma float64) float64 {
	return s.r.NormFloat64() * sigma
}

// SimulatedRelease is what a release with the given parameters could look
// like, made with SimulationNoise. It offers the same evaluation methods as a
// Synopsis but is a distinct type: it is not a release and carries no
// privacy guarantee (its noise is predictable from the seed).
type SimulatedRelease struct {
	*Polynomial // coefficients: exact values + simulated noise

	Noise NoiseKind // simulated noise kind
	Scale float64   // λ, λ_δ or σ, from NoiseScale
}

// NoiseStdAt returns the standard deviation of the simulated noise part at y.
func (s *SimulatedRelease) NoiseStdAt(y []float64) (float64, error) {
	return s.NoiseStd(y, s.Noise, s.Scale)
}

// Simulate perturbs exact lattice values like SanitizeValues would — same
// validation, same scale (NoiseScale), same distribution family — but with
// the seeded src. For previews and tests only.
func Simulate(exact []float64, sensitivity float64, p Params, src *SimulationNoise) (*SimulatedRelease, error) {
	if src == nil {
		return nil, errors.New("mechanism.Simulate: nil simulation noise source")
	}
	if err := ValidateSensitivity(sensitivity); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkCoefficients(p.K, exact); err != nil {
		return nil, err
	}
	scale, err := noiseScaleValid(sensitivity, p)
	if err != nil {
		return nil, err
	}
	noisy := make([]float64, len(exact))
	for i, x := range exact {
		switch p.Noise {
		case NoiseGaussian:
			noisy[i] = x + src.Gaussian(scale)
		default:
			noisy[i] = x + src.Laplace(scale)
		}
		if math.IsInf(noisy[i], 0) {
			return nil, fmt.Errorf("mechanism.Simulate: noisy value overflowed at %s", Lattice{K: p.K}.describe(i))
		}
	}
	return &SimulatedRelease{
		Polynomial: newPolynomial(slices.Clone(p.K), p.H, noisy),
		Noise:      p.Noise,
		Scale:      scale,
	}, nil
}
