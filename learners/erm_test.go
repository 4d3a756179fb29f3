package learners

import (
	"context"
	"errors"
	"math"
	"math/big"
	rand "math/rand/v2" // seeded: test data only
	"strings"
	"testing"
)

func TestErmGamma(t *testing.T) {
	u := ermRoundoff
	for _, c := range []struct {
		k    int
		want float64
	}{
		{0, 0},
		{1, u / (1 - u)},
		{10, 10 * u / (1 - 10*u)},
	} {
		if got := ermGamma(c.k); got != c.want {
			t.Errorf("ermGamma(%d) = %g, want %g", c.k, got, c.want)
		}
	}
	if g := ermGamma(1 << 53); !math.IsInf(g, 1) {
		t.Errorf("ermGamma(2^53) = %g, want +Inf", g)
	}
}

// exactSum returns Σx rounded once, computed with 2000-bit floats (exact for
// the inputs below, whose exponents span far less than 2000 bits).
func exactSum(xs []float64) float64 {
	s := new(big.Float).SetPrec(2000)
	for _, x := range xs {
		s.Add(s, new(big.Float).SetPrec(2000).SetFloat64(x))
	}
	f, _ := s.Float64()
	return f
}

// TestErmSumBound checks the compensated sum against an exact sum on
// cancelling and random sequences, within ermCompensatedError.
func TestErmSumBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]float64{
		"cancel":      {1e16, 1, -1e16, 1, 3e-5, -2},
		"alternating": nil,
		"random":      nil,
		"tiny+huge":   {1, 1e-17, 1e-17, 1e-17, 1e-17, -1},
	}
	for i := range 10000 {
		cases["alternating"] = append(cases["alternating"], math.Pow(-1, float64(i))*(1+float64(i)*1e-9))
		cases["random"] = append(cases["random"], (r.Float64()-0.5)*math.Pow(10, float64(r.IntN(30)-15)))
	}
	for name, xs := range cases {
		var a ermSum
		var sumAbs float64
		for _, x := range xs {
			a.add(x)
			sumAbs += math.Abs(x)
		}
		exact := exactSum(xs)
		bound := ermCompensatedError(len(xs), sumAbs) + ermRoundoff*math.Abs(exact)
		if err := math.Abs(a.value() - exact); !(err <= bound) {
			t.Errorf("%s: |compensated − exact| = %g > bound %g", name, err, bound)
		}
	}
	// A naive sum loses the 1 absorbed by 1e16 in "cancel"; the compensated
	// one must keep it (the test fails if add is a plain sum).
	var a, naive ermSum
	naiveSum := 0.0
	for _, x := range cases["cancel"] {
		a.add(x)
		naiveSum += x
	}
	naive.s = naiveSum
	exact := exactSum(cases["cancel"])
	if e := math.Abs(a.value() - exact); e > 1e-15 {
		t.Errorf("cancel: compensated sum %.17g, exact %.17g (error %g)", a.value(), exact, e)
	}
	if e := math.Abs(naive.value() - exact); e < 0.5 {
		t.Errorf("cancel: naive sum %.17g is unexpectedly accurate; the case does not exercise compensation", naive.value())
	}
}

// TestErmLiftNorm checks ‖x̃‖ ≤ 1 on [0,1]^ℓ with equality at the corners,
// the lift's values, and that the rounded norm never exceeds 1 + 4u.
func TestErmLiftNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for dim := 1; dim <= 6; dim++ {
		out := make([]float64, dim+1)
		x := make([]float64, dim)
		for trial := range 2000 {
			for j := range x {
				switch {
				case trial%3 == 0:
					x[j] = float64(r.IntN(2)) // corner
				default:
					x[j] = r.Float64()
				}
			}
			ermLift(x, out)
			n := math.Sqrt(ermDot(out, out))
			if n > 1+4*ermRoundoff {
				t.Fatalf("ℓ=%d x=%v: ‖x̃‖ = %.17g > 1", dim, x, n)
			}
			if trial%3 == 0 && math.Abs(n-1) > 4*ermRoundoff {
				t.Fatalf("ℓ=%d corner %v: ‖x̃‖ = %.17g, want 1", dim, x, n)
			}
		}
		ermLift(make([]float64, dim), out)
		s := 1 / math.Sqrt(float64(dim+1))
		for j := range dim {
			if out[j] != -s {
				t.Fatalf("ℓ=%d: lift(0)[%d] = %g, want %g", dim, j, out[j], -s)
			}
		}
		if out[dim] != s {
			t.Fatalf("ℓ=%d: intercept coordinate %g, want %g", dim, out[dim], s)
		}
	}
}

func TestErmCheckData(t *testing.T) {
	ok := Dataset{Dim: 2, X: []float64{0, 1, 0.5, 0.5}, Labels: []float64{-1, 1}}
	cases := []struct {
		name  string
		data  Dataset
		label LabelKind
		want  string // substring of the error, "" for no error
	}{
		{"valid binary", ok, LabelBinary, ""},
		{"valid real", Dataset{Dim: 1, X: []float64{0.2}, Labels: []float64{0.3}}, LabelReal, ""},
		{"dim too large", Dataset{Dim: 7, X: make([]float64, 7), Labels: []float64{1}}, LabelBinary, "7 feature columns"},
		{"dim zero", Dataset{}, LabelBinary, "0 feature columns"},
		{"ragged", Dataset{Dim: 2, X: []float64{0, 1, 0.5}, Labels: []float64{1}}, LabelBinary, "not a multiple"},
		{"empty", Dataset{Dim: 2}, LabelBinary, "no records"},
		{"feature > 1", Dataset{Dim: 1, X: []float64{1.5}, Labels: []float64{1}}, LabelBinary, "record 1 feature 1 = 1.5"},
		{"feature NaN", Dataset{Dim: 1, X: []float64{0, math.NaN()}, Labels: []float64{1, 1}}, LabelBinary, "record 2 feature 1 = NaN"},
		{"label count", Dataset{Dim: 1, X: []float64{0, 1}, Labels: []float64{1}}, LabelBinary, "1 labels for 2 records"},
		{"binary label 0", Dataset{Dim: 1, X: []float64{0}, Labels: []float64{0}}, LabelBinary, "exactly −1 or +1"},
		{"real label 2", Dataset{Dim: 1, X: []float64{0}, Labels: []float64{2}}, LabelReal, "must lie in [−1, 1]"},
		{"real label Inf", Dataset{Dim: 1, X: []float64{0}, Labels: []float64{math.Inf(-1)}}, LabelReal, "label = -Inf"},
	}
	for _, c := range cases {
		err := ermCheckData(KindSVM, c.data, c.label, 1, 6)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestErmFitRejects checks that each learner validates parameters and data
// before fitting, with errors naming the value and the rule.
func TestErmFitRejects(t *testing.T) {
	bin := Dataset{Dim: 1, X: []float64{0.1, 0.9}, Labels: []float64{-1, 1}}
	cases := []struct {
		l    Learner
		data Dataset
		v    Values
		want string
	}{
		{NewSVM(), bin, Values{"C": {0}}, "parameter C = 0: must be > 0"},
		{NewSVM(), bin, Values{"sigma": {-1}}, "parameter sigma = -1"},
		{NewSVM(), bin, Values{"gamma": {1}}, "unknown parameter"},
		{NewSVM(), Dataset{Dim: 1, X: []float64{0.1}, Labels: []float64{0.5}}, nil, "exactly −1 or +1"},
		{NewLogistic(), bin, Values{"output": {2}}, "parameter output = 2: must be one of 0 (linear score), 1 (probability)"},
		{NewLogistic(), bin, Values{"C": {math.Inf(1)}}, "must be a finite number"},
		{NewLogistic(), Dataset{Dim: 1, X: []float64{0.1}, Labels: []float64{0}}, nil, "exactly −1 or +1"},
		{NewRidge(), bin, Values{"C": {2e6}}, "parameter C = 2e+06: must be between 0 and 1e+06"},
		{NewRidge(), Dataset{Dim: 1, X: []float64{0.1}, Labels: []float64{1.5}}, nil, "must lie in [−1, 1]"},
		{NewRidge(), Dataset{Dim: 1, X: []float64{-0.1}, Labels: []float64{0.5}}, nil, "feature 1 = -0.1"},
	}
	for _, c := range cases {
		_, err := c.l.Fit(context.Background(), c.data, c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: error %v, want one containing %q", c.l.Spec().Kind, c.v, err, c.want)
		}
	}
}

// TestErmOracleDimPanics checks the documented panic on a wrong query length.
func TestErmOracleDimPanics(t *testing.T) {
	data := Dataset{Dim: 2, X: []float64{0.1, 0.2, 0.9, 0.8}, Labels: []float64{-1, 1}}
	for _, l := range []Learner{NewSVM(), NewLogistic(), NewRidge()} {
		f, err := l.Fit(context.Background(), data, nil)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Eval with 1 coordinate on a 2-D oracle did not panic", l.Spec().Kind)
				}
			}()
			f.Oracle.Eval([]float64{0.5})
		}()
	}
}

// TestErmTinyC checks that the certificates scale with C: with C = 10⁻⁹ and
// n = 10⁴ the tolerances are ~10⁻¹⁵, far below an absolute rounding floor,
// and the fits must still certify.
func TestErmTinyC(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	bin := ermRandomData(r, 10000, 3, true)
	real := ermRandomData(r, 10000, 3, false)
	for _, c := range []struct {
		l Learner
		d Dataset
	}{{NewLogistic(), bin}, {NewRidge(), real}, {NewSVM(), bin}} {
		v := Values{"C": {1e-9}}
		if c.l.Spec().Kind == KindSVM {
			v["intercept"] = []float64{0} // κ² = 1; with c > 0, S = 2Cκ²/n
		}
		f, err := c.l.Fit(context.Background(), c.d, v)
		if err != nil {
			t.Errorf("%s: %v", c.l.Spec().Kind, err)
			continue
		}
		if want := 2e-9 / 10000; f.Sensitivity < want || f.Sensitivity > 1.1*want*(1+math.Sqrt(1e-9)) {
			t.Errorf("%s: S = %g, want ≈ 2C/n = %g", c.l.Spec().Kind, f.Sensitivity, want)
		}
	}
}

// TestErmSolversUncertifiable asks each primary solver for a tolerance of
// 0, which no floating-point certificate can meet (each carries a positive
// rounding margin): the solvers must report non-certification (the SVM an
// error wrapping errUncertified, the linear solver a certificate above the
// tolerance) rather than claim a certificate; Fit then releases the public
// fallback (TestErmFallback*).
func TestErmSolversUncertifiable(t *testing.T) {
	ctx := context.Background()
	bin := ermFigure2Data(30, 7)
	if _, err := svmSolve(ctx, bin, 5, 0.5, 0, 0); !errors.Is(err, errUncertified) || !strings.Contains(err.Error(), "cannot be certified") {
		t.Errorf("svm with g_max = 0: error %v, want a certification failure wrapping errUncertified", err)
	}
	q := newErmLinearProblem(KindLogistic, bin, 1, logisticLoss{})
	if _, cert, err := q.minimize(ctx, 0); err != nil || !(cert > 0) {
		t.Errorf("logistic with τ = 0: certificate %g, error %v; want a positive certificate and no error", cert, err)
	}
}
