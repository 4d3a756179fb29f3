package peers

import (
	"fmt"
	"math"
)

// The released function of output perturbation on a linear model: the
// product simulates the noise (OutputPerturbationScale,
// OutputPerturbationNoise, package study); building and evaluating the
// released function is exercised by the tests only, so it lives here
// (issue 16: no test-only production code).

// LinearRelease is the public function released by output perturbation:
// y ↦ ⟨w + b, lift(y)⟩ (Sigmoid false) or σ(⟨w + b, lift(y)⟩) (Sigmoid
// true), with lift a public feature map. Anyone holding the perturbed
// weights can evaluate it; it is post-processing of the ε-DP vector.
type LinearRelease struct {
	weights []float64
	lift    func(y, out []float64)
	dim     int
	sigmoid bool
}

// NewLinearRelease returns the release of the weights w + b (both of
// length p ≥ 1, finite) for queries y of length dim ≥ 1, where lift writes
// the public lift of y into out (len p). The weights are copied.
func NewLinearRelease(w, b []float64, dim int, lift func(y, out []float64), sigmoid bool) (*LinearRelease, error) {
	switch {
	case len(w) < 1:
		return nil, fmt.Errorf("peers.NewLinearRelease: no weights: need at least one")
	case len(b) != len(w):
		return nil, fmt.Errorf("peers.NewLinearRelease: %d noise values for %d weights: must be equal", len(b), len(w))
	case dim < 1:
		return nil, fmt.Errorf("peers.NewLinearRelease: dim = %d: must be at least 1", dim)
	case lift == nil:
		return nil, fmt.Errorf("peers.NewLinearRelease: lift is nil: a public feature map is needed")
	}
	v := make([]float64, len(w))
	for i := range w {
		v[i] = w[i] + b[i]
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			return nil, fmt.Errorf("peers.NewLinearRelease: weight %d + noise = %v: must be finite", i, v[i])
		}
	}
	return &LinearRelease{weights: v, lift: lift, dim: dim, sigmoid: sigmoid}, nil
}

// Weights returns a copy of the released (perturbed) weights.
func (r *LinearRelease) Weights() []float64 { return append([]float64(nil), r.weights...) }

// Eval returns the released function at y. It panics if len(y) differs
// from the dimension given to NewLinearRelease (programmer misuse).
func (r *LinearRelease) Eval(y []float64) float64 {
	if len(y) != r.dim {
		panic(fmt.Sprintf("peers: LinearRelease.Eval: len(y) = %d, want %d", len(y), r.dim))
	}
	x := make([]float64, len(r.weights))
	r.lift(y, x)
	var z float64
	for i, v := range r.weights {
		z += v * x[i]
	}
	if r.sigmoid {
		return sigmoid(z)
	}
	return z
}

// sigmoid is 1/(1 + e^{−z}), evaluated without overflow (the learners
// package's Sigmoid; peers does not import learners).
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
