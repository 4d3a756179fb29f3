package mechanism

import (
	"context"
	"errors"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"
)

func randomPolynomial(t testing.TB, r *rand.Rand, k []int, h int) *Polynomial {
	t.Helper()
	c := make([]float64, coefficientCount(k))
	for i := range c {
		c[i] = 2*r.Float64() - 1
	}
	p, err := NewPolynomial(k, h, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func randomPoint(r *rand.Rand, dim int) []float64 {
	y := make([]float64, dim)
	for j := range y {
		switch r.IntN(8) {
		case 0:
			y[j] = 0
		case 1:
			y[j] = 1
		default:
			y[j] = r.Float64()
		}
	}
	return y
}

var shapes = []struct {
	k []int
	h int
}{
	{[]int{1}, 1}, {[]int{6}, 3}, {[]int{15}, 5},
	{[]int{3, 4}, 1}, {[]int{5, 2}, 2}, {[]int{7, 6}, 4},
	{[]int{2, 3, 4}, 1}, {[]int{3, 3, 2}, 3}, {[]int{4, 1, 3}, 2},
}

// The axis-by-axis contraction over C′ = (T⊗…⊗T)C equals the literal
// Definition 9 sum with Definition 8 bases.
func TestEvalMatchesDefinition9(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		p := randomPolynomial(t, r, s.k, s.h)
		for range 20 {
			y := randomPoint(r, len(s.k))
			got, err := p.Eval(y)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveEval(s.k, s.h, p.Coefficients(), y)
			if math.Abs(got-want) > 1e-10 {
				t.Errorf("k=%v h=%d y=%v: Eval %.15g, Definition 9 %.15g", s.k, s.h, y, got, want)
			}
		}
	}
}

func TestEvalBatchAndGridEqualEval(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		p := randomPolynomial(t, r, s.k, s.h)
		dim := len(s.k)
		const n = 5000 // more than one chunk per worker
		pts, out := randomBatch(t, r, p, n)
		for i := range n {
			want, _ := p.Eval(pts[i*dim : (i+1)*dim])
			if out[i] != want {
				t.Fatalf("k=%v h=%d query %d: EvalBatch %.17g != Eval %.17g", s.k, s.h, i, out[i], want)
			}
		}

		axes := make([][]float64, dim)
		for j := range axes {
			axes[j] = append([]float64{0, 1}, randomPoint(r, 3+j)...)
		}
		g, err := p.EvalGrid(axes)
		if err != nil {
			t.Fatal(err)
		}
		// Walk the grid in lattice order (last axis fastest).
		idx := make([]int, dim)
		y := make([]float64, dim)
		for i, v := range g {
			for j := range y {
				y[j] = axes[j][idx[j]]
			}
			want, _ := p.Eval(y)
			if math.Abs(v-want) > 1e-12 {
				t.Fatalf("k=%v h=%d grid point %v: EvalGrid %.17g, Eval %.17g", s.k, s.h, y, v, want)
			}
			for j := dim - 1; j >= 0; j-- {
				if idx[j]++; idx[j] < len(axes[j]) {
					break
				}
				idx[j] = 0
			}
			if i == len(g)-1 && idx[0] != 0 {
				t.Fatal("grid walk did not wrap")
			}
		}
	}
}

func TestEvalBatchCancelled(t *testing.T) {
	p := randomPolynomial(t, rand.New(rand.NewPCG(5, 6)), []int{5, 5}, 2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := make([]float64, 10)
	if err := p.EvalBatch(ctx, make([]float64, 20), out); !errors.Is(err, context.Canceled) {
		t.Errorf("EvalBatch with cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestEvalNearest(t *testing.T) {
	k := []int{4, 2}
	c := make([]float64, 15)
	for i := range c {
		c[i] = float64(i)
	}
	p, err := NewPolynomial(k, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		y    []float64
		want float64
	}{
		{[]float64{0, 0}, 0},
		{[]float64{1, 1}, 14},
		{[]float64{0.124, 0.24}, 0},  // ν = (0, 0)
		{[]float64{0.125, 0.25}, 4},  // ties round half up: ν = (1, 1)
		{[]float64{0.126, 0.26}, 4},  // ν = (1, 1)
		{[]float64{0.5, 0.75}, 8},    // ν = (2, 2)
		{[]float64{0.874, 0.74}, 10}, // ν = (3, 1)
		{[]float64{0.875, 1}, 14},    // ν = (4, 2)
	}
	for _, c := range cases {
		got, err := p.EvalNearest(c.y)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("EvalNearest(%v) = %g, want %g", c.y, got, c.want)
		}
	}
}

func TestQueriesOutsideTheCubeAreErrors(t *testing.T) {
	p := randomPolynomial(t, rand.New(rand.NewPCG(7, 8)), []int{3, 3}, 2)
	bad := [][]float64{{-0.01, 0.5}, {0.5, 1.01}, {math.NaN(), 0.5}, {0.5, math.Inf(1)}, {0.5}, {0.1, 0.2, 0.3}}
	for _, y := range bad {
		if _, err := p.Eval(y); err == nil {
			t.Errorf("Eval(%v): no error", y)
		}
		if _, err := p.EvalNearest(y); err == nil {
			t.Errorf("EvalNearest(%v): no error", y)
		}
		if _, err := p.NoiseStd(y, NoiseLaplace, 1); err == nil {
			t.Errorf("NoiseStd(%v): no error", y)
		}
	}
	var pe *ParamError
	if err := p.EvalBatch(context.Background(), []float64{0.5, 0.5, 0.5, 2}, make([]float64, 2)); !errors.As(err, &pe) || pe.Field != "y[1]" {
		t.Errorf("EvalBatch with y = 2: err = %v, want a ParamError for y[1]", err)
	}
	if err := p.EvalBatch(context.Background(), []float64{0.5, 0.5, 0.5}, make([]float64, 2)); err == nil {
		t.Error("EvalBatch with 3 values for 2 queries: no error")
	}
	for _, axes := range [][][]float64{{{0.5}}, {{0.5}, {}}, {{0.5}, {1.5}}, {{-1}, {0.5}}} {
		if _, err := p.EvalGrid(axes); err == nil {
			t.Errorf("EvalGrid(%v): no error", axes)
		}
	}
}

func TestNewPolynomialValidates(t *testing.T) {
	cases := []struct {
		name  string
		k     []int
		h     int
		c     []float64
		field string
	}{
		{"no axes", nil, 1, []float64{1}, "k"},
		{"k=0", []int{0}, 1, []float64{1}, "k[0]"},
		{"h=0", []int{1}, 0, []float64{1, 2}, "h"},
		{"h=11", []int{1}, 11, []float64{1, 2}, "h"},
		{"wrong length", []int{2}, 1, []float64{1, 2}, "coefficients"},
		{"NaN", []int{1}, 1, []float64{1, math.NaN()}, "coefficients[1]"},
		{"Inf", []int{1}, 1, []float64{math.Inf(-1), 0}, "coefficients[0]"},
	}
	for _, c := range cases {
		_, err := NewPolynomial(c.k, c.h, c.c)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Field != c.field {
			t.Errorf("%s: err = %v, want a ParamError for %s", c.name, err, c.field)
		}
	}
}

func TestNewPolynomialCopiesInput(t *testing.T) {
	k, c := []int{2}, []float64{1, 2, 3}
	p, err := NewPolynomial(k, 2, c)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := p.Eval([]float64{0.3})
	k[0], c[1] = 7, 100
	after, _ := p.Eval([]float64{0.3})
	if before != after || p.K()[0] != 2 || p.Coefficients()[1] != 2 {
		t.Error("NewPolynomial did not copy k and coeffs")
	}
}

// Zero noise: the polynomial built from EvaluateLattice(f) is B^(h)_k(f).
func TestZeroNoiseReproducesIteratedBernstein(t *testing.T) {
	f1 := func(y float64) float64 { return math.Exp(-4*(y-0.3)*(y-0.3)) + 0.2*y }
	for _, k := range []int{3, 8, 13} {
		for _, h := range []int{1, 2, 4} {
			l, _ := NewLattice([]int{k})
			exact, err := EvaluateLattice(context.Background(), funcOracle{1, func(y []float64) float64 { return f1(y[0]) }}, l, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewPolynomial([]int{k}, h, exact)
			if err != nil {
				t.Fatal(err)
			}
			for _, y := range []float64{0, 0.1, 0.45, 0.8, 1} {
				got, _ := p.Eval([]float64{y})
				want := naiveOperator(f1, k, h, y) // Σ C(h,i)(−1)^{i−1} B^i f
				if math.Abs(got-want) > 1e-11 {
					t.Errorf("k=%d h=%d y=%g: polynomial %.15g, B^(h)(f) %.15g", k, h, y, got, want)
				}
			}
		}
	}
	f2 := func(y []float64) float64 { return math.Sin(2*y[0]) * math.Cos(y[1]+y[0]*y[1]) }
	k := []int{5, 4}
	l, _ := NewLattice(k)
	exact, err := EvaluateLattice(context.Background(), funcOracle{2, f2}, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewPolynomial(k, 3, exact)
	for _, y := range [][]float64{{0.2, 0.9}, {0.6, 0.1}, {1, 0}} {
		got, _ := p.Eval(y)
		// Definition 9 with f evaluated at the lattice points directly.
		c := make([]float64, l.Size())
		pt := make([]float64, 2)
		for i := range c {
			l.Point(i, pt)
			c[i] = f2(pt)
		}
		if want := naiveEval(k, 3, c, y); math.Abs(got-want) > 1e-11 {
			t.Errorf("k=%v y=%v: polynomial %.15g, B^(3)(f) %.15g", k, y, got, want)
		}
	}
}

// NoiseStd equals √(Var Z·Σ_ν ∏_j b^(h)_{ν_j}(y_j)²) computed literally.
func TestNoiseStdMatchesLiteralSum(t *testing.T) {
	k, h := []int{4, 3}, 3
	p, _ := NewPolynomial(k, h, make([]float64, 20))
	for _, y := range [][]float64{{0, 0}, {0.3, 0.8}, {0.5, 0.5}, {1, 0.1}} {
		// Σ_ν (∏ b)² = Definition 9 with squared-basis "coefficients".
		bases := [][]float64{naiveIteratedAll(k[0], h, y[0]), naiveIteratedAll(k[1], h, y[1])}
		for j := range bases {
			for i, v := range bases[j] {
				bases[j][i] = v * v
			}
		}
		ones := make([]float64, 20)
		for i := range ones {
			ones[i] = 1
		}
		sumSq := naiveEvalWithBases(k, ones, bases)
		for _, c := range []struct {
			kind NoiseKind
			want float64
		}{
			{NoiseLaplace, math.Sqrt(2 * 0.7 * 0.7 * sumSq)},
			{NoiseLaplaceApprox, math.Sqrt(2 * 0.7 * 0.7 * sumSq)},
			{NoiseGaussian, math.Sqrt(0.7 * 0.7 * sumSq)},
		} {
			got, err := p.NoiseStd(y, c.kind, 0.7)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12*c.want {
				t.Errorf("y=%v %s: NoiseStd %.15g, want %.15g", y, c.kind, got, c.want)
			}
		}
	}
	if _, err := p.NoiseStd([]float64{0.5, 0.5}, "uniform", 1); err == nil {
		t.Error("NoiseStd with unknown kind: no error")
	}
	if _, err := p.NoiseStd([]float64{0.5, 0.5}, NoiseLaplace, -1); err == nil {
		t.Error("NoiseStd with negative scale: no error")
	}
}
