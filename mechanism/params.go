package mechanism

import (
	"errors"
	"fmt"
	"math"
)

// Limits enforced by validation. They bound memory and time, not privacy.
const (
	// MaxCoefficients bounds m = ∏_j (k_j+1), the number of released
	// coefficients (lattice points).
	MaxCoefficients = 10_000_000
	// MaxDim bounds ℓ, the number of query coordinates.
	MaxDim = 6
	// MaxH bounds the iterated Bernstein order h.
	MaxH = 10
	// MaxK bounds every cover size k_j. The per-axis transform T of an
	// IteratedBasis is a dense (k+1)×(k+1) matrix built with h−1 matrix
	// products, so k ≤ 1000 keeps it below 8 MB and a few seconds.
	MaxK = 1000
	// MaxGridPoints bounds the number of points of one EvalGrid call.
	MaxGridPoints = 50_000_000
)

// minLibraryEpsilon is the smallest ε the secure noise library accepts
// (checks.CheckEpsilonVeryStrict in github.com/google/differential-privacy).
var minLibraryEpsilon = math.Exp2(-50)

// ParamError reports a parameter value that breaks a rule. Every validation
// error of this package is (or wraps) a *ParamError, so callers can use
// errors.As to find the offending field.
//
// The learners package uses the same type for its parameters, with Scope set
// to the learner's kind: the message then reads "kde: parameter bandwidth =
// 0.001: rule" (or "kde: parameter foo: rule" when Value is nil).
type ParamError struct {
	Scope string // optional owner of the field, e.g. a learner kind ("kde"); "" for the mechanism's own parameters
	Field string // e.g. "epsilon", "delta", "noise", "k", "k[1]", "h", "sensitivity"; a learner's parameter name
	Value any    // the offending value (nil: no single value to show)
	Rule  string // the rule it breaks, e.g. "must be > 0 and finite"
}

func (e *ParamError) Error() string {
	field := e.Field
	if e.Scope != "" {
		field = e.Scope + ": parameter " + e.Field
	}
	if e.Value == nil {
		return fmt.Sprintf("%s: %s", field, e.Rule)
	}
	return fmt.Sprintf("%s = %v: %s", field, e.Value, e.Rule)
}

// Rule returns the rule a *ParamError names ("must be > 0 and finite"),
// for callers that word the field themselves (a flag, a form field); for
// any other error, its message.
func Rule(err error) string {
	var pe *ParamError
	if errors.As(err, &pe) {
		return pe.Rule
	}
	return err.Error()
}

func paramErr(field string, value any, rule string, args ...any) *ParamError {
	if len(args) > 0 {
		rule = fmt.Sprintf(rule, args...)
	}
	return &ParamError{Field: field, Value: value, Rule: rule}
}

func finitePositive(x float64) bool { return x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) }

// Validate checks every release parameter once, where it comes in:
//
//   - ε > 0 and finite, and ε ≥ 2⁻⁵⁰ (the secure noise library's limit);
//   - Noise is one of NoiseLaplace, NoiseLaplaceApprox, NoiseGaussian;
//   - δ == 0 for NoiseLaplace, δ ∈ (0,1) for NoiseLaplaceApprox and
//     NoiseGaussian;
//   - 1 ≤ ℓ = len(K) ≤ MaxDim, 1 ≤ k_j ≤ MaxK, ∏(k_j+1) ≤ MaxCoefficients;
//   - 1 ≤ h ≤ MaxH;
//   - for NoiseLaplaceApprox, the advanced-composition check of
//     ApproxComposedEpsilon: the per-coefficient budget
//     ε′ = ε/(2√(2m·ln(1/δ))) composed over the m coefficients (Dwork–Roth
//     Thm 3.20) must not exceed the requested ε;
//   - for NoiseLaplace, ε must exceed the rounding allowance of the m
//     library calls, 2·(m−1)·2⁻⁴⁰ (RoundingSafeEpsilon) by 2⁻⁵⁰.
//
// The error is a *ParamError naming the field, the value and the rule.
func (p Params) Validate() error {
	if err := ValidatePrivacy(p.Epsilon, p.Delta, p.Noise); err != nil {
		return err
	}
	if err := validateShape(p.K, p.H); err != nil {
		return err
	}
	if p.Noise == NoiseLaplace {
		if m := coefficientCount(p.K); RoundingSafeEpsilon(p.Epsilon, m) < minLibraryEpsilon {
			return paramErr("epsilon", p.Epsilon,
				"is too small for %d lattice values: the secure noise's rounding costs up to 2·(m−1)·2^-40 = %.3g of ε (RoundingSafeEpsilon); increase ε or use a smaller k",
				m, p.Epsilon-RoundingSafeEpsilon(p.Epsilon, m))
		}
	}
	if p.Noise == NoiseLaplaceApprox {
		m := coefficientCount(p.K)
		epsPrime := approxEpsilonPrime(p.Epsilon, p.Delta, m)
		if epsPrime < minLibraryEpsilon {
			return paramErr("epsilon", p.Epsilon,
				"laplace-approx gives a per-coefficient ε′ = %.3g below 2^-50 (limit of the secure noise library); increase ε or use noise %q",
				epsPrime, NoiseLaplace)
		}
		if total := composedEpsilon(epsPrime, p.Delta, m); !(total <= p.Epsilon) {
			return paramErr("epsilon", p.Epsilon,
				"laplace-approx with m = %d coefficients and δ = %g composes to ε_total = ε/2 + m·ε′(e^ε′−1) = %.6g > ε "+
					"(advanced composition, Dwork–Roth Thm 3.20; the paper's factor 2 covers the second term only when m·ε′(e^ε′−1) ≤ ε/2); "+
					"use a smaller ε, a smaller δ, or noise %q", m, p.Delta, total, NoiseLaplace)
		}
	}
	return nil
}

// ValidatePrivacy checks the privacy part of Params, the first rules of
// Validate: ValidateEpsilon, then ValidateDelta. It is the one home of these
// rules for callers that hold them before k is known (a project file with
// automatic k, the curator's settings); the advanced-composition check of
// NoiseLaplaceApprox needs k and stays in Validate. The error is a
// *ParamError with Field "epsilon", "delta" or "noise".
func ValidatePrivacy(epsilon, delta float64, noise NoiseKind) error {
	if err := ValidateEpsilon(epsilon); err != nil {
		return err
	}
	return ValidateDelta(delta, noise)
}

// ValidateEpsilon checks a privacy parameter ε: > 0 and finite, and
// ≥ 2⁻⁵⁰ (the secure noise library's limit). It is the rule of every ε of
// the application, also of the peers (package peers). The error is a
// *ParamError with Field "epsilon".
func ValidateEpsilon(epsilon float64) error {
	if !finitePositive(epsilon) {
		return paramErr("epsilon", epsilon, "must be > 0 and finite")
	}
	if epsilon < minLibraryEpsilon {
		return paramErr("epsilon", epsilon, "must be ≥ 2^-50 ≈ 8.9e-16 (limit of the secure noise library)")
	}
	return nil
}

// ValidateDelta checks δ against the noise kind: δ == 0 for NoiseLaplace
// (pure ε-DP), δ ∈ (0,1) for NoiseLaplaceApprox and NoiseGaussian
// ((ε, δ)-DP); any other noise kind is refused. The error is a *ParamError
// with Field "delta" or "noise".
func ValidateDelta(delta float64, noise NoiseKind) error {
	switch noise {
	case NoiseLaplace:
		if delta != 0 {
			return paramErr("delta", delta, "must be 0 for noise %q (pure ε-DP)", NoiseLaplace)
		}
	case NoiseLaplaceApprox, NoiseGaussian:
		if !(delta > 0 && delta < 1) {
			return paramErr("delta", delta, "must be in (0,1) for noise %q", noise)
		}
	default:
		return paramErr("noise", string(noise), "must be one of %q, %q, %q",
			NoiseLaplace, NoiseLaplaceApprox, NoiseGaussian)
	}
	return nil
}

// ValidateSensitivity checks a sensitivity bound S(F): it must be > 0 and
// finite. The error is a *ParamError with Field "sensitivity".
func ValidateSensitivity(s float64) error {
	if !finitePositive(s) {
		return paramErr("sensitivity", s, "must be > 0 and finite")
	}
	return nil
}

// ValidateK checks the cover sizes: 1 ≤ len(k) ≤ MaxDim, 1 ≤ k_j ≤ MaxK and
// ∏(k_j+1) ≤ MaxCoefficients (the rules of Params.K in Validate). The error
// is a *ParamError with Field "k" (the count or the product) or "k[j]".
func ValidateK(k []int) error {
	if len(k) < 1 || len(k) > MaxDim {
		return paramErr("k", fmt.Sprint(k), "needs between 1 and %d cover sizes (one per query coordinate), got %d", MaxDim, len(k))
	}
	m := 1
	for j, kj := range k {
		if kj < 1 || kj > MaxK {
			return paramErr(fmt.Sprintf("k[%d]", j), kj, "must be between 1 and %d", MaxK)
		}
		m *= kj + 1 // no overflow: each factor ≤ MaxK+1 and m ≤ MaxCoefficients before the product
		if m > MaxCoefficients {
			return paramErr("k", fmt.Sprint(k), "gives more than %d coefficients (the product of k_j+1 over the axes)", MaxCoefficients)
		}
	}
	return nil
}

// ValidateH checks the iterated Bernstein order: 1 ≤ h ≤ MaxH (the rule of
// Params.H in Validate). The error is a *ParamError with Field "h".
func ValidateH(h int) error {
	if h < 1 || h > MaxH {
		return paramErr("h", h, "must be between 1 and %d", MaxH)
	}
	return nil
}

func validateShape(k []int, h int) error {
	if err := ValidateK(k); err != nil {
		return err
	}
	return ValidateH(h)
}

// coefficientCount returns ∏(k_j+1) for validated k.
func coefficientCount(k []int) int {
	m := 1
	for _, kj := range k {
		m *= kj + 1
	}
	return m
}

// approxEpsilonPrime is the per-coefficient budget of Section 4.2:
// ε′ = ε/(2√(2m·ln(1/δ))), so that λ_δ = S/ε′.
func approxEpsilonPrime(eps, delta float64, m int) float64 {
	return eps / (2 * math.Sqrt(2*float64(m)*-math.Log(delta)))
}

// composedEpsilon is advanced composition (Dwork–Roth Thm 3.20) of m
// ε′-DP mechanisms: ε′√(2m·ln(1/δ)) + m·ε′(e^ε′ − 1).
func composedEpsilon(epsPrime, delta float64, m int) float64 {
	fm := float64(m)
	return epsPrime*math.Sqrt(2*fm*-math.Log(delta)) + fm*epsPrime*math.Expm1(epsPrime)
}

// ApproxComposedEpsilon returns the total ε actually guaranteed by
// NoiseLaplaceApprox for the given parameters: each of the m = ∏(k_j+1)
// coefficients is released by an ε′-DP Laplace mechanism with sensitivity S,
// ε′ = ε/(2√(2m·ln(1/δ))), and advanced composition (Dwork–Roth Thm 3.20,
// with δ′ = 0 per coefficient) gives (ε_total, δ)-DP with
//
//	ε_total = ε′√(2m·ln(1/δ)) + m·ε′(e^ε′ − 1) = ε/2 + m·ε′(e^ε′ − 1).
//
// The paper's factor 2 in λ_δ is enough exactly when m·ε′(e^ε′−1) ≤ ε/2
// (roughly ε ≤ 4·ln(1/δ)); Validate refuses parameters where ε_total > ε.
// It returns NaN unless p.K is valid and δ ∈ (0,1).
func ApproxComposedEpsilon(p Params) float64 {
	if ValidateK(p.K) != nil || !(p.Delta > 0 && p.Delta < 1) || !finitePositive(p.Epsilon) {
		return math.NaN()
	}
	m := coefficientCount(p.K)
	return composedEpsilon(approxEpsilonPrime(p.Epsilon, p.Delta, m), p.Delta, m)
}

// PureIsBetter reports whether the approximate-DP variant chosen in p adds
// at least as much noise per coefficient as pure ε-DP Laplace noise
// (NoiseLaplace with the same ε and K) would; then the weaker (ε,δ)
// guarantee buys nothing and the curator should choose NoiseLaplace.
//
// For NoiseLaplaceApprox this is λ_δ ≥ λ, i.e. 2√(2m·ln(1/δ)) ≥ m, i.e.
// m ≤ 8·ln(1/δ). For NoiseGaussian it compares standard deviations:
// σ ≥ √2·λ. For NoiseLaplace, or if p is invalid, it returns false.
// Parameters are not refused for this reason.
func PureIsBetter(p Params) bool {
	if p.Noise == NoiseLaplace || p.Validate() != nil {
		return false
	}
	pure := p
	pure.Noise, pure.Delta = NoiseLaplace, 0
	lambda, err := NoiseScale(1, pure)
	if err != nil {
		return false
	}
	scale, err := NoiseScale(1, p)
	if err != nil {
		return false
	}
	if p.Noise == NoiseGaussian {
		return scale >= math.Sqrt2*lambda
	}
	return scale >= lambda
}
