package study_test

import (
	"context"
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/study"
)

// Mean sup-norm error of 100 simulated releases of F(y) = sin(3y) with
// k = 10, h = 1 and 2 and the nearest-lattice baseline, at two ε, with one
// set of draws per repeat shared by every ε and order (common random
// numbers).
func Example() {
	f := func(y float64) float64 { return math.Sin(3 * y) }
	lattice := study.Linspace01(11) // k = 10
	exact := make([]float64, len(lattice))
	for i, y := range lattice {
		exact[i] = f(y)
	}
	grid := study.Linspace01(201)
	truth := make([]float64, len(grid))
	for i, y := range grid {
		truth[i] = f(y)
	}
	md, err := study.NewModel([]int{10}, exact, [][]float64{grid}, truth, []int{1, 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := md.Run(context.Background(), study.Spec{
		Sensitivity: 1e-2, Noise: mechanism.NoiseLaplace, Epsilons: []float64{1, 100},
		Orders: []int{1, 2}, Baseline: true, Repeats: 100, Draws: study.PerRepeat{Seed: 1},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for o, h := range res.Orders {
		fmt.Printf("h = %d: noiseless %.4f, ε = 1: %.3f, ε = 100: %.4f\n", h, res.Approx[o], res.Mean[o][0], res.Mean[o][1])
	}
	fmt.Printf("baseline: ε = 1: %.3f, ε = 100: %.4f\n", res.Baseline[0], res.Baseline[1])
	// Output:
	// h = 1: noiseless 0.1066, ε = 1: 0.205, ε = 100: 0.1067
	// h = 2: noiseless 0.0177, ε = 1: 0.204, ε = 100: 0.0177
	// baseline: ε = 1: 0.407, ε = 100: 0.1470
}
