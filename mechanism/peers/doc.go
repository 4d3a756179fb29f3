// Package peers implements, for comparison with the Bernstein mechanism,
// two other ways of releasing a one-dimensional density under ε-differential
// privacy that the literature offers:
//
//   - Wang et al. (NIPS 2013), "Efficient Algorithm for Privately Releasing
//     Smooth Queries": a summary of t noisy trigonometric moments
//     (1/n)Σ cos(m·arccos(u_i)) (Algorithm 1) from which any smooth linear
//     query — here the Gaussian KDE at y — is answered by a public
//     evaluation (Algorithm 2) with a generalized-Jackson-kernel
//     approximation (Section 4.1). Files trig.go, jackson.go.
//   - Chaudhuri & Vinterbo (NIPS 2013), "A Stability-based Validation
//     Procedure for Differentially Private Machine Learning", Algorithm 5:
//     a histogram density estimator with Laplace noise on the bin counts,
//     clamped at 0 and renormalised. File histogram.go.
//   - Hall, Rinaldo & Wasserman (2013), "Differential Privacy for Functions
//     and Functional Data", Prop. 2.1: (ε, δ)-DP release (ε ≤ 1) of a
//     function in an RKHS by adding a Gaussian process with covariance
//     c·K, c = 2·ln(2/δ)·Δ²/ε², Δ the RKHS-norm sensitivity; released as
//     values on a public tensor grid of any dimension (per-axis Cholesky
//     with jitter, Kronecker sampling; GPNoiseScale, GPFactor.Sample with
//     a caller-supplied GaussianSource). File gp.go. Adding the draw to
//     the grid values and evaluating the result by multilinear
//     interpolation (GPRelease, GPGrid, GPNoise for its noise band) is the
//     product's GP release (project/release, synopsis kind hall-gp):
//     gp_release.go.
//   - Chaudhuri & Vinterbo (NIPS 2013), Appendix, Algorithm 4: output
//     perturbation of an L2-regularised linear classifier, w* + b with
//     density ∝ exp(−(ε/Δ₂)‖b‖) and Δ₂ the L2 sensitivity of w*
//     (OutputPerturbationScale, OutputPerturbationNoise, from a
//     caller-supplied NoiseSource). File output_perturbation.go. The
//     released function y ↦ ⟨w* + b, lift(y)⟩ or its sigmoid
//     (LinearRelease) is exercised by the tests only
//     (linear_release_test.go).
//
// Like package mechanism, this package is pure mathematics and knows
// nothing of learners, files or the user interface. It computes the exact
// private statistics (TrigMoments, HistogramCounts), the Laplace noise scale
// that makes them ε-DP (TrigNoiseScale, HistogramNoiseScale), and the public
// post-processing that turns noisy statistics into a density
// (TrigKDEWeights, HistogramDensity). It draws no noise itself: its
// users pass the source. The simulation engine, package study (Figure 1 and
// the curator's preview), adds seeded mechanism.SimulationNoise; the
// product's releases of the peer kinds (project/release, synopsis kinds
// hall-gp, wang-trig, output-perturbation) add noise from
// github.com/google/differential-privacy/go/v3/noise only.
//
// Neighbouring datasets replace one record (same n), as in the Bernstein
// paper. Data are assumed to lie in [0,1] (public bounds, clipped); every
// function validates its arguments and returns an error naming the value
// and the rule; none panics.
package peers
