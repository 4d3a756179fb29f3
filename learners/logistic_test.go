package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"
)

// logisticReference minimises the logistic objective by plain gradient
// descent with step 1/L, L = 1 + C/4 (the objective is L-smooth because the
// log-loss has curvature ≤ ¼ and ‖x̃‖ ≤ 1), until ‖∇P‖ ≤ 1e-12. It lifts the
// features itself with the intercept feature b, x̃ = (2x − 1, b)/√(ℓ + b²),
// independently of ermLiftB.
func logisticReference(d Dataset, c, b float64) []float64 {
	n, p := d.N(), d.Dim+1
	s := 1 / math.Sqrt(float64(d.Dim)+b*b)
	x := make([][]float64, n)
	for i := range n {
		x[i] = make([]float64, p)
		for j := range d.Dim {
			x[i][j] = (2*d.X[i*d.Dim+j] - 1) * s
		}
		x[i][d.Dim] = b * s
	}
	w := make([]float64, p)
	g := make([]float64, p)
	step := 1 / (1 + c/4)
	for it := 0; it < 1000000; it++ {
		copy(g, w)
		for i := range n {
			var z float64
			for j := range p {
				z += w[j] * x[i][j]
			}
			dl := -d.Labels[i] / (1 + math.Exp(d.Labels[i]*z))
			for j := range p {
				g[j] += c / float64(n) * dl * x[i][j]
			}
		}
		var nrm float64
		for j := range p {
			nrm += g[j] * g[j]
		}
		if math.Sqrt(nrm) <= 1e-12 {
			break
		}
		for j := range p {
			w[j] -= step * g[j]
		}
	}
	return w
}

// TestLogisticMatchesReference compares the fitted score with an
// independent gradient-descent solution: the certificate promises
// ‖ŵ − w*‖ ≤ τ = 0.01·C/n, hence |F − F_ref| ≤ τ + 1e-12 (the reference's own
// gradient tolerance) at every query, since ‖ỹ‖ ≤ 1.
func TestLogisticMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		d    Dataset
		c, b float64
	}{
		{ermFigure2Data(100, 3), 0.1, 1},
		{ermFigure2Data(100, 3), 10, 1},
		{ermRandomData(r, 150, 3, true), 1, 1},
		{ermRandomData(r, 80, 5, true), 100, 1},
		{ermFigure2Data(100, 3), 10, 0},
		{ermFigure2Data(100, 3), 10, 4},
		{ermRandomData(r, 150, 3, true), 30, 2.5},
	} {
		fit, err := NewLogistic().Fit(context.Background(), c.d, Values{"C": {c.c}, "intercept": {c.b}})
		if err != nil {
			t.Fatal(err)
		}
		ref := &ermLinearOracle{dim: c.d.Dim, w: logisticReference(c.d, c.c, c.b), b: c.b}
		_, tau, _ := logisticBounds(c.d.N(), c.c)
		worst := 0.0
		for range 200 {
			y := make([]float64, c.d.Dim)
			for j := range y {
				y[j] = r.Float64()
			}
			worst = math.Max(worst, math.Abs(fit.Oracle.Eval(y)-ref.Eval(y)))
		}
		if worst > tau+1e-12 {
			t.Errorf("ℓ=%d C=%g: max |F − F_ref| = %g > τ = %g", c.d.Dim, c.c, worst, tau)
		}
		t.Logf("ℓ=%d C=%g: max |F − F_ref| = %.3g (τ = %.3g)", c.d.Dim, c.c, worst, tau)
	}
}

// TestLogisticOutputs checks that output = 1 is exactly the sigmoid of
// output = 0 (same weights), S shrinks by ¼ up to the floating-point term,
// and the probability lies in OutputRange [0, 1].
func TestLogisticOutputs(t *testing.T) {
	d := ermFigure2Data(200, 5)
	score, err := NewLogistic().Fit(context.Background(), d, Values{"C": {3}, "output": {0}})
	if err != nil {
		t.Fatal(err)
	}
	prob, err := NewLogistic().Fit(context.Background(), d, Values{"C": {3}, "output": {1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range [][]float64{{0, 0}, {0.3, 0.5}, {0.6, 0.4}, {1, 1}, {0.5, 0.5}} {
		s, p := score.Oracle.Eval(y), prob.Oracle.Eval(y)
		if p != Sigmoid(s) {
			t.Errorf("y=%v: probability %.17g ≠ σ(score %.17g)", y, p, s)
		}
		if p < prob.OutputRange[0] || p > prob.OutputRange[1] {
			t.Errorf("y=%v: probability %g outside %v", y, p, prob.OutputRange)
		}
	}
	if score.Output.Kind != OutputClassScore || prob.Output.Kind != OutputProbability {
		t.Errorf("output kinds: score fit %q, probability fit %q; want %q and %q",
			score.Output.Kind, prob.Output.Kind, OutputClassScore, OutputProbability)
	}
	if r := prob.Sensitivity / score.Sensitivity; math.Abs(r-0.25) > 1e-9 {
		t.Errorf("S(probability)/S(score) = %.12g, want ¼", r)
	}
	if acc := ermAccuracy(prob.Oracle, d, 0.5); acc < 0.9 {
		t.Errorf("training accuracy %.3f < 0.9 on the Figure 2 data", acc)
	}
}

func ExampleNewLogistic() {
	data := ermFigure2Data(1500, 1)
	fit, err := NewLogistic().Fit(context.Background(), data, Values{"C": {10}, "output": {1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.6g (= ¼·2C/n·1.01 + rounding)\n", fit.Sensitivity)
	fmt.Printf("training accuracy %.1f%%\n", 100*ermAccuracy(fit.Oracle, data, 0.5))
	fmt.Printf("P(+1 | 0.3, 0.5) = %.3f\n", fit.Oracle.Eval([]float64{0.3, 0.5}))
	// Output:
	// S = 0.00168333 (= ¼·2C/n·1.01 + rounding)
	// training accuracy 96.4%
	// P(+1 | 0.3, 0.5) = 0.541
}
