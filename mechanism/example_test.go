package mechanism_test

import (
	"context"
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// bump is a smooth 2-D oracle; a real one is fitted by a learner.
type bump struct{}

func (bump) Dim() int { return 2 }
func (bump) Eval(y []float64) float64 {
	return math.Exp(-8 * ((y[0]-0.4)*(y[0]-0.4) + (y[1]-0.6)*(y[1]-0.6)))
}

func ExampleSanitize() {
	p := mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{4, 4}, H: 2}
	s, err := mechanism.Sanitize(context.Background(), bump{}, 0.01, p, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	std, _ := s.NoiseStdAt([]float64{0.5, 0.5})
	// The noisy values differ on every run; the shape and scale do not.
	fmt.Printf("noise %s, λ = S·m/ε = %g\n", s.Noise, s.Scale)
	fmt.Printf("%d noisy coefficients on a %v lattice, h = %d\n", len(s.Coefficients()), s.K(), s.H())
	fmt.Printf("noise std at (0.5, 0.5): %.4f\n", std)
	// Output:
	// noise laplace, λ = S·m/ε = 0.25
	// 25 noisy coefficients on a [4 4] lattice, h = 2
	// noise std at (0.5, 0.5): 0.1500
}

func ExampleNewIteratedBasis() {
	b := mechanism.NewIteratedBasis(4, 2)
	w := make([]float64, 5)
	b.At(0.5, w)
	for _, v := range w {
		fmt.Printf("%.4f ", v)
	}
	fmt.Println()
	// Output:
	// -0.0410 0.2891 0.5039 0.2891 -0.0410
}

func ExampleBernsteinBasis() {
	b := make([]float64, 4)
	mechanism.BernsteinBasis(3, 0.25, b)
	fmt.Printf("%.6f\n", b)
	// Output:
	// [0.421875 0.421875 0.140625 0.015625]
}

func ExampleNoiseScale() {
	k := []int{20, 20} // m = 441 coefficients
	for _, p := range []mechanism.Params{
		{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: k, H: 2},
		{Epsilon: 1, Delta: 1e-6, Noise: mechanism.NoiseLaplaceApprox, K: k, H: 2},
	} {
		scale, err := mechanism.NoiseScale(0.001, p)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-14s scale %.4f  pure is better: %v\n", p.Noise, scale, mechanism.PureIsBetter(p))
	}
	// Output:
	// laplace        scale 0.4410  pure is better: false
	// laplace-approx scale 0.2208  pure is better: false
}

func ExampleParams_Validate() {
	p := mechanism.Params{Epsilon: -1, Noise: mechanism.NoiseLaplace, K: []int{10}, H: 2}
	fmt.Println(p.Validate())
	p.Epsilon, p.Delta = 1, 1e-6
	fmt.Println(p.Validate())
	// Output:
	// epsilon = -1: must be > 0 and finite
	// delta = 1e-06: must be 0 for noise "laplace" (pure ε-DP)
}

func ExamplePolynomial_Eval() {
	// Linear functions are fixed points of the (iterated) Bernstein
	// operator, so the noise-free polynomial reproduces 1 + 2y exactly.
	p, _ := mechanism.NewPolynomial([]int{3}, 2, []float64{1, 1 + 2.0/3, 1 + 4.0/3, 3})
	v, _ := p.Eval([]float64{0.25})
	fmt.Printf("%.12f\n", v)
	_, err := p.Eval([]float64{1.5})
	fmt.Println(err)
	// Output:
	// 1.500000000000
	// y[0] = 1.5: must be in [0,1] (the polynomial is never extrapolated)
}
