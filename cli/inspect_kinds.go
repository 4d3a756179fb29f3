package cli

import (
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// describeMechanism is inspect's mechanism line for every synopsis kind
// (docs/synopsis-format.md, "Synopsis kinds").
func describeMechanism(f *synopsis.File) string {
	m := f.Mechanism
	switch m.Name {
	case synopsis.MechanismGP:
		return fmt.Sprintf("%s (Hall et al. Gaussian process), grid ν/k with k = %v, multilinear interpolation, %s neighbours", m.Name, m.K, m.Neighbouring)
	case synopsis.MechanismTrig:
		return fmt.Sprintf("%s (Wang et al. trigonometric summary), t = %d moments, Jackson order %d, %s neighbours", m.Name, m.Moments, f.Trig.Jackson, m.Neighbouring)
	case synopsis.MechanismOutputPerturbation:
		return fmt.Sprintf("%s (Chaudhuri & Vinterbo), %d noisy weights, %s neighbours", m.Name, len(f.Values), m.Neighbouring)
	}
	return fmt.Sprintf("%s, k = %v, h = %d, %s neighbours", m.Name, m.K, m.H, m.Neighbouring)
}

// describeNoise is inspect's noise line: the public noise description.
func describeNoise(f *synopsis.File) string {
	m := f.Mechanism
	switch m.Name {
	case synopsis.MechanismGP:
		g := f.GP
		return fmt.Sprintf("Gaussian process of scale √c = %g, kernel A = %g, σ = %v, jitter %v, RKHS sensitivity Δ_H = %g", m.Scale, g.Amplitude, g.Sigmas, g.Jitter, g.RKHSSensitivity)
	case synopsis.MechanismTrig:
		return fmt.Sprintf("%s, scale %g per moment S̃_1..S̃_{t−1} (S̃_0 = 1 exact)", m.Noise, m.Scale)
	case synopsis.MechanismOutputPerturbation:
		return fmt.Sprintf("%s: density ∝ exp(−‖b‖/θ), θ = Δ₂/ε = %g, Δ₂ = %g", m.Noise, m.Scale, f.Linear.Sensitivity2)
	}
	return fmt.Sprintf("%s, scale %g per lattice value", m.Noise, m.Scale)
}

// describeValues names what the value lines are.
func describeValues(f *synopsis.File) string {
	switch f.Mechanism.Name {
	case synopsis.MechanismGP:
		return "released grid values"
	case synopsis.MechanismTrig:
		return "noisy moments"
	case synopsis.MechanismOutputPerturbation:
		return "noisy weights"
	}
	return "noisy lattice values"
}
