package peers

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGPReleaseAxes: the release grid of cover sizes k is the lattice ν/k_j
// (last point exactly 1), and an invalid k is refused.
func TestGPReleaseAxes(t *testing.T) {
	axes, err := GPReleaseAxes([]int{4, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0, 0.25, 0.5, 0.75, 1}, {0, 1}}
	for j := range want {
		if len(axes[j]) != len(want[j]) {
			t.Fatalf("axis %d = %v, want %v", j, axes[j], want[j])
		}
		for i, v := range want[j] {
			if axes[j][i] != v {
				t.Fatalf("axis %d = %v, want %v", j, axes[j], want[j])
			}
		}
	}
	for _, k := range [][]int{nil, {0}, {3, -1}} {
		if _, err := GPReleaseAxes(k); err == nil {
			t.Errorf("k = %v accepted", k)
		}
	}
}

// TestGPInterpolationMatchesEval: Apply gives GPGrid.Eval bit for bit at
// random points (inside, outside the box: clamped, and on grid points) of
// grids of one to three axes, one axis of a single point included.
func TestGPInterpolationMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, axes := range [][][]float64{
		{{0, 0.2, 0.5, 1}},
		{{0, 0.5, 1}, {0, 0.25, 0.5, 0.75, 1}},
		{{0, 1}, {0.5}, {0, 0.3, 1}},
	} {
		size := 1
		for _, a := range axes {
			size *= len(a)
		}
		dim := len(axes)
		const n = 200
		pts := make([]float64, n*dim)
		for i := range pts {
			pts[i] = 1.4*rng.Float64() - 0.2
			if i%7 == 0 {
				a := axes[i%dim]
				pts[i] = a[rng.IntN(len(a))]
			}
		}
		m, err := NewGPInterpolation(axes, pts)
		if err != nil {
			t.Fatal(err)
		}
		values := make([]float64, size)
		out := make([]float64, n)
		for range 3 {
			for i := range values {
				values[i] = rng.NormFloat64()
			}
			m.Apply(values, out)
			g := &GPGrid{Axes: axes, Values: values}
			for q := range n {
				if want := g.Eval(pts[q*dim : (q+1)*dim]); math.Float64bits(out[q]) != math.Float64bits(want) {
					t.Fatalf("axes %v, point %v: Apply %v, Eval %v", axes, pts[q*dim:(q+1)*dim], out[q], want)
				}
			}
		}
	}
	if _, err := NewGPInterpolation([][]float64{{0, 1}}, []float64{math.NaN()}); err == nil {
		t.Error("a NaN point accepted")
	}
	if _, err := NewGPInterpolation([][]float64{{0, 1}, {0, 1}}, []float64{0.5}); err == nil {
		t.Error("a partial point accepted")
	}
}
