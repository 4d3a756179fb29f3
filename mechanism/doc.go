// Package mechanism implements the Bernstein mechanism of Aldà & Rubinstein,
// "The Bernstein Mechanism: Function Release under Differential Privacy"
// (AAAI 2017): it releases a function F_D: [0,1]^ℓ → ℝ learned from private
// data D as an iterated Bernstein polynomial whose coefficients — values of
// F_D on a lattice — are perturbed by noise calibrated to the sensitivity
// S(F) = sup_y sup_{D∼D′} |F_D(y) − F_D′(y)|.
//
// The package is pure mathematics: it knows nothing of learners, files or
// the user interface. Oracles (Oracle, GridOracle) provide F_D; callers
// provide a proven S(F).
//
// # Formulas
//
// Bernstein basis (Definition 6), ν = 0..k:
//
//	b_{ν,k}(y) = C(k,ν)·y^ν·(1−y)^(k−ν)
//
// Iterated Bernstein basis of order h (Definition 8), with
// B_k(f; y) = Σ_ν f(ν/k)·b_{ν,k}(y):
//
//	b^(h)_{ν,k}(y) = Σ_{i=1}^h C(h,i)(−1)^{i−1} B_k^{i−1}(b_{ν,k}; y)
//
// computed as b^(h)(y)ᵀ = b(y)ᵀ·T with T = Σ_{i=1}^h C(h,i)(−1)^{i−1} M^{i−1}
// = Σ_{j=0}^{h−1}(I−M)^j and M[μ][ν] = b_{ν,k}(μ/k) (see IteratedBasis).
//
// Multivariate iterated Bernstein polynomial (Definition 9) with per-axis
// cover sizes k_j and coefficients c_ν on the lattice
// P = {0,1/k_1,…,1} × … × {0,1/k_ℓ,…,1}:
//
//	P(y) = Σ_ν c_ν ∏_{j=1}^ℓ b^(h)_{ν_j,k_j}(y_j)
//
// Algorithm 1 (Sanitize): c_ν = F_D(ν_1/k_1, …, ν_ℓ/k_ℓ) + Z_ν with Z_ν
// i.i.d., m = ∏_j (k_j+1) coefficients, and noise (NoiseScale):
//
//	laplace          Laplace(λ),   λ   = S·m/ε                      ε-DP (Theorem 3)
//	laplace-approx   Laplace(λ_δ), λ_δ = 2·S·√(2m·ln(1/δ))/ε        (ε,δ)-DP (Section 4.2)
//	gaussian         Normal(0,σ²), σ   = noise.SigmaForGaussian(m, S, ε, δ)   (ε,δ)-DP
//
// For laplace-approx each coefficient is an ε′-DP Laplace mechanism with
// ε′ = ε/(2√(2m·ln(1/δ))) = S/λ_δ; advanced composition (Dwork–Roth
// Thm 3.20) gives (ε/2 + m·ε′(e^ε′−1), δ)-DP. The paper's factor 2 absorbs
// the second term only when m·ε′(e^ε′−1) ≤ ε/2, so Params.Validate refuses
// parameters where the composed ε exceeds the requested ε
// (ApproxComposedEpsilon). When λ_δ ≥ λ (m ≤ 8·ln(1/δ)) the approximate
// variant is pointless; PureIsBetter reports it. The Gaussian variant is
// beyond the paper: the analytic Gaussian mechanism (Balle & Wang 2018) for
// the L2 sensitivity S·√m of the coefficient vector.
//
// # Lattice order
//
// Lattice values and coefficients are stored row-major with the LAST axis
// varying fastest: ν has index Σ_j ν_j·∏_{i>j}(k_i+1) and coordinates
// (ν_1/k_1, …, ν_ℓ/k_ℓ). GridOracle.EvalGrid and Polynomial.EvalGrid use the
// same order.
//
// # Guarantee
//
// If the sensitivity passed to Sanitize or SanitizeValues is a true upper
// bound on S(F), every coefficient changes by at most S between neighbouring
// datasets, so the coefficient vector has L1 sensitivity ≤ S·m and L2
// sensitivity ≤ S·√m, and the released Synopsis is ε-DP (laplace) or
// (ε,δ)-DP (laplace-approx, gaussian). Everything computed from a Synopsis
// afterwards — Eval, EvalBatch, EvalGrid, EvalNearest, the precomputed
// transformed coefficients, NoiseStdAt — is post-processing of the noisy
// coefficients plus public parameters and costs no further privacy. The
// guarantee is only as good as the sensitivity bound: this package cannot
// check it.
//
// # Noise sources
//
// Release noise comes only from github.com/google/differential-privacy/go/v3/noise
// (secure randomness, floating-point-safe discrete sampling). Sanitize and
// SanitizeValues take no noise source at all, so a seeded generator cannot
// reach a release. SimulationNoise is a seeded math/rand/v2 PCG source for
// previews, plots and tests; it is accepted only by Simulate, which returns a
// SimulatedRelease — a different type from Synopsis with no conversion
// between them.
//
// The one exception to the noise library is PrivateQuantile (privately
// estimated bounds: Smith 2011's exponential mechanism over a public
// range), which the library does not offer: it samples with crypto/rand
// through an unexported source that cannot be seeded, with both tails of
// its exponential draws at full relative precision (see
// docs/sensitivity.md, "Privately estimated bounds"). Its seeded twin
// SimulatePrivateQuantile returns a SimulatedQuantile, a distinct type.
//
// # Automatic cover size
//
// ResolveK with auto uses AutoCoverSize: the k minimising PredictedError,
// the mean sup-norm error of seeded simulated releases of the learner's
// public StandIn (autok.go; docs/sensitivity.md, "The automatic cover
// size"), or the paper's OptimalK when no stand-in is known. Its inputs are
// public: ε, δ, the noise kind, h, ℓ, S and the stand-in.
//
// # Errors and panics
//
// Parameters are validated once, where they enter (Params.Validate,
// ValidateSensitivity, NewLattice, NewPolynomial, RestoreSynopsis, query
// methods). Invalid user input, file contents, non-finite oracle values and
// noise library failures are returned as errors; validation errors are
// *ParamError values naming the field, the value and the rule. Only
// programmer misuse panics, and the functions that may panic say so
// (BernsteinBasis, NewIteratedBasis, IteratedBasis.At, Lattice.Point and
// Lattice.Index with out-of-range arguments, and the theory helpers
// OptimalK, AutoCoverSize, NoiseTailBound, UniformNoiseTailBound,
// UniformGaussianNoiseTailBound, LowerBound, NoisyMaxUtilityBound on
// invalid numbers).
//
// # Limits
//
// 1 ≤ ℓ ≤ MaxDim (6), 1 ≤ k_j ≤ MaxK (1000), ∏(k_j+1) ≤ MaxCoefficients
// (10⁷), 1 ≤ h ≤ MaxH (10), ε ≥ 2⁻⁵⁰ (the noise library's limit).
package mechanism
