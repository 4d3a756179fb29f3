package learners

import (
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The stand-ins below tell the automatic cover size (mechanism.AutoK) how
// finely each learner's F_D can vary. They are built from the learner's
// public parameters, n and the public bounds only — never from the records
// — and they describe a typical F_D, not a worst case: a dataset spread
// over the curator's bounds with a standard deviation of StandInSpread
// (mapped units) per feature. The derivation and the reasons for each are
// in docs/sensitivity.md, "The automatic cover size".

// StandInSpread is the public per-feature spread (standard deviation, in
// mapped units) of the typical dataset behind the stand-ins: a feature that
// fills its bounds like a normal distribution spanning about 60% of them.
const StandInSpread = 0.1

// densityStandIn is the KDE's stand-in: the density of the typical dataset
// smoothed by the kernel, a Gaussian of scale s_j = √(b_j² + τ²) per axis
// and height ∏ 1/(√(2π)·s_j), scaled by share (1 for the KDE, ½ for naive
// Bayes' difference of two class-weighted densities).
func densityStandIn(bw []float64, share float64) mechanism.StandIn {
	f := mechanism.StandIn{Amplitude: share, Scale: make([]float64, len(bw))}
	for j, b := range bw {
		s := math.Hypot(b, StandInSpread)
		f.Scale[j] = s
		f.Amplitude *= gaussPeak(s)
	}
	return f
}

// kernelStandIn is the stand-in of a kernel smoother whose values are
// bounded by amp and vary on the kernel's length b on every one of dim axes
// (Priestley–Chao: F_D falls from the label level to 0 within a few b at
// the ends of the data; the SVM's decision function is a sum of kernels of
// width σ, on the data's spread).
func kernelStandIn(amp float64, scale []float64) mechanism.StandIn {
	return mechanism.StandIn{Amplitude: amp, Scale: scale}
}

// linearStandIn is the stand-in of an affine F_D (ridge, the logistic
// score): every iterated Bernstein operator reproduces it, so only noise
// matters. Its amplitude is the public bound on |F_D|.
func linearStandIn(amp float64, dim int) mechanism.StandIn {
	return mechanism.StandIn{Amplitude: amp, Scale: make([]float64, dim)}
}

// sigmoidStandIn is the stand-in of the logistic probability σ(w·ỹ + c),
// ỹ_j = (2y_j − 1)·s, s = 1/√(ℓ + b²), ‖w‖ ≤ wMax: its slope along an axis
// is at most ¼·2·wMax·s, and a bump of height ½ with the same largest slope
// ½/(ς√e) has scale ς = 1/(wMax·s·√e).
func sigmoidStandIn(wMax, intercept float64, dim int) mechanism.StandIn {
	s := 1 / math.Sqrt(float64(dim)+intercept*intercept)
	scale := make([]float64, dim)
	for j := range scale {
		scale[j] = 1 / (wMax * s * math.Sqrt(math.E))
	}
	return mechanism.StandIn{Amplitude: 0.5, Scale: scale}
}

// logisticStandIn is sigmoidStandIn for the probability output and
// linearStandIn (the score is affine) otherwise.
func logisticStandIn(prob bool, wMax, intercept float64, rng [2]float64, dim int) mechanism.StandIn {
	if prob {
		return sigmoidStandIn(wMax, intercept, dim)
	}
	return linearStandIn(rng[1], dim)
}
