package learners

import "math"

// Sigmoid is the logistic function σ(z) = 1/(1 + e^{−z}), evaluated without
// overflow for every finite z (e^{−z} is only formed for z ≥ 0, e^{z} for
// z < 0), with σ(±∞) = 1, 0. The logistic learner releases σ(⟨w, x̃⟩) as a
// probability and its loss derivative is −l·σ(−l·z).
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
