package mechanism

import (
	"fmt"
	"math"
	"slices"
)

// The theory helpers take plain numbers that the caller has already
// validated (Params.Validate, ValidateSensitivity, β ∈ (0,1)); they panic on
// invalid arguments, which is programmer misuse. ValidateBeta checks β.

// ValidateBeta checks a failure probability β of an (α,β)-accuracy
// statement: it must be in (0,1). The error is a *ParamError with Field
// "beta".
func ValidateBeta(beta float64) error {
	if !(beta > 0 && beta < 1) {
		return paramErr("beta", beta, "must be in (0,1)")
	}
	return nil
}

func mustTheoryArgs(fn string, h, dim int, beta float64) {
	if h < 1 || h > MaxH {
		panic(fmt.Sprintf("mechanism.%s: h = %d: must be between 1 and %d", fn, h, MaxH))
	}
	if dim < 1 || dim > MaxDim {
		panic(fmt.Sprintf("mechanism.%s: dim = %d: must be between 1 and %d", fn, dim, MaxDim))
	}
	if err := ValidateBeta(beta); err != nil {
		panic("mechanism." + fn + ": " + err.Error())
	}
}

// OptimalK returns the cover size of Section 4.1 (proof of Theorem 3):
//
//	k* = max{1, (ε/(S·ln(1/β)))^{1/(h+ℓ)}},
//
// which balances the approximation error O(k^−h) of Theorem 5 against the
// noise error O(S·k^ℓ·ln(1/β)/ε) of Proposition 4. The optimum is only
// defined up to a constant factor; this returns the nearest integer
// (half up), at least 1, clamped to MaxK and so that (k+1)^ℓ ≤
// MaxCoefficients. It panics unless ε > 0 and S > 0 are finite, β ∈ (0,1),
// 1 ≤ h ≤ MaxH and 1 ≤ dim ≤ MaxDim.
func OptimalK(epsilon, sensitivity, beta float64, h, dim int) int {
	mustTheoryArgs("OptimalK", h, dim, beta)
	if !finitePositive(epsilon) || !finitePositive(sensitivity) {
		panic(fmt.Sprintf("mechanism.OptimalK: epsilon = %g, sensitivity = %g: must be > 0 and finite", epsilon, sensitivity))
	}
	kf := math.Pow(epsilon/(sensitivity*-math.Log(beta)), 1/float64(h+dim))
	limit := float64(maxCoverSize(dim))
	k := math.Floor(kf + 0.5)
	if !(k <= limit) { // also catches +Inf
		k = limit
	}
	if k < 1 {
		k = 1
	}
	return int(k)
}

// maxCoverSize returns the largest k ≤ MaxK with (k+1)^dim ≤ MaxCoefficients.
func maxCoverSize(dim int) int { return coverSizeWithin(dim, MaxCoefficients) }

// coverSizeWithin returns the largest k ≤ MaxK (at least 1) with
// (k+1)^dim ≤ limit coefficients.
func coverSizeWithin(dim, limit int) int {
	k := MaxK
	for k > 1 {
		m := 1
		for range dim {
			m *= k + 1 // ≤ 1001⁶ ≈ 1.006e18 < 2⁶³
		}
		if m <= limit {
			break
		}
		k--
	}
	return k
}

// NoiseTailBound returns (2^h−1)^ℓ·λ·ln(1/β) for Laplace noise of scale λ
// (NoiseLaplace or NoiseLaplaceApprox): for each FIXED query y, with
// probability ≥ 1−β the noise part of the released value satisfies
// |Σ_ν Z_ν ∏_j b^(h)_{ν_j}(y_j)| ≤ this bound. Proof: Proschan's
// peakedness theorem applied to the weights |∏_j b^(h)|/U(y), whose
// normaliser is U(y) ≤ (2^h−1)^ℓ by Eq. 12 (Appendices C, D).
//
// Caution: Proposition 4 states this for the supremum over y, but its proof
// is pointwise, and for the supremum the constant is wrong: with h = 1 the
// released values at y = 0 and y = 1 are the independent noisy corner
// coefficients, so P[sup ≥ τ] ≥ 1−(1−e^{−τ/λ})² ≈ 2e^{−τ/λ} > e^{−τ/λ}.
// Use UniformNoiseTailBound for the supremum.
//
// It panics on invalid arguments (scale < 0 or not finite, h, dim, β).
func NoiseTailBound(scale float64, h, dim int, beta float64) float64 {
	mustTheoryArgs("NoiseTailBound", h, dim, beta)
	if !(scale >= 0) || math.IsInf(scale, 0) {
		panic(fmt.Sprintf("mechanism.NoiseTailBound: scale = %g: must be ≥ 0 and finite", scale))
	}
	return math.Pow(math.Exp2(float64(h))-1, float64(dim)) * scale * -math.Log(beta)
}

// UniformNoiseTailBound returns (2^h−1)^ℓ·λ·ln(m/β), m = ∏(k_j+1), for
// Laplace noise of scale λ: with probability ≥ 1−β,
// sup_{y∈[0,1]^ℓ} |Σ_ν Z_ν ∏_j b^(h)_{ν_j}(y_j)| ≤ this bound.
// Proof: the supremum is ≤ max_ν |Z_ν|·∏_j sup_y Σ_ν |b^(h)_ν(y_j)| ≤
// (2^h−1)^ℓ·max_ν |Z_ν| by Eq. 12, and by the union bound
// P[max_ν |Z_ν| ≥ λ·ln(m/β)] ≤ m·e^{−ln(m/β)} = β. This is the corrected,
// proven form of Proposition 4 (an extra ln m inside the logarithm).
//
// It panics on invalid arguments (scale < 0 or not finite, k invalid, h, β).
func UniformNoiseTailBound(scale float64, h int, k []int, beta float64) float64 {
	return uniformTailBound("UniformNoiseTailBound", scale, h, k, beta, func(m float64) float64 {
		return math.Log(m) - math.Log(beta) // P[|Z| ≥ λz] = e^{−z} = β/m
	})
}

// UniformGaussianNoiseTailBound returns (2^h−1)^ℓ·σ·z with
// z = √2·erfc⁻¹(β/m), m = ∏(k_j+1), for Gaussian noise of standard
// deviation σ (the scale NoiseScale returns for NoiseGaussian): with
// probability ≥ 1−β, sup_{y∈[0,1]^ℓ} |Σ_ν Z_ν ∏_j b^(h)_{ν_j}(y_j)| ≤ this
// bound. Proof: as for UniformNoiseTailBound, the supremum is ≤ (2^h−1)^ℓ·
// max_ν |Z_ν| by Eq. 12, and P[|Z_ν| ≥ σz] = erfc(z/√2) = β/m, so by the
// union bound P[max_ν |Z_ν| ≥ σz] ≤ β. (The paper states no tail bound for
// Gaussian noise; this is the Gaussian counterpart of the corrected
// Proposition 4.)
//
// It panics on invalid arguments (scale < 0 or not finite, k invalid, h, β).
func UniformGaussianNoiseTailBound(sigma float64, h int, k []int, beta float64) float64 {
	return uniformTailBound("UniformGaussianNoiseTailBound", sigma, h, k, beta, func(m float64) float64 {
		return math.Sqrt2 * math.Erfcinv(beta/m) // P[|Z| ≥ σz] = erfc(z/√2) = β/m
	})
}

// uniformTailBound returns (2^h−1)^ℓ·scale·z(m), m = ∏(k_j+1), z(m) the
// quantile with P[|Z_ν| ≥ scale·z] = β/m for the noise at hand, after
// validating the arguments (panics name the caller).
func uniformTailBound(name string, scale float64, h int, k []int, beta float64, z func(m float64) float64) float64 {
	if err := ValidateK(k); err != nil {
		panic("mechanism." + name + ": " + err.Error())
	}
	mustTheoryArgs(name, h, len(k), beta)
	if !(scale >= 0) || math.IsInf(scale, 0) {
		panic(fmt.Sprintf("mechanism.%s: scale = %g: must be ≥ 0 and finite", name, scale))
	}
	m := float64(coefficientCount(k))
	return math.Pow(math.Exp2(float64(h))-1, float64(len(k))) * scale * z(m)
}

// LowerBound returns S/ε, the order of the lower bound of Theorem 8: there
// is a function F for which every ε-DP mechanism has error Ω(S(F)/ε) with
// probability arbitrarily close to 1. It holds only up to constants: the
// construction of Section 5 has S(F) = 7η and pairwise gaps ⌊1/ε⌋·η, and
// Proposition 9's Ω hides a further constant (the gap is vacuous for ε > 1).
// So this is a scale for plots, not a certified bound. It panics unless both
// arguments are > 0 and finite.
func LowerBound(sensitivity, epsilon float64) float64 {
	if !finitePositive(epsilon) || !finitePositive(sensitivity) {
		panic(fmt.Sprintf("mechanism.LowerBound: sensitivity = %g, epsilon = %g: must be > 0 and finite", sensitivity, epsilon))
	}
	return sensitivity / epsilon
}

// DefaultBeta is the failure probability β of the paper's cover size k*
// (OptimalK), which ResolveK uses when no stand-in is known: the
// (α, β)-accuracy of Theorem 3 holds with probability ≥ 1 − β = 95%.
const DefaultBeta = 0.05

// ResolveK returns p with its cover sizes resolved for dim query
// coordinates and validated by Params.Validate: the one rule for the k of a
// release, used by the release pipeline and the curator's preview alike.
//
// With auto and a known stand-in f (StandIn.Known), every axis gets
// AutoK(p, dim, S, f): the k minimising the predicted error of a function
// as smooth as the learner's public stand-in (docs/sensitivity.md, "The
// automatic cover size"). With auto and the zero stand-in, every axis gets
// the paper's k* = OptimalK(ε, S, β, h, dim) (Section 4.1, proof of
// Theorem 3) with β = beta, or DefaultBeta when beta is 0. β, S, f and ε,
// δ, the noise kind, h and dim are validated before they enter either
// rule. Otherwise p.K is used as given, a single k repeated on every axis
// when dim > 1, and any other count than 1 or dim is refused.
// Assumptions: sensitivity is the proven S(F) of the release and f the
// learner's public stand-in (only auto uses them). Errors are *ParamError
// values; p.K is never modified.
func ResolveK(p Params, dim int, auto bool, beta, sensitivity float64, f StandIn) (Params, error) {
	if !auto {
		p.K = slices.Clone(p.K)
		if len(p.K) == 1 && dim > 1 {
			p.K = slices.Repeat(p.K, dim)
		}
		if len(p.K) != dim {
			return p, paramErr("k", fmt.Sprint(p.K), "%d cover sizes for %d query coordinates: give one, or one per coordinate", len(p.K), dim)
		}
		return p, p.Validate()
	}
	if beta == 0 {
		beta = DefaultBeta
	}
	if err := ValidateBeta(beta); err != nil {
		return p, err
	}
	if err := ValidateSensitivity(sensitivity); err != nil {
		return p, err
	}
	// Validate ε, δ, the noise kind, h and dim (with a placeholder k)
	// before they enter the formula for k.
	p.K = slices.Repeat([]int{1}, max(dim, 0))
	if err := p.Validate(); err != nil {
		return p, err
	}
	if f.Known(dim) {
		if err := f.validate(dim); err != nil {
			return p, err
		}
	}
	p.K = slices.Repeat([]int{AutoCoverSize(p, p.H, dim, sensitivity, beta, f)}, dim)
	return p, p.Validate()
}

// AutoCoverSize is the one rule for the automatic cover size of order h
// (p supplies ε, δ and the noise kind; p.H and p.K are ignored):
// AutoK(p with h, dim, S, f) when the stand-in f is known
// (StandIn.Known), else the paper's OptimalK(ε, S, β, h, dim). ResolveK
// uses it for a release and the curator's preview; `choose` centres its
// candidate list on it. When AutoK refuses the arguments (no valid k for
// them, an invalid stand-in) it returns OptimalK's k, which the caller's
// Params.Validate then judges; OptimalK panics on invalid ε, S, β, h or
// dim (theory-helper style: callers pass validated values).
func AutoCoverSize(p Params, h, dim int, sensitivity, beta float64, f StandIn) int {
	if f.Known(dim) {
		p.H = h
		if k, err := AutoK(p, dim, sensitivity, f); err == nil {
			return k
		}
	}
	return OptimalK(p.Epsilon, sensitivity, beta, h, dim)
}
