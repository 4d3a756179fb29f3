package learners

import (
	"context"
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// svmIndependentGap recomputes the duality gap P(w) − D(α) of a fitted SVM
// from its oracle alone (f_i = F(d_i), ‖w‖² = Σ_s coef_s F(sv_s),
// Σα = Σ|coef_s|), with plain float64 sums — independent of the solver's
// bookkeeping and of its compensated certificate.
func svmIndependentGap(o *svmOracle, d Dataset, c float64) float64 {
	n := d.N()
	var hinge float64
	for i := range n {
		f := o.Eval(d.X[i*d.Dim : (i+1)*d.Dim])
		hinge += math.Max(0, 1-d.Labels[i]*f)
	}
	var w2, sumAlpha float64
	for s, cf := range o.coef {
		w2 += cf * o.Eval(o.sv[s*o.dim:(s+1)*o.dim])
		sumAlpha += math.Abs(cf)
	}
	return c/float64(n)*hinge + w2 - sumAlpha // P − D = (C/n)Σhinge + ½‖w‖² − (Σα − ½‖w‖²)
}

// TestSVMFigure2 reproduces the setting of Figure 2 (1500 points per class,
// C = σ = 1): the training accuracy must be sensible (> 85 %), the solution
// is the exact corner α = C/n (every record a support vector with
// coefficient ±C/n), its independently recomputed gap is 0 up to rounding,
// and S = 2C/n plus the floating-point term.
func TestSVMFigure2(t *testing.T) {
	d := ermFigure2Data(1500, 1)
	f, err := NewSVM().Fit(context.Background(), d, Values{"intercept": {0}}) // Figure 2 has no intercept
	if err != nil {
		t.Fatal(err)
	}
	o := f.Oracle.(*svmOracle)
	n := d.N()
	if acc := ermAccuracy(o, d, 0); acc <= 0.85 {
		t.Errorf("training accuracy %.4f ≤ 0.85", acc)
	}
	u := svmUpper(1, n)
	if len(o.coef) != n {
		t.Fatalf("%d support vectors, want all %d", len(o.coef), n)
	}
	for i, cf := range o.coef {
		if cf != u*d.Labels[i] {
			t.Fatalf("coef[%d] = %g, want %g", i, cf, u*d.Labels[i])
		}
	}
	// Rounding of the independent recomputation: n-term sums of values ≤ C,
	// so |error| ≲ 3n·u·C ≈ 1e-12 for n = 3000.
	if g := svmIndependentGap(o, d, 1); math.Abs(g) > 1e-12 {
		t.Errorf("independent gap %g, want 0 (exact corner solution)", g)
	}
	want := 2.0/float64(n) + 2*svmEvalError(n, 2, 1, 0)
	if f.Sensitivity != want {
		t.Errorf("S = %.17g, want %.17g", f.Sensitivity, want)
	}
}

// TestSVMCertifiedGap fits C > 1, where the solver iterates, and checks the
// certificate independently: the recomputed gap must be ≤ the public
// tolerance g_max. The same check must fail for a visibly perturbed solution
// (coefficients scaled by 1.2), so it has teeth.
func TestSVMCertifiedGap(t *testing.T) {
	fig := ermFigure2Data(200, 2)
	rnd3 := ermRandomData(rand.New(rand.NewPCG(5, 6)), 300, 3, true)
	cases := []struct {
		name     string
		d        Dataset
		c, sigma float64
	}{
		{"figure2 C=2", fig, 2, 1},
		{"figure2 C=30 σ=0.2", fig, 30, 0.2},
		{"figure2 C=400 σ=0.1", fig, 400, 0.1},
		{"random ℓ=3 C=50", rnd3, 50, 0.3},
		{"random ℓ=3 C=1000 σ=0.05", rnd3, 1000, 0.05},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := c.d.N()
			_, gapTol, _, _ := svmBounds(n, c.d.Dim, c.c, 0)
			sol, err := svmSolve(context.Background(), c.d, c.c, c.sigma, 0, gapTol)
			if err != nil {
				t.Fatal(err)
			}
			if !(sol.gap <= gapTol) {
				t.Errorf("solver's certified gap %g > tolerance %g", sol.gap, gapTol)
			}
			o := newSVMOracle(c.d.Dim, c.sigma, 0, sol)
			// Plain sums over ≤ 400 terms of size ≤ C: rounding ≲ 1e-13·C².
			slack := 1e-13 * c.c * c.c
			g := svmIndependentGap(o, c.d, c.c)
			if g > gapTol+slack {
				t.Errorf("independent gap %g > tolerance %g", g, gapTol)
			}
			t.Logf("n=%d nSV=%d updates=%d certified gap %.3g, independent %.3g, tolerance %.3g", n, len(sol.coef), sol.iterations, sol.gap, g, gapTol)
			bad := &svmOracle{dim: o.dim, g: o.g, sv: o.sv, coef: make([]float64, len(o.coef))}
			for i, cf := range o.coef {
				bad.coef[i] = 1.2 * cf
				if math.Abs(bad.coef[i]) > c.c/float64(n) {
					bad.coef[i] = 0.8 * cf // stay feasible
				}
			}
			if gb := svmIndependentGap(bad, c.d, c.c); gb <= gapTol+slack {
				t.Errorf("perturbed solution passes the gap check (%g ≤ %g): the check has no teeth", gb, gapTol)
			}
		})
	}
}

// TestSVMPaperBoundTooSmall is the worked counterexample to the bound
// MC/n·sup K of Section 6: with C ≤ 1 the fit is F_D = (C/n) Σ l_i K(·, d_i),
// so flipping the label of record 0 changes F at d_0 by exactly 2C/n·K(d_0,
// d_0) = 2C/n — twice the paper's bound and equal to ours (up to the
// floating-point term).
func TestSVMPaperBoundTooSmall(t *testing.T) {
	for _, c := range []float64{0.25, 1} {
		d := Dataset{Dim: 2, X: []float64{0.5, 0.5, 0.2, 0.9, 0.7, 0.1}, Labels: []float64{1, 1, -1}}
		d2 := Dataset{Dim: 2, X: d.X, Labels: []float64{-1, 1, -1}}
		v := Values{"C": {c}, "sigma": {0.4}}
		f1, err1 := NewSVM().Fit(context.Background(), d, v)
		f2, err2 := NewSVM().Fit(context.Background(), d2, v)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		y := []float64{0.5, 0.5}
		diff := math.Abs(f1.Oracle.Eval(y) - f2.Oracle.Eval(y))
		n := 3.0
		paper := c / n
		if !(diff > 1.99*paper) {
			t.Errorf("C=%g: |ΔF| = %g, expected ≈ 2C/n = %g (paper's bound %g)", c, diff, 2*c/n, paper)
		}
		if diff > f1.Sensitivity {
			t.Errorf("C=%g: |ΔF| = %.17g > S = %.17g", c, diff, f1.Sensitivity)
		}
	}
}

// TestSVMEvalGrid checks EvalGrid against Eval point by point. Both compute
// the same sum with differently rounded kernel values; each is within
// svmEvalError of the exact value, so they differ by at most twice that.
func TestSVMEvalGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{1, 2, 3, 4} {
		d := ermRandomData(r, 60, dim, true)
		f, err := NewSVM().Fit(context.Background(), d, Values{"C": {5}, "sigma": {0.3}})
		if err != nil {
			t.Fatal(err)
		}
		o := f.Oracle.(mechanism.GridOracle)
		axes := make([][]float64, dim)
		total := 1
		for j := range axes {
			k := 3 + j
			for g := range k + 1 {
				axes[j] = append(axes[j], float64(g)/float64(k))
			}
			total *= k + 1
		}
		out := make([]float64, total)
		if err := o.EvalGrid(context.Background(), axes, out); err != nil {
			t.Fatal(err)
		}
		tol := 2 * svmEvalError(60, dim, 5, 0)
		idx := make([]int, dim)
		y := make([]float64, dim)
		for cell := range total {
			for j := range y {
				y[j] = axes[j][idx[j]]
			}
			if e := o.Eval(y); math.Abs(e-out[cell]) > tol {
				t.Fatalf("ℓ=%d cell %d y=%v: grid %.17g, Eval %.17g", dim, cell, y, out[cell], e)
			}
			for j := dim - 1; j >= 0; j-- {
				if idx[j]++; idx[j] < len(axes[j]) {
					break
				}
				idx[j] = 0
			}
		}
	}
}

// TestSVMEvalGridCancel checks that a cancelled context is reported.
func TestSVMEvalGridCancel(t *testing.T) {
	f, err := NewSVM().Fit(context.Background(), ermFigure2Data(50, 3), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	axes := [][]float64{{0, 0.5, 1}, {0, 1}}
	if err := f.Oracle.(mechanism.GridOracle).EvalGrid(ctx, axes, make([]float64, 6)); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalGrid on a cancelled context: %v, want context.Canceled", err)
	}
}

// TestSVMFitCancel checks that the iterative solver honours cancellation.
func TestSVMFitCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewSVM().Fit(ctx, ermFigure2Data(100, 4), Values{"C": {10}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fit on a cancelled context: %v, want context.Canceled", err)
	}
}

// TestSVMUpperFeasible checks U = svmUpper(C, n) ≤ C/n exactly (U·n ≤ C in
// exact arithmetic, via FMA) and that U is the largest such float.
func TestSVMUpperFeasible(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		c := math.Exp(r.Float64()*20 - 5)
		n := 1 + r.IntN(1000000)
		u := svmUpper(c, n)
		if math.FMA(u, float64(n), -c) > 0 {
			t.Fatalf("C=%g n=%d: U = %g has U·n > C", c, n, u)
		}
		if up := math.Nextafter(u, 2*u); math.FMA(up, float64(n), -c) <= 0 {
			t.Fatalf("C=%g n=%d: U = %g is not the largest feasible float", c, n, u)
		}
	}
}

func ExampleNewSVM() {
	// Figure 2 of Aldà & Rubinstein (2017): 1500 points per class, C = σ = 1, no intercept.
	data := ermFigure2Data(1500, 1)
	fit, err := NewSVM().Fit(context.Background(), data, Values{"C": {1}, "sigma": {1}, "intercept": {0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n = %d, S = %.6g (= 2C/n + rounding)\n", fit.N, fit.Sensitivity)
	fmt.Printf("training accuracy %.1f%%\n", 100*ermAccuracy(fit.Oracle, data, 0))
	fmt.Printf("F(0.3, 0.5) = %+.4f, F(0.6, 0.4) = %+.4f\n", fit.Oracle.Eval([]float64{0.3, 0.5}), fit.Oracle.Eval([]float64{0.6, 0.4}))
	// Output:
	// n = 3000, S = 0.000666667 (= 2C/n + rounding)
	// training accuracy 96.5%
	// F(0.3, 0.5) = +0.0253, F(0.6, 0.4) = -0.0223
}
