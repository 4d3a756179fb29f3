package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ridgeReference solves the normal equations (I + (C/n)X̃ᵀX̃)w = (C/n)X̃ᵀl
// with a dense LU solve of gonum/mat — a different route from the fitter's
// Newton/Cholesky step on the gradient — lifting the features itself.
func ridgeReference(d Dataset, c float64) []float64 {
	n, p := d.N(), d.Dim+1
	s := 1 / math.Sqrt(float64(p))
	x := mat.NewDense(n, p, nil)
	for i := range n {
		for j := range d.Dim {
			x.Set(i, j, (2*d.X[i*d.Dim+j]-1)*s)
		}
		x.Set(i, d.Dim, s)
	}
	var a mat.Dense
	a.Mul(x.T(), x)
	a.Scale(c/float64(n), &a)
	for j := range p {
		a.Set(j, j, a.At(j, j)+1)
	}
	var b mat.VecDense
	b.MulVec(x.T(), mat.NewVecDense(n, d.Labels))
	b.ScaleVec(c/float64(n), &b)
	var w mat.VecDense
	if err := w.SolveVec(&a, &b); err != nil {
		panic(err)
	}
	return w.RawVector().Data
}

// TestRidgeMatchesReference: the certificate promises ‖ŵ − w*‖ ≤ τ, so
// |F − F_ref| ≤ τ plus the reference's rounding (≲ 1e-12 for these sizes).
func TestRidgeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, c := range []struct {
		dim, n int
		c      float64
	}{
		{1, 5, 1}, {2, 200, 0.01}, {3, 500, 10}, {6, 50, 1e4}, {1, 1, 1e6},
	} {
		d := ermRandomData(r, c.n, c.dim, false)
		fit, err := NewRidge().Fit(context.Background(), d, Values{"C": {c.c}})
		if err != nil {
			t.Fatal(err)
		}
		ref := &ermLinearOracle{dim: c.dim, w: ridgeReference(d, c.c), b: 1}
		_, tau, _ := ridgeBounds(c.n, c.c)
		worst := 0.0
		for range 200 {
			y := make([]float64, c.dim)
			for j := range y {
				y[j] = r.Float64()
			}
			worst = math.Max(worst, math.Abs(fit.Oracle.Eval(y)-ref.Eval(y)))
		}
		if worst > tau+1e-12*(1+c.c) {
			t.Errorf("ℓ=%d n=%d C=%g: max |F − F_ref| = %g > τ = %g", c.dim, c.n, c.c, worst, tau)
		}
	}
}

// TestRidgeRecoversLine checks utility on noiseless affine data: with
// labels l = 0.8·(2x − 1) and large C the fit approaches the line.
func TestRidgeRecoversLine(t *testing.T) {
	d := Dataset{Dim: 1}
	for i := range 101 {
		x := float64(i) / 100
		d.X = append(d.X, x)
		d.Labels = append(d.Labels, 0.8*(2*x-1))
	}
	fit, err := NewRidge().Fit(context.Background(), d, Values{"C": {1e4}})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{0, 0.25, 0.5, 1} {
		if got, want := fit.Oracle.Eval([]float64{x}), 0.8*(2*x-1); math.Abs(got-want) > 1e-3 {
			t.Errorf("F(%g) = %g, want ≈ %g", x, got, want)
		}
	}
}

func ExampleNewRidge() {
	// 101 noiseless points on l = 0.8·(2x − 1), C = 1 (heavily regularised).
	d := Dataset{Dim: 1}
	for i := range 101 {
		x := float64(i) / 100
		d.X = append(d.X, x)
		d.Labels = append(d.Labels, 0.8*(2*x-1))
	}
	fit, err := NewRidge().Fit(context.Background(), d, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("S = %.6g (= 2C(1+√C)/n·1.01 + rounding)\n", fit.Sensitivity)
	for _, x := range []float64{0, 0.25, 1} {
		fmt.Printf("F(%.2f) = %+.4f\n", x, fit.Oracle.Eval([]float64{x}))
	}
	// Output:
	// S = 0.04 (= 2C(1+√C)/n·1.01 + rounding)
	// F(0.00) = -0.1162
	// F(0.25) = -0.0581
	// F(1.00) = +0.1162
}
