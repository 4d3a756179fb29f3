package study_test

import (
	"context"
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/study"
)

// The smallest ε at which 95 % of the simulated releases of
// F(y) = sin(3y) (sensitivity 0.01) have a sup-norm error of at most 0.05,
// with the order h and k (the k minimising the simulated error at that ε
// for that h; "automatic" when it is the automatic k there).
func ExampleFindEpsilon() {
	f := func(y float64) float64 { return math.Sin(3 * y) }
	grid := study.Linspace01(201)
	truth := make([]float64, len(grid))
	for i, y := range grid {
		truth[i] = f(y)
	}
	pr := study.TargetProblem{
		Lattice: func(_ context.Context, k []int) ([]float64, error) {
			out := make([]float64, k[0]+1)
			for i := range out {
				out[i] = f(float64(i) / float64(k[0]))
			}
			return out, nil
		},
		Grid: [][]float64{grid}, Truth: truth, Sensitivity: 0.01, Seed: 1,
	}
	res, err := study.FindEpsilon(context.Background(), pr, 0.05, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := res.Proposal
	fmt.Printf("reached: %v with %d simulated releases per point\n", res.Reached, res.Repeats)
	fmt.Printf("ε = %g, %s noise, h = %d, k = %d (automatic: %v)\n", p.Epsilon, p.Noise, p.H, p.K[0], p.KAuto)
	fmt.Printf("95%% error %.3f ± %.3f (re-checked)\n", p.Error, p.MCError())
	// Output:
	// reached: true with 400 simulated releases per point
	// ε = 5.44, laplace noise, h = 3, k = 5 (automatic: false)
	// 95% error 0.050 ± 0.006 (re-checked)
}
