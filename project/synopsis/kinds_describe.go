package synopsis

import "fmt"

// DescribeMechanism is the mechanism in one line, for every synopsis kind
// (inspect, the viewer; docs/synopsis-format.md, "Synopsis kinds").
func (f *File) DescribeMechanism() string {
	m := f.Mechanism
	switch m.Name {
	case MechanismGP:
		return fmt.Sprintf("%s (Hall et al. Gaussian process), grid ν/k with k = %v, multilinear interpolation, %s neighbours", m.Name, m.K, m.Neighbouring)
	case MechanismTrig:
		return fmt.Sprintf("%s (Wang et al. trigonometric summary), t = %d moments, Jackson order %d, %s neighbours", m.Name, m.Moments, f.Trig.Jackson, m.Neighbouring)
	case MechanismOutputPerturbation:
		return fmt.Sprintf("%s (Chaudhuri & Vinterbo), %d noisy weights, %s neighbours", m.Name, len(f.Values), m.Neighbouring)
	}
	return fmt.Sprintf("%s, k = %v, h = %d, %s neighbours", m.Name, m.K, m.H, m.Neighbouring)
}

// DescribeNoise is the public noise description in one line.
func (f *File) DescribeNoise() string {
	m := f.Mechanism
	switch m.Name {
	case MechanismGP:
		g := f.GP
		return fmt.Sprintf("Gaussian process of scale √c = %g, kernel A = %g, σ = %v, jitter %v, RKHS sensitivity Δ_H = %g", m.Scale, g.Amplitude, g.Sigmas, g.Jitter, g.RKHSSensitivity)
	case MechanismTrig:
		return fmt.Sprintf("%s, scale %g per moment S̃_1..S̃_{t−1} (S̃_0 = 1 exact)", m.Noise, m.Scale)
	case MechanismOutputPerturbation:
		return fmt.Sprintf("%s: density ∝ exp(−‖b‖/θ), θ = Δ₂/ε = %g, Δ₂ = %g", m.Noise, m.Scale, f.Linear.Sensitivity2)
	}
	return fmt.Sprintf("%s, scale %g per lattice value", m.Noise, m.Scale)
}

// DescribeValues names what the value lines are.
func (f *File) DescribeValues() string {
	switch f.Mechanism.Name {
	case MechanismGP:
		return "released grid values"
	case MechanismTrig:
		return "noisy moments"
	case MechanismOutputPerturbation:
		return "noisy weights"
	}
	return "noisy lattice values"
}

// NameAndKind is the output's name followed by its kind in parentheses,
// the kind left out where it only repeats the name ("regression", not
// "regression (regression)"; "score (class-score)"), for inspect and the
// viewer.
func (o OutputInfo) NameAndKind() string {
	if o.Kind == "" || o.Kind == o.Name {
		return o.Name
	}
	return o.Name + " (" + o.Kind + ")"
}
