package release

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
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
	help := WhatWouldHelp(p.Spec, len(p.Params.K), slices.ContainsFunc(p.Params.K, func(k int) bool { return k > 1 }))
	return fmt.Sprintf("the noise on each released value (standard deviation %.3g, in the learner's units) is %.3g times the width of the function's public range [%.4g, %.4g]: "+
		"the released function will likely show little or nothing of the data. What would help: %s (the curator's preview simulates the error)",
		std, std/width, lo, hi, help)
}

// WhatWouldHelp is the one wording of what would let a release show more
// of the data when its noise swamps the function (NoiseWarning, the
// preview's publishing-zero warning): a larger smoothing parameter (the
// learner's bandwidth or σ, named as the curator sees it), a larger ε, a
// smaller k when smallerK (some k_j > 1 and k was not already searched),
// and fewer features when the learner has more than one (dims > 1). It
// depends on public settings only.
func WhatWouldHelp(spec learners.Spec, dims int, smallerK bool) string {
	var help []string
	for _, s := range spec.Params {
		if s.Name == "bandwidth" || s.Name == "sigma" {
			help = append(help, "a larger "+s.Name)
			break
		}
	}
	help = append(help, "a larger ε")
	if smallerK {
		help = append(help, "a smaller k")
	}
	if dims > 1 {
		help = append(help, "fewer features")
	}
	if len(help) == 1 {
		return help[0]
	}
	return strings.Join(help[:len(help)-1], ", ") + " or " + help[len(help)-1]
}
