package mechanism

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func grid(n int) []float64 {
	ys := make([]float64, n)
	for i := range ys {
		ys[i] = float64(i) / float64(n-1)
	}
	return ys
}

func TestIteratedBasisMatchesDefinition8(t *testing.T) {
	for _, k := range []int{1, 2, 3, 5, 8, 12} {
		for _, h := range []int{1, 2, 3, 4, 6} {
			b := NewIteratedBasis(k, h)
			got := make([]float64, k+1)
			for _, y := range []float64{0, 0.05, 0.3, 0.5, 0.77, 1} {
				b.At(y, got)
				want := naiveIteratedAll(k, h, y)
				for nu := range got {
					// |b^(h)| ≤ 2^h−1; both computations round at most a few
					// hundred times on values of that size.
					if math.Abs(got[nu]-want[nu]) > 1e-12*math.Exp2(float64(h)) {
						t.Errorf("k=%d h=%d y=%g ν=%d: At %.17g, Definition 8 %.17g", k, h, y, nu, got[nu], want[nu])
					}
				}
			}
		}
	}
}

func TestIteratedBasisSumsAndEq12(t *testing.T) {
	ys := append(grid(201), 1e-9, 1-1e-9, 1.0/3)
	for h := 1; h <= MaxH; h++ {
		bound := math.Exp2(float64(h)) - 1
		for _, k := range []int{1, 2, 3, 5, 10, 20, 50} {
			b := NewIteratedBasis(k, h)
			w := make([]float64, k+1)
			for _, y := range ys {
				b.At(y, w)
				var sum, abs float64
				for _, v := range w {
					sum += v
					abs += math.Abs(v)
				}
				if math.Abs(sum-1) > 1e-11*bound {
					t.Errorf("h=%d k=%d y=%g: Σ b^(h) = %.17g, want 1", h, k, y, sum)
				}
				if abs > bound*(1+1e-12) {
					t.Errorf("h=%d k=%d y=%g: Σ |b^(h)| = %.17g > 2^h−1 = %g (Eq. 12)", h, k, y, abs, bound)
				}
			}
		}
	}
}

func TestTransformGolden(t *testing.T) {
	var buf bytes.Buffer
	// Odd k: the entries have denominators 3ⁿ, 5ⁿ (no decimal rounding ties);
	// k = 2 gives short exact dyadic values.
	for _, kh := range [][2]int{{1, 1}, {2, 2}, {3, 3}, {5, 2}} {
		k, h := kh[0], kh[1]
		fmt.Fprintf(&buf, "k=%d h=%d\n", k, h)
		T := NewIteratedBasis(k, h).Transform()
		for mu := 0; mu <= k; mu++ {
			for nu := 0; nu <= k; nu++ {
				if nu > 0 {
					buf.WriteByte(' ')
				}
				fmt.Fprintf(&buf, "%.12f", T[mu*(k+1)+nu]+0) // +0 folds −0
			}
			buf.WriteByte('\n')
		}
	}
	golden(t, "transform.golden", buf.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file:\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

func TestIteratedBasisCachedAndConcurrent(t *testing.T) {
	const k, h = 37, 4
	var wg sync.WaitGroup
	got := make([]*IteratedBasis, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = NewIteratedBasis(k, h)
		}()
	}
	wg.Wait()
	for i, b := range got {
		if b != got[0] {
			t.Fatalf("call %d returned a different *IteratedBasis", i)
		}
	}
	if b := got[0]; b.K() != k || b.H() != h || len(b.Transform()) != (k+1)*(k+1) {
		t.Errorf("K, H, len(T) = %d, %d, %d; want %d, %d, %d", b.K(), b.H(), len(b.Transform()), k, h, (k+1)*(k+1))
	}
}

func TestNewIteratedBasisPanicsOnMisuse(t *testing.T) {
	for _, kh := range [][2]int{{0, 1}, {MaxK + 1, 1}, {3, 0}, {3, MaxH + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewIteratedBasis(%d, %d) did not panic", kh[0], kh[1])
				}
			}()
			NewIteratedBasis(kh[0], kh[1])
		}()
	}
}

// fromFunc builds the (noise-free) polynomial B^(h)_k(f) from lattice values.
func fromFunc(t testing.TB, k []int, h int, f func(y []float64) float64) *Polynomial {
	t.Helper()
	l, err := NewLattice(k)
	if err != nil {
		t.Fatal(err)
	}
	c := make([]float64, l.Size())
	y := make([]float64, l.Dim())
	for i := range c {
		l.Point(i, y)
		c[i] = f(y)
	}
	p, err := NewPolynomial(k, h, c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// supError returns max |P(y) − f(y)| over a 1-D grid of n points plus ½.
func supError(t testing.TB, p *Polynomial, f func(float64) float64, n int) float64 {
	t.Helper()
	var worst float64
	for _, y := range append(grid(n), 0.5) {
		v, err := p.Eval([]float64{y})
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Max(worst, math.Abs(v-f(y)))
	}
	return worst
}

// Appendix A: linear functions are fixed points of B_k, hence of every
// B^(h)_k; (multi)linear functions are fixed by the tensor product.
func TestLinearFunctionsAreFixedPoints(t *testing.T) {
	cases := []struct {
		k []int
		f func(y []float64) float64
	}{
		{[]int{1}, func(y []float64) float64 { return 2.5*y[0] - 0.75 }},
		{[]int{7}, func(y []float64) float64 { return -3*y[0] + 1 }},
		{[]int{4, 9}, func(y []float64) float64 { return 1 + 2*y[0] - y[1] + 0.5*y[0]*y[1] }},
		{[]int{3, 2, 5}, func(y []float64) float64 { return 0.1 - y[0] + 4*y[1]*y[2] + y[0]*y[1]*y[2] }},
	}
	ys := [][]float64{{0}, {0.2}, {0.5}, {0.91}, {1}}
	for _, c := range cases {
		for h := 1; h <= MaxH; h++ {
			p := fromFunc(t, c.k, h, c.f)
			for _, y1 := range ys {
				y := make([]float64, len(c.k))
				for j := range y {
					y[j] = math.Mod(y1[0]+0.37*float64(j), 1)
				}
				got, err := p.Eval(y)
				if err != nil {
					t.Fatal(err)
				}
				if want := c.f(y); math.Abs(got-want) > 1e-11*math.Exp2(float64(h)) {
					t.Errorf("k=%v h=%d y=%v: B^(h)(f) = %.15g, f = %.15g", c.k, h, y, got, want)
				}
			}
		}
	}
}

// Theorem 5 (Micchelli): for smooth f the error of B^(h)_k is O(k^−h). The
// least-squares slope of log sup-error against log k over k = 10..40 must be
// within 0.5 of −h.
func TestConvergenceOrder(t *testing.T) {
	f := func(y float64) float64 { return math.Sin(3*y) + y*y }
	ks := []int{10, 14, 20, 28, 40}
	for h := 1; h <= 3; h++ {
		var sx, sy, sxx, sxy float64
		for _, k := range ks {
			p := fromFunc(t, []int{k}, h, func(y []float64) float64 { return f(y[0]) })
			e := supError(t, p, f, 2001)
			x, l := math.Log(float64(k)), math.Log(e)
			sx, sy, sxx, sxy = sx+x, sy+l, sxx+x*x, sxy+x*l
		}
		n := float64(len(ks))
		slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
		if math.Abs(slope+float64(h)) > 0.5 {
			t.Errorf("h=%d: fitted convergence slope %.3f, want −%d ± 0.5", h, slope, h)
		} else {
			t.Logf("h=%d: fitted convergence slope %.3f", h, slope)
		}
	}
}

// Theorem 6 (Mathé): for (γ,L)-Hölder f, |f − B_k f| ≤ L(4k)^{−γ/2}. The
// function |y−½|^γ is (γ,1)-Hölder; its error is largest at y = ½.
func TestHolderRate(t *testing.T) {
	for _, gamma := range []float64{0.25, 0.5, 0.75, 1} {
		f := func(y float64) float64 { return math.Pow(math.Abs(y-0.5), gamma) }
		for _, k := range []int{1, 2, 5, 10, 50, 200} {
			p := fromFunc(t, []int{k}, 1, func(y []float64) float64 { return f(y[0]) })
			e := supError(t, p, f, 1001)
			bound := math.Pow(4*float64(k), -gamma/2)
			if e > bound*(1+1e-12) {
				t.Errorf("γ=%g k=%d: sup error %.6g > (4k)^(−γ/2) = %.6g", gamma, k, e, bound)
			}
		}
	}
}
