package mechanism

import "math"

// libraryGranularityExponent is log2 of the secure noise library's
// granularity parameter: its Laplace sampler rounds the value it is given
// to a multiple of a power of two g ≤ 2·(Δ/ε)·2⁻⁴⁰ before it adds
// discrete noise calibrated to the sensitivity Δ + g
// (github.com/google/differential-privacy/go/v3/noise, laplace_noise.go,
// granularityParam and addLaplaceFloat64).
const libraryGranularityExponent = 40

// RoundingSafeEpsilon is the ε to hand the secure Laplace sampler when it
// is called once for each of m values that share one L1 sensitivity Δ
// (l0 = m), so that the m calls together are ε-DP, rounding included:
//
//	ε′ = ε − 2·(m − 1)·2⁻⁴⁰.
//
// Why: each call rounds its value to a multiple of g ≤ 2·Δ/(ε′·2⁴⁰) and is
// calibrated to Δ + g, so its privacy loss is |Δ_ν + rounding|·ε′/(Δ + g)
// with |rounding| ≤ g. Over the m values, Σ_ν |Δ_ν| ≤ Δ, the loss is at
// most ε′·(Δ + m·g)/(Δ + g) ≤ ε′ + ε′·(m − 1)·g/Δ ≤ ε′ + 2·(m − 1)·2⁻⁴⁰ = ε.
// The library counts the rounding once per call, which covers m = 1 only.
// The result can be below the library's least ε (2⁻⁵⁰) or negative for a
// tiny ε and a huge m; Params.Validate refuses those settings. A draw of
// pure noise (value 0, a multiple of every g) has no rounding and needs no
// correction.
func RoundingSafeEpsilon(epsilon float64, m int) float64 {
	if m <= 1 {
		return epsilon
	}
	return epsilon - 2*float64(m-1)*math.Exp2(-libraryGranularityExponent)
}
