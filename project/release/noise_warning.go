package release

import (
	"fmt"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// NoiseWarning says, from public quantities only (the proven sensitivity
// S, ε, δ, the noise kind, k and the learner's public output range), when
// the noise on every released lattice value is so large against the
// function's public range that the release will likely show little or
// nothing of the data: the standard deviation of one coefficient's noise
// (√2·λ for Laplace noise of scale λ, σ for Gaussian noise) is at least
// half the width of the output range. The command line prints it before
// anything is spent; the curator's preview has its own, finer warning from
// simulated releases. "" when the noise is smaller, or for an aggregate
// release without a fitted output range.
//
// It never reads the data: S, the range and k depend on n, the parameters
// and the public bounds only (learners.Fitted).
func (p *Prepared) NoiseWarning() string {
	if p.Fitted == nil {
		return ""
	}
	lo, hi := p.Fitted.OutputRange[0], p.Fitted.OutputRange[1]
	width := hi - lo
	scale, err := mechanism.NoiseScale(p.Fitted.NoiseSensitivity(p.Params.K, p.Params.Noise), p.Params)
	if err != nil || !(width > 0) {
		return ""
	}
	std := scale
	if p.Params.Noise != mechanism.NoiseGaussian {
		std = math.Sqrt2 * scale
	}
	if std < width/2 {
		return ""
	}
	help := "a larger ε"
	if slices.ContainsFunc(p.Params.K, func(k int) bool { return k > 1 }) {
		help += ", a smaller k"
	}
	for _, s := range p.Spec.Params {
		if s.Name == "bandwidth" || s.Name == "sigma" {
			help += ", a larger " + s.Name
			break
		}
	}
	if len(p.Params.K) > 1 {
		help += ", fewer features"
	}
	return fmt.Sprintf("the noise on each released value (standard deviation %.3g, in the learner's units) is %.3g times the width of the function's public range [%.4g, %.4g]: "+
		"the released function will likely show little or nothing of the data. What would help: %s (the curator's preview simulates the error)",
		std, std/width, lo, hi, help)
}
