package peers

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

func TestGPNoiseScale(t *testing.T) {
	for _, tc := range []struct {
		d, eps, delta float64
		want          float64
		err           string
	}{
		{1, 1, 1e-6, math.Sqrt(2 * math.Log(2e6)), ""},
		{0.5, 0.1, 0.01, 0.5 * math.Sqrt(2*math.Log(200)) / 0.1, ""},
		{0, 0.5, 0.5, 0, ""},
		{1, 1.0000001, 1e-6, 0, "must be ≤ 1 (Hall et al.'s proof needs ε ≤ 1)"},
		{1, 3, 1e-6, 0, "epsilon = 3"},
		{1, 0, 1e-6, 0, "epsilon = 0"},
		{1, math.NaN(), 1e-6, 0, "epsilon = NaN"},
		{1, 1, 0, 0, "delta = 0"},
		{1, 1, 1, 0, "delta = 1"},
		{-1, 1, 1e-6, 0, "Δ = -1"},
		{math.Inf(1), 1, 1e-6, 0, "Δ = +Inf"},
		{math.NaN(), 1, 1e-6, 0, "Δ = NaN"},
		{1e308, 1e-10, 0.5, 0, "infinite noise scale"},
		{1, 1e-300, 0.5, 0, "2^-50"}, // mechanism.ValidateEpsilon, the one ε rule
	} {
		got, err := GPNoiseScale(tc.d, tc.eps, tc.delta)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("GPNoiseScale(%v, %v, %v): error %v, want one containing %q", tc.d, tc.eps, tc.delta, err, tc.err)
			}
			continue
		}
		if err != nil || math.Abs(got-tc.want) > 1e-15*tc.want {
			t.Errorf("GPNoiseScale(%v, %v, %v) = %v, %v; want %v", tc.d, tc.eps, tc.delta, got, err, tc.want)
		}
	}
}

func TestNewGPFactorValidation(t *testing.T) {
	k1 := GPKernel{Amplitude: 1, Sigmas: []float64{0.1}}
	for _, tc := range []struct {
		name string
		axes [][]float64
		k    GPKernel
		want string
	}{
		{"no axes", nil, GPKernel{Amplitude: 1}, "no axes"},
		{"empty axis", [][]float64{{}}, k1, "axis 0 has 0 points"},
		{"not increasing", [][]float64{{0, 0.5, 0.5}}, k1, "strictly increasing"},
		{"NaN", [][]float64{{0, math.NaN()}}, k1, "must be finite"},
		{"too long", [][]float64{make([]float64, MaxGPAxisPoints+1)}, k1, "between 1 and"},
		{"amplitude", [][]float64{{0, 1}}, GPKernel{Amplitude: 0, Sigmas: []float64{1}}, "amplitude A = 0"},
		{"sigmas count", [][]float64{{0, 1}}, GPKernel{Amplitude: 1, Sigmas: []float64{1, 1}}, "2 widths"},
		{"sigma zero", [][]float64{{0, 1}}, GPKernel{Amplitude: 1, Sigmas: []float64{0}}, "σ_0 = 0"},
	} {
		if _, err := NewGPFactor(tc.axes, tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// unitAxis returns m equispaced points on [0, 1].
func unitAxis(m int) []float64 {
	a := make([]float64, m)
	for i := range a {
		if m > 1 {
			a[i] = float64(i) / float64(m-1)
		}
	}
	return a
}

// TestGPCholeskyReconstructs checks L_j L_jᵀ = K_j + (τ_j+ρ_j)I to a few
// ulps of the entries, down to numerically singular kernels (1001 points,
// σ = 0.05: condition number far beyond 1/u), where the rounding allowance
// ρ alone keeps the factorisation going (τ = 0).
func TestGPCholeskyReconstructs(t *testing.T) {
	for _, tc := range []struct {
		m     int
		sigma float64
	}{
		{1, 0.3}, {5, 0.1}, {21, 0.01}, {21, 0.05}, {201, 0.05}, {1001, 0.05}, {300, 1},
	} {
		t.Run(fmt.Sprintf("m=%d/sigma=%g", tc.m, tc.sigma), func(t *testing.T) {
			a := unitAxis(tc.m)
			f, err := NewGPFactor([][]float64{a}, GPKernel{Amplitude: 2, Sigmas: []float64{tc.sigma}})
			if err != nil {
				t.Fatal(err)
			}
			tau, rho := f.Jitter()
			if tau[0] > GPMaxJitter {
				t.Errorf("jitter τ = %g above the cap %g", tau[0], GPMaxJitter)
			}
			if want := gpAllowance(tc.m, tau[0]); rho[0] != want {
				t.Errorf("ρ = %g, want %g", rho[0], want)
			}
			l, m := f.chol[0], tc.m
			worst := 0.0
			for p := range m {
				for q := range m {
					var s float64
					for r := range min(p, q) + 1 {
						s += l[p*m+r] * l[q*m+r]
					}
					d := (a[p] - a[q]) / tc.sigma
					want := math.Exp(-d * d / 2)
					if p == q {
						want += tau[0] + rho[0]
					}
					worst = math.Max(worst, math.Abs(s-want))
				}
			}
			// Higham Thm 10.3: |E| ≤ γ_{m+1}|L||Lᵀ| ≤ γ_{m+1}(1+τ+ρ) entrywise.
			if tol := 4 * float64(m+1) * gpUnitRoundoff; worst > tol {
				t.Errorf("max |LLᵀ − (K+(τ+ρ)I)| = %g > %g", worst, tol)
			}
			t.Logf("τ = %g, ρ = %g, max reconstruction error %g", tau[0], rho[0], worst)
		})
	}
}

// TestGPJitterLadder feeds the ladder matrices whose rounding allowance
// alone is not enough: a tiny negative eigenvalue −5e-12 needs τ = 1e-11
// (the first rung above it); an eigenvalue −1 exceeds the cap.
func TestGPJitterLadder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k       []float64
		wantTau float64
		err     string
	}{
		{"positive definite", []float64{1, 0.5, 0.5, 1}, 0, ""},
		{"tiny negative eigenvalue", []float64{1, 0, 0, -5e-12}, 1e-11, ""},
		{"negative eigenvalue -5e-5", []float64{1, 0, 0, -5e-5}, 1e-4, ""},
		{"indefinite", []float64{1, 0, 0, -1}, 0, "not positive definite even with jitter τ = 0.0001"},
	} {
		l, tau, rho, err := choleskyLadder(tc.k, 2)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if math.Abs(tau-tc.wantTau) > 1e-3*tc.wantTau {
			t.Errorf("%s: τ = %g, want %g", tc.name, tau, tc.wantTau)
		}
		if d := l[3]*l[3] + l[2]*l[2] - (tc.k[3] + tau + rho); math.Abs(d) > 1e-15 {
			t.Errorf("%s: (LLᵀ)₂₂ off by %g", tc.name, d)
		}
	}
}

// TestGPKroneckerSampling checks, on a 2-D grid, that the axis-by-axis
// application equals the explicit product √A·(L_1⊗L_2)·z with the same z.
func TestGPKroneckerSampling(t *testing.T) {
	axes := [][]float64{{0, 0.3, 0.5, 1}, {0.1, 0.2, 0.6}}
	k := GPKernel{Amplitude: 1.7, Sigmas: []float64{0.4, 0.25}}
	f, err := NewGPFactor(axes, k)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, f.Size())
	if err := f.Sample(1.3, mechanism.NewSimulationNoise(5), got); err != nil {
		t.Fatal(err)
	}
	z := make([]float64, f.Size())
	src := mechanism.NewSimulationNoise(5)
	for i := range z {
		z[i] = src.Gaussian(1)
	}
	m1, m2 := len(axes[0]), len(axes[1])
	l1, l2 := f.chol[0], f.chol[1]
	for i1 := range m1 {
		for i2 := range m2 {
			var s float64
			for j1 := range m1 {
				for j2 := range m2 {
					s += l1[i1*m1+j1] * l2[i2*m2+j2] * z[j1*m2+j2]
				}
			}
			want := 1.3 * math.Sqrt(1.7) * s
			if d := math.Abs(got[i1*m2+i2] - want); d > 1e-12 {
				t.Errorf("grid point (%d,%d): axis-wise %v, explicit Kronecker %v (diff %g)", i1, i2, got[i1*m2+i2], want, d)
			}
		}
	}
}

// TestGPSampleCovariance checks the sample covariance of draws at three
// grid points of a 2-D grid against scale²·K(x_p, x_q) (plus the tiny
// jitter). For N draws of a bivariate normal the sample covariance has
// standard error √((σ_p²σ_q² + σ_pq²)/N); the tolerance is 5 standard
// errors plus the jitter term, a false-failure rate below 6e-7 per entry
// (3e-6 for the six entries) for any seed; the seed is fixed.
func TestGPSampleCovariance(t *testing.T) {
	axes := [][]float64{unitAxis(11), unitAxis(7)}
	k := GPKernel{Amplitude: 3, Sigmas: []float64{0.2, 0.5}}
	f, err := NewGPFactor(axes, k)
	if err != nil {
		t.Fatal(err)
	}
	const scale, draws = 0.7, 20000
	idx := []int{0, 3*7 + 2, 4*7 + 2} // (0,0), (0.3,1/3), (0.4,1/3)
	point := func(i int) []float64 { return []float64{axes[0][i/7], axes[1][i%7]} }
	sum := make([][]float64, len(idx))
	for p := range sum {
		sum[p] = make([]float64, len(idx))
	}
	src := mechanism.NewSimulationNoise(11)
	out := make([]float64, f.Size())
	for range draws {
		if err := f.Sample(scale, src, out); err != nil {
			t.Fatal(err)
		}
		for p, ip := range idx {
			for q, iq := range idx {
				sum[p][q] += out[ip] * out[iq]
			}
		}
	}
	for p, ip := range idx {
		for q, iq := range idx[:p+1] {
			want := scale * scale * k.At(point(ip), point(iq))
			vp, vq := scale*scale*k.Amplitude, scale*scale*k.Amplitude
			se := math.Sqrt((vp*vq + want*want) / draws)
			got := sum[p][q] / draws // mean is known to be 0
			if d := math.Abs(got - want); d > 5*se+1e-8 {
				t.Errorf("cov(%v, %v) = %.5f, want %.5f ± %.5f", point(ip), point(iq), got, want, 5*se)
			}
		}
	}
}

func TestGPSampleErrors(t *testing.T) {
	f, err := NewGPFactor([][]float64{{0, 1}}, GPKernel{Amplitude: 1, Sigmas: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	src := mechanism.NewSimulationNoise(1)
	for _, tc := range []struct {
		scale float64
		src   GaussianSource
		n     int
		want  string
	}{
		{1, nil, 2, "nil Gaussian source"},
		{1, src, 3, "output has 3 values"},
		{-1, src, 2, "scale = -1"},
		{math.Inf(1), src, 2, "scale = +Inf"},
	} {
		if err := f.Sample(tc.scale, tc.src, make([]float64, tc.n)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sample: error %v, want one containing %q", err, tc.want)
		}
	}
	if _, err := f.Release([]float64{0, math.NaN()}, 1, src); err == nil || !strings.Contains(err.Error(), "value 1 = NaN") {
		t.Errorf("Release with NaN: error %v", err)
	}
	if _, err := GPRelease([][]float64{{0, 1}}, []float64{0, 0}, GPKernel{Amplitude: 1, Sigmas: []float64{1}}, 1, 2, 1e-6, src); err == nil ||
		!strings.Contains(err.Error(), "ε ≤ 1") {
		t.Errorf("GPRelease with ε = 2: error %v, want the ε ≤ 1 rule", err)
	}
}

// TestGPGridEval checks that interpolation is exact at grid points, linear
// between neighbours along each axis, bilinear in cells, and clamped.
func TestGPGridEval(t *testing.T) {
	axes := [][]float64{{0, 0.25, 1}, {-1, 0, 2, 3}}
	vals := make([]float64, 12)
	for i := range vals {
		vals[i] = float64(i*i%7) - 2.5
	}
	g, err := NewGPGrid(axes, vals)
	if err != nil {
		t.Fatal(err)
	}
	at := func(i, j int) float64 { return vals[i*4+j] }
	for i, x := range axes[0] {
		for j, y := range axes[1] {
			if got := g.Eval([]float64{x, y}); got != at(i, j) {
				t.Errorf("Eval at grid point (%g,%g) = %v, want exactly %v", x, y, got, at(i, j))
			}
		}
	}
	for _, tc := range []struct {
		y    []float64
		want float64
	}{
		{[]float64{0.1, 0}, at(0, 1) + 0.4*(at(1, 1)-at(0, 1))},                  // linear along axis 0
		{[]float64{0.25, 0.5}, at(1, 1) + 0.25*(at(1, 2)-at(1, 1))},              // linear along axis 1
		{[]float64{-5, 0.5}, at(0, 1) + 0.25*(at(0, 2)-at(0, 1))},                // clamped below
		{[]float64{7, 10}, at(2, 3)},                                             // clamped above in both
		{[]float64{0.625, 2.5}, (at(1, 2) + at(1, 3) + at(2, 2) + at(2, 3)) / 4}, // cell centre
	} {
		if got := g.Eval(tc.y); math.Abs(got-tc.want) > 1e-14 {
			t.Errorf("Eval(%v) = %v, want %v", tc.y, got, tc.want)
		}
	}
	// Single-point axis: constant along it.
	g1, err := NewGPGrid([][]float64{{0.5}, {0, 1}}, []float64{2, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := g1.Eval([]float64{0.9, 0.25}); got != 2.5 {
		t.Errorf("single-point axis: Eval = %v, want 2.5", got)
	}
	if _, err := NewGPGrid(axes, vals[:5]); err == nil {
		t.Error("NewGPGrid accepted 5 values for 12 points")
	}
}

// ExampleGPRelease releases a 1-D function on a 5-point grid with seeded
// simulation noise (a preview, not a release) and evaluates it between grid
// points.
func ExampleGPRelease() {
	axes := [][]float64{{0, 0.25, 0.5, 0.75, 1}}
	values := []float64{1, 2, 3, 2, 1}
	kernel := GPKernel{Amplitude: 1, Sigmas: []float64{0.3}}
	g, err := GPRelease(axes, values, kernel, 1e-4, 1, 1e-6, mechanism.NewSimulationNoise(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f %.2f\n", g.Eval([]float64{0.5}), g.Eval([]float64{0.625}))
	_, err = GPRelease(axes, values, kernel, 1e-4, 2, 1e-6, mechanism.NewSimulationNoise(1))
	fmt.Println(err)
	// Output:
	// 3.00 2.50
	// peers.GPNoiseScale: epsilon = 2: must be ≤ 1 (Hall et al.'s proof needs ε ≤ 1)
}

// TestGPNoiseStdAt checks the interpolant's noise std against the closed
// form: at a grid point Scale·√(A·∏(1+τ_j+ρ_j)); halfway between two points
// of a 1-D grid Scale·√(A·((1+τ+ρ)/2 + K(a_0, a_1)/2)).
func TestGPNoiseStdAt(t *testing.T) {
	axes := [][]float64{{0, 0.5, 1}, {0, 1}}
	g, err := NewGPGrid(axes, make([]float64, 6))
	if err != nil {
		t.Fatal(err)
	}
	n := GPNoise{Kernel: GPKernel{Amplitude: 2, Sigmas: []float64{0.3, 0.7}}, Jitter: []float64{1e-9, 0}, Scale: 1.5}
	d0 := 1e-9 + gpAllowance(3, 1e-9)
	d1 := gpAllowance(2, 0)
	want := 1.5 * math.Sqrt(2*(1+d0)*(1+d1))
	if got := n.StdAt(g, []float64{0.5, 1}); math.Abs(got-want) > 1e-12*want {
		t.Fatalf("grid point: std %v, want %v", got, want)
	}
	g1, _ := NewGPGrid([][]float64{{0, 1}}, []float64{0, 0})
	n1 := GPNoise{Kernel: GPKernel{Amplitude: 1, Sigmas: []float64{0.5}}, Jitter: []float64{0}, Scale: 1}
	k := math.Exp(-1 / (2 * 0.25))
	want = math.Sqrt(0.25*2*(1+d1) + 2*0.25*k)
	if got := n1.StdAt(g1, []float64{0.5}); math.Abs(got-want) > 1e-12 {
		t.Fatalf("midpoint: std %v, want %v", got, want)
	}
}
