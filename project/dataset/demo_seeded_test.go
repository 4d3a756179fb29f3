package dataset

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// The statistical checks below compare sample moments with the generating
// distribution. Each tolerance is 5 standard errors of the statistic (normal
// approximation), a false-failure rate below 1e-6 per check; the seeds are
// fixed, so a failure means the generator changed, not bad luck.
const zTol = 5

func meanVar(v []float64) (mean, variance float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(v)-1)
}

func TestDemoKDE1D(t *testing.T) {
	d := DemoKDE1D(DemoKDE1DSeed)
	x, err := d.Column("x")
	if err != nil || d.Rows != 5000 {
		t.Fatalf("Rows = %d, err = %v", d.Rows, err)
	}
	// Mixture 0.4·N(0.5, 0.02) + 0.6·N(0.75, 0.005) (variances).
	w := []float64{0.4, 0.6}
	mu := []float64{0.5, 0.75}
	s2 := []float64{0.02, 0.005}
	var m, second float64
	for i := range w {
		m += w[i] * mu[i]
		second += w[i] * (s2[i] + mu[i]*mu[i])
	}
	v := second - m*m
	var mu4 float64 // fourth central moment
	for i := range w {
		dd := mu[i] - m
		mu4 += w[i] * (dd*dd*dd*dd + 6*dd*dd*s2[i] + 3*s2[i]*s2[i])
	}
	n := float64(len(x))
	gotM, gotV := meanVar(x)
	if tol := zTol * math.Sqrt(v/n); math.Abs(gotM-m) > tol {
		t.Errorf("mean = %v, want %v ± %v", gotM, m, tol)
	}
	if tol := zTol * math.Sqrt((mu4-v*v)/n); math.Abs(gotV-v) > tol {
		t.Errorf("variance = %v, want %v ± %v", gotV, v, tol)
	}
}

func TestDemoTwoClass2D(t *testing.T) {
	d := DemoTwoClass2D(DemoTwoClass2DSeed)
	if d.Rows != 3000 {
		t.Fatalf("Rows = %d", d.Rows)
	}
	x1, _ := d.Column("x1")
	x2, _ := d.Column("x2")
	lab, err := d.Column("label")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		label         float64
		m1, m2        float64
		v11, v22, v12 float64
	}{
		{1, 0.3, 0.5, 0.01, 0.01, 0},
		{0, 0.6, 0.4, 0.01, 0.015, 0.008},
	}
	for _, tc := range tests {
		var a, b []float64
		for i := range lab {
			if lab[i] == tc.label {
				a, b = append(a, x1[i]), append(b, x2[i])
			}
		}
		n := float64(len(a))
		if len(a) != 1500 {
			t.Fatalf("label %v: %d rows, want 1500", tc.label, len(a))
		}
		ma, va := meanVar(a)
		mb, vb := meanVar(b)
		var cov float64
		for i := range a {
			cov += (a[i] - ma) * (b[i] - mb)
		}
		cov /= n - 1
		checks := []struct {
			name      string
			got, want float64
			se        float64 // standard error of the statistic
		}{
			{"mean x1", ma, tc.m1, math.Sqrt(tc.v11 / n)},
			{"mean x2", mb, tc.m2, math.Sqrt(tc.v22 / n)},
			{"var x1", va, tc.v11, tc.v11 * math.Sqrt(2/n)},
			{"var x2", vb, tc.v22, tc.v22 * math.Sqrt(2/n)},
			{"cov", cov, tc.v12, math.Sqrt((tc.v11*tc.v22 + tc.v12*tc.v12) / n)},
		}
		for _, c := range checks {
			if math.Abs(c.got-c.want) > zTol*c.se {
				t.Errorf("label %v %s = %v, want %v ± %v", tc.label, c.name, c.got, c.want, zTol*c.se)
			}
		}
	}
}

func TestWriteDemoData(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	paths, err := WriteDemoData(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("paths = %q", paths)
	}
	var golden string
	for i, want := range []*Table{DemoKDE1D(DemoKDE1DSeed), DemoTwoClass2D(DemoTwoClass2DSeed)} {
		got, err := HashFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if got != want.Hash {
			t.Errorf("%s: hash %s, want %s", paths[i], got, want.Hash)
		}
		golden += fmt.Sprintf("%s %s\n", filepath.Base(paths[i]), got)
	}
	// The demo files are part of the documentation: pin their bytes.
	checkGolden(t, filepath.Join("testdata", "csv", "demo-hashes.golden"), []byte(golden))

	if _, err := WriteDemoData(dir, false); !errors.Is(err, fileio.ErrExists) {
		t.Errorf("second write without overwrite: err = %v, want ErrExists", err)
	}
	if _, err := WriteDemoData(dir, true); err != nil {
		t.Errorf("overwrite: %v", err)
	}
	if DemoKDE1D(1).Hash == DemoKDE1D(2).Hash {
		t.Error("different seeds give the same data")
	}
}
