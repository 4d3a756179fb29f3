package learners

import (
	"math"
	"slices"

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

// kernelStandIn is the Priestley–Chao stand-in: F_D ≈ ∫ m(x)·K_b(y − x)dx
// over the data's support falls from the label level to 0 within a few b
// at the ends of the data, so it varies on the kernel's length b; its
// height is half the public bound on the label level (min(r, 1)/2).
func kernelStandIn(amp float64, scale []float64) mechanism.StandIn {
	return mechanism.StandIn{Amplitude: amp, Scale: scale}
}

// svmStandIn is the SVM's stand-in: with α_i ≤ C/n the decision function is
// a class-signed sum of kernels of width σ over the data, on a typical
// dataset the difference of two class-weighted kernel averages: per axis a
// Gaussian of scale s_j = √(σ² + τ²), height (σ/s_j) per axis (the
// unnormalised kernel averaged over a spread τ), times half the public bound
// r on |F_D| (two overlapping classes), at most r.
func svmStandIn(r, sigma float64, dim int) mechanism.StandIn {
	s := math.Hypot(sigma, StandInSpread)
	amp := r / 2 * math.Pow(sigma/s, float64(dim))
	return mechanism.StandIn{Amplitude: amp, Scale: slices.Repeat([]float64{s}, dim)}
}

// linearStandIn is the stand-in of an affine F_D (ridge, the logistic
// score): every iterated Bernstein operator reproduces it, so only noise
// matters. Its amplitude is the public bound on |F_D|.
func linearStandIn(amp float64, dim int) mechanism.StandIn {
	return mechanism.StandIn{Amplitude: amp, Scale: make([]float64, dim)}
}

// sigmoidStandIn is the stand-in of the logistic probability σ(w·ỹ + c),
// ỹ_j = (2y_j − 1)·s, s = 1/√(ℓ + b²): a sigmoid with ‖w‖ = wMax spread
// evenly over the axes (w_j = wMax/√ℓ), so that z = Σ_j (y_j − ½)/ς with
// ς = √ℓ/(2·wMax·s). The caller passes the typical wMax = √(C·ln 2): the
// minimiser of ½‖w‖² + C·L(w) with L(0) = ln 2 has ½‖w‖² ≤ C·(ln 2 − L(w)),
// so a classifier that halves the log-loss of w = 0 has ‖w‖ ≤ √(C·ln 2).
func sigmoidStandIn(wMax, intercept float64, dim int) mechanism.StandIn {
	s := 1 / math.Sqrt(float64(dim)+intercept*intercept)
	scale := make([]float64, dim)
	for j := range scale {
		scale[j] = math.Sqrt(float64(dim)) / (2 * wMax * s)
	}
	return mechanism.StandIn{Shape: mechanism.StandInSigmoid, Amplitude: 1, Scale: scale}
}

// logisticStandIn is sigmoidStandIn for the probability output and
// linearStandIn (the score is affine) otherwise.
func logisticStandIn(prob bool, wMax, intercept float64, rng [2]float64, dim int) mechanism.StandIn {
	if prob {
		return sigmoidStandIn(wMax, intercept, dim)
	}
	return linearStandIn(rng[1], dim)
}
