package learners

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	rand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

var updateKernelGolden = flag.Bool("update-kernel-golden", false, "rewrite learners/testdata golden files of the kernel learners")

// TestKDEHandComputed checks F_D against values computed by hand (Python,
// math.exp) for tiny datasets; tolerance 1e-14 relative (a few roundings).
func TestKDEHandComputed(t *testing.T) {
	cases := []struct {
		name string
		data Dataset
		bw   []float64
		y    []float64
		want float64
	}{
		// (1/2)(φ(0.2) + φ(−0.2)), φ = N(0, 0.1²) density.
		{"1d", Dataset{Dim: 1, X: []float64{0.2, 0.6}}, []float64{0.1}, []float64{0.4}, 0.5399096651318809},
		// (1/2) Σ_i φ_{0.1}(0.5 − d_i1)·φ_{0.2}(0.5 − d_i2), d = (0.2,0.3), (0.6,0.9).
		{"2d", Dataset{Dim: 2, X: []float64{0.2, 0.3, 0.6, 0.9}}, []float64{0.1, 0.2}, []float64{0.5, 0.5}, 0.3534152713970145},
	}
	for _, c := range cases {
		f, err := NewKDE().Fit(context.Background(), c.data, Values{"bandwidth": c.bw})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := f.Oracle.Eval(c.y); math.Abs(got-c.want) > 1e-14*c.want {
			t.Errorf("%s: F(%v) = %.17g, want %.17g", c.name, c.y, got, c.want)
		}
	}
	// Sensitivity and range for n = 2, b = 0.1: K = 1/(0.1√(2π)).
	f, _ := NewKDE().Fit(context.Background(), cases[0].data, Values{"bandwidth": {0.1}})
	k := 1 / (0.1 * math.Sqrt(2*math.Pi))
	if want := k * (1 - math.Exp(-50)) / 2; math.Abs(f.Sensitivity-want) > 1e-15*want {
		t.Errorf("S = %.17g, want %.17g", f.Sensitivity, want)
	}
	if f.OutputRange != [2]float64{0, f.OutputRange[1]} || math.Abs(f.OutputRange[1]-k) > 1e-15*k || f.N != 2 {
		t.Errorf("range %v, N %d; want [0, %g], 2", f.OutputRange, f.N, k)
	}
}

// TestKDESensitivityWideBandwidth checks the factor (1 − e^{−Σ 1/(2b²)})
// where it matters: b = 1 on two axes gives 1 − e^{−1}.
func TestKDESensitivityWideBandwidth(t *testing.T) {
	f, err := NewKDE().Fit(context.Background(), Dataset{Dim: 2, X: []float64{0, 0, 1, 1, 0.5, 0.5}}, Values{"bandwidth": {1}})
	if err != nil {
		t.Fatal(err)
	}
	want := (1 - math.Exp(-1)) / (2 * math.Pi) / 3
	if math.Abs(f.Sensitivity-want) > 1e-15*want {
		t.Errorf("S = %.17g, want %.17g", f.Sensitivity, want)
	}
	// Attained: move record 0 from y = (0,0) to (1,1).
	g, _ := NewKDE().Fit(context.Background(), Dataset{Dim: 2, X: []float64{1, 1, 1, 1, 0.5, 0.5}}, Values{"bandwidth": {1}})
	y := []float64{0, 0}
	if d := f.Oracle.Eval(y) - g.Oracle.Eval(y); math.Abs(d-want) > 1e-14*want {
		t.Errorf("attaining pair differs by %.17g, want S = %.17g", d, want)
	}
}

// TestKernelLearnersValidation checks that bad parameters and data are
// errors naming the parameter or record, the value and the rule.
func TestKernelLearnersValidation(t *testing.T) {
	ctx := context.Background()
	x1 := Dataset{Dim: 1, X: []float64{0.1, 0.2, 0.3}, Labels: []float64{1, -1, 1}}
	x2 := Dataset{Dim: 2, X: []float64{0.1, 0.2, 0.3, 0.4}, Labels: []float64{1, -1}}
	cases := []struct {
		l      Learner
		data   Dataset
		values Values
		want   []string // substrings of the error
	}{
		{NewKDE(), x1, Values{"bandwidth": {0}}, []string{"bandwidth", "= 0", "between 1e-06 and 1"}},
		{NewKDE(), x1, Values{"bandwidth": {1.5}}, []string{"bandwidth", "1.5", "between 1e-06 and 1"}},
		{NewKDE(), x1, Values{"bandwidth": {math.NaN()}}, []string{"bandwidth", "finite"}},
		{NewKDE(), x2, Values{"bandwidth": {0.1, 0.2, 0.3}}, []string{"bandwidth", "one per feature (2)"}},
		{NewKDE(), x1, Values{"bandwith": {0.1}}, []string{"bandwith", "unknown parameter", "bandwidth"}},
		{NewKDE(), Dataset{Dim: 5, X: make([]float64, 10)}, nil, []string{"features", "5", "between 1 and 4"}},
		{NewKDE(), Dataset{Dim: 1}, nil, []string{"0 records", "at least 1"}},
		{NewKDE(), Dataset{Dim: 2, X: []float64{0.1, 0.2, 0.3}}, nil, []string{"3 feature values", "2 columns"}},
		{NewKDE(), Dataset{Dim: 2, X: []float64{0.1, 0.2, 0.3, 1.2}}, nil, []string{"record 1, feature 1", "1.2", "[0, 1]"}},
		{NewKDE(), Dataset{Dim: 1, X: []float64{math.NaN()}}, nil, []string{"record 0", "NaN", "[0, 1]"}},
		{NewPriestleyChao(), x1, Values{"spacing": {-1}}, []string{"spacing", "-1", "> 0"}},
		{NewPriestleyChao(), x1, Values{"bandwidth": {0.1, 0.2}}, []string{"bandwidth", "single value"}},
		{NewPriestleyChao(), x2, nil, []string{"features", "2", "between 1 and 1"}},
		{NewPriestleyChao(), Dataset{Dim: 1, X: []float64{0.5}, Labels: []float64{0}}, nil, []string{"1 records", "at least 2"}},
		{NewPriestleyChao(), Dataset{Dim: 1, X: []float64{0.1, 0.2}}, nil, []string{"0 labels for 2 records"}},
		{NewPriestleyChao(), Dataset{Dim: 1, X: []float64{0.1, 0.2}, Labels: []float64{0.5, -1.5}}, nil, []string{"record 1", "-1.5", "[−1, 1]"}},
		{NewNaiveBayes(), Dataset{Dim: 1, X: []float64{0.1, 0.2}, Labels: []float64{1, 0}}, nil, []string{"record 1", "label 0", "−1 or +1"}},
		{NewNaiveBayes(), x2, Values{"bandwidth": {0.1, -0.2}}, []string{"bandwidth", "-0.2", "between 1e-06 and 1"}},
	}
	for _, c := range cases {
		_, err := c.l.Fit(ctx, c.data, c.values)
		if err == nil {
			t.Errorf("%s %v %v: no error, want one containing %q", c.l.Spec().Kind, c.data, c.values, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.l.Spec().Kind, err, w)
			}
		}
	}
	// A cancelled context is reported as such.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for _, l := range []Learner{NewKDE(), NewPriestleyChao(), NewNaiveBayes()} {
		if _, err := l.Fit(cctx, x1, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Fit with cancelled context: %v", l.Spec().Kind, err)
		}
	}
}

// randomDataset returns n seeded uniform points with labels of kind lk.
func randomDataset(r *rand.Rand, n, dim int, lk LabelKind) Dataset {
	d := Dataset{Dim: dim, X: make([]float64, n*dim)}
	for i := range d.X {
		d.X[i] = r.Float64()
	}
	switch lk {
	case LabelBinary:
		d.Labels = make([]float64, n)
		for i := range d.Labels {
			d.Labels[i] = float64(2*r.IntN(2) - 1)
		}
	case LabelReal:
		d.Labels = make([]float64, n)
		for i := range d.Labels {
			d.Labels[i] = 2*r.Float64() - 1
		}
	}
	return d
}

// gridPoints enumerates axes[0] × … in row-major order (last axis fastest).
func gridPoints(axes [][]float64) [][]float64 {
	var pts [][]float64
	idx := make([]int, len(axes))
	for {
		y := make([]float64, len(axes))
		for j, k := range idx {
			y[j] = axes[j][k]
		}
		pts = append(pts, y)
		j := len(axes) - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(axes[j]) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return pts
		}
	}
}

// TestGridEqualsEval checks EvalGrid against Eval at every grid point for
// KDE and naive Bayes, ℓ = 1..4, on uniform lattices (the product and
// recurrence paths, by bandwidth)
// and irregular axes (direct path), with n above the chunk size so that
// several workers run. Tolerance: 1e-12 of the output range bound K (the
// recurrence errs by about (k²/2 + 2k)·2⁻⁵³ ≈ 5e-14 relative for k = 20,
// ≈ 4e-13 for k = 60; the summation orders differ by n·2⁻⁵³ ≈ 3e-13).
func TestGridEqualsEval(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for _, l := range []Learner{NewKDE(), NewNaiveBayes()} {
		for dim := 1; dim <= 4; dim++ {
			n := 1500
			if dim >= 3 {
				n = 1100
			}
			data := randomDataset(r, n, dim, l.Spec().Label)
			bw := make([]float64, dim)
			for j := range bw {
				bw[j] = 0.03 + 0.2*r.Float64()
			}
			f, err := l.Fit(ctx, data, Values{"bandwidth": bw})
			if err != nil {
				t.Fatal(err)
			}
			g := f.Oracle.(mechanism.GridOracle)
			for _, kind := range []string{"lattice", "irregular", "long"} {
				axes := make([][]float64, dim)
				for j := range axes {
					switch kind {
					case "lattice":
						axes[j] = latticeAxes(1, 20-4*j)[0]
					case "long":
						if dim > 2 {
							axes[j] = latticeAxes(1, 7)[0]
						} else {
							axes[j] = latticeAxes(1, 60)[0]
						}
					default:
						for range 2 + r.IntN(6) {
							axes[j] = append(axes[j], r.Float64())
						}
					}
				}
				pts := gridPoints(axes)
				out := make([]float64, len(pts))
				if err := g.EvalGrid(ctx, axes, out); err != nil {
					t.Fatal(err)
				}
				tol := 1e-12 * f.OutputRange[1]
				for range 400 { // a seeded sample of grid points
					i := r.IntN(len(pts))
					y := pts[i]
					if want := f.Oracle.Eval(y); math.Abs(out[i]-want) > tol {
						t.Fatalf("%s ℓ=%d %s: EvalGrid at %v = %.17g, Eval = %.17g", l.Spec().Kind, dim, kind, y, out[i], want)
					}
				}
			}
			// Misuse and cancellation.
			if err := g.EvalGrid(ctx, make([][]float64, dim+1), nil); err == nil {
				t.Errorf("%s: EvalGrid with %d axes: no error", l.Spec().Kind, dim+1)
			}
			axes := latticeAxes(dim, 3)
			if err := g.EvalGrid(ctx, axes, make([]float64, 5)); err == nil {
				t.Errorf("%s: EvalGrid with wrong output length: no error", l.Spec().Kind)
			}
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			if err := g.EvalGrid(cctx, axes, make([]float64, len(gridPoints(axes)))); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: EvalGrid with cancelled context: %v", l.Spec().Kind, err)
			}
		}
	}
}

// TestKernelRowUniformTiny checks that the recurrence writes exact zeros far
// from the data point rather than garbage, for a tiny bandwidth. Tolerance:
// exp(−z) has condition number z, so both the reference and the recurrence
// err by about z·2⁻⁵³ relative; 1e-13·(1 + z) covers that with room.
func TestKernelRowUniformTiny(t *testing.T) {
	row := make([]float64, 101)
	b := 0.002
	kernelRowUniform(row, 0, 0.01, 0.5, 1/(2*b*b))
	for k, v := range row {
		u := float64(k)*0.01 - 0.5
		z := u * u / (2 * b * b)
		want := math.Exp(-z)
		if want < kernelTiny && v != 0 || want >= kernelTiny && math.Abs(v-want) > 1e-13*(1+z)*want {
			t.Errorf("row[%d] = %g, want %g", k, v, want)
		}
	}
}

// TestKDEGolden compares a seeded KDE lattice with testdata/kde_lattice.golden
// (relative tolerance 1e-12; regenerate with -update-kernel-golden).
func TestKDEGolden(t *testing.T) {
	data := kdeBenchData(500, 2)
	f, err := NewKDE().Fit(context.Background(), data, Values{"bandwidth": {0.05, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	axes := latticeAxes(2, 5)
	out := make([]float64, 36)
	if err := f.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), axes, out); err != nil {
		t.Fatal(err)
	}
	compareGolden(t, "kde_lattice.golden", out)
}

// compareGolden compares values with the golden file (one %.17g value per
// line) within a relative 1e-12, or rewrites it with -update-kernel-golden.
func compareGolden(t *testing.T, name string, values []float64) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateKernelGolden {
		var b strings.Builder
		for _, v := range values {
			fmt.Fprintf(&b, "%.17g\n", v)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(raw))
	if len(lines) != len(values) {
		t.Fatalf("%s has %d values, want %d", path, len(lines), len(values))
	}
	for i, s := range lines {
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(values[i]-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s value %d = %.17g, golden %.17g", name, i, values[i], want)
		}
	}
}

// TestKernelRowsProduct checks the two-exponential rows of a uniform axis
// (kernelRowsProduct) against math.Exp at every value, for bandwidths inside
// its range (newKernelAxis: (h²/4 + 2h + 1)·c ≤ kernelProductMax on the
// lattice, h = 1/k) and that it is not chosen outside it. Tolerance: twice
// the documented bound (2k + 3 + 5·(z_P + k·z_F + z_g))·2⁻⁵³ plus 3z·2⁻⁵³,
// the reference's own error (exp of a rounded exponent). Rows are written
// at a padded stride, and the padding is left alone.
func TestKernelRowsProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const u = 0x1p-53
	for _, b := range []float64{0.031, 0.05, 0.1, 0.5, 1, 0.02, 0.01} {
		c := 1 / (2 * b * b)
		for _, k := range []int{2, 20, 60} {
			ax := latticeAxes(1, k)[0]
			h := 1 / float64(k)
			ka := newKernelAxis(ax, c)
			if want := (h*h/4+2*h+1)*c <= kernelProductMax; (ka.gsym != nil) != want {
				t.Fatalf("b=%g k=%d: product path %v, want %v", b, k, ka.gsym != nil, want)
			}
			if ka.gsym == nil {
				continue
			}
			x := []float64{0, 1, 0.5, ax[1], math.Nextafter(ax[k-1], 1), (ax[1] + ax[2]) / 2}
			for range 40 {
				x = append(x, r.Float64())
			}
			stride := k + 1 + 3
			w := make([]float64, len(x)*stride)
			for i := range w {
				w[i] = -1
			}
			kernelMatrix(w, stride, x, 1, 0, 0, len(x), ka)
			for i, d := range x {
				k0 := int(math.Round(d * float64(k)))
				u0 := float64(k0)*h - d
				zP := math.Abs(u0*u0-2*u0*float64(k0)*h) * c
				zF := 2 * math.Abs(u0) * h * c
				for kk, a := range ax {
					z := (a - d) * (a - d) * c
					want := math.Exp(-z)
					dk := float64(kk - k0)
					zg := dk * dk * h * h * c
					bound := 2*(2*float64(kk)+3+5*(zP+float64(kk)*zF+zg))*u + 3*z*u
					if got := w[i*stride+kk]; math.Abs(got-want) > bound*want {
						t.Fatalf("b=%g k=%d d=%g: row[%d] = %.17g, exp %.17g (relative error %.3g, bound %.3g)", b, k, d, kk, got, want, math.Abs(got-want)/want, bound)
					}
				}
				for q := k + 1; q < stride; q++ {
					if w[i*stride+q] != -1 {
						t.Fatalf("b=%g k=%d: padding w[%d][%d] written", b, k, i, q)
					}
				}
			}
		}
	}
}
