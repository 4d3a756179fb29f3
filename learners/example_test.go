package learners_test

import (
	"context"
	"fmt"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// A kernel density estimate of four records on [0,1], its sensitivity and
// its values on the lattice {0, ¼, ½, ¾, 1} that the Bernstein mechanism
// evaluates.
func ExampleNewKDE() {
	kde, err := learners.Lookup(learners.KindKDE)
	if err != nil {
		panic(err)
	}
	data := learners.Dataset{Dim: 1, X: []float64{0.2, 0.25, 0.3, 0.8}}
	fit, err := kde.Fit(context.Background(), data, learners.Values{"bandwidth": {0.1}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n = %d, S(F) = %.4f, range [%g, %.4f]\n", fit.N, fit.Sensitivity, fit.OutputRange[0], fit.OutputRange[1])
	fmt.Printf("F(0.25) = %.4f\n", fit.Oracle.Eval([]float64{0.25}))

	axes := [][]float64{{0, 0.25, 0.5, 0.75, 1}}
	out := make([]float64, 5)
	if err := fit.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), axes, out); err != nil {
		panic(err)
	}
	fmt.Printf("lattice: %.4f\n", out)
	// Output:
	// n = 4, S(F) = 0.9974, range [0, 3.9894]
	// F(0.25) = 2.7577
	// lattice: [0.1899 2.7577 0.2010 0.8802 0.1350]
}
