package study

import (
	"fmt"
	"strconv"
)

// Like-with-like comparisons (issue 19, item 1): every (ε, δ)-DP peer is
// drawn beside Bernstein curves at the same (ε, δ) — the Gaussian mechanism
// (mechanism.NoiseGaussian) and the approximate-DP Laplace variant of
// Section 4.2 (mechanism.NoiseLaplaceApprox) — simulated by Model.Run with
// Spec.Noise and Spec.Delta, and legends group series by guarantee.

// PeerDelta is the δ of the (ε, δ)-DP peers (Hall et al.'s GP) and of the
// Bernstein (ε, δ) series drawn beside them: the curator's δ when it is in
// (0, 1), else 10⁻⁶ (a pure-ε curator has no δ; the GP mechanism needs
// one). One home of the rule: BuildPeers and the figures use it.
func PeerDelta(curatorDelta float64) float64 {
	if curatorDelta > 0 && curatorDelta < 1 {
		return curatorDelta
	}
	return peerGPDefaultDelta
}

// GuaranteeGroup is the legend heading of the series with privacy
// guarantee δ: "pure ε-DP" for δ = 0, "(ε, δ = 1e-06)-DP" otherwise.
func GuaranteeGroup(delta float64) string {
	if delta == 0 {
		return "pure ε-DP"
	}
	return fmt.Sprintf("(ε, δ = %s)-DP", strconv.FormatFloat(delta, 'g', -1, 64))
}
