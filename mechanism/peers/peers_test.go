package peers

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestHistogramCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float64
		bins int
		want []float64
		err  string
	}{
		{"edges", []float64{0, 0.2499, 0.25, 0.5, 0.99, 1}, 4, []float64{2, 1, 1, 2}, ""},
		{"one bin", []float64{0, 1, 0.3}, 1, []float64{3}, ""},
		{"empty data", nil, 3, []float64{0, 0, 0}, ""},
		{"zero bins", []float64{0.5}, 0, nil, "bins = 0"},
		{"outside", []float64{0.5, 1.01}, 2, nil, "x[1] = 1.01"},
		{"NaN", []float64{math.NaN()}, 2, nil, "x[0] = NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HistogramCounts(tc.x, tc.bins)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestHistogramDensity(t *testing.T) {
	for _, tc := range []struct {
		name  string
		noisy []float64
		want  []float64
		err   string
	}{
		// h = 1/4, ñ = 4: f = ñ_i·4/4.
		{"plain", []float64{1, 2, 0, 1}, []float64{1, 2, 0, 1}, ""},
		{"clamped", []float64{-3, 2, 2, -0.5}, []float64{0, 2, 2, 0}, ""},
		{"all negative is uniform", []float64{-1, -2}, []float64{1, 1}, ""},
		{"empty", nil, nil, "0 noisy counts"},
		{"inf", []float64{1, math.Inf(1)}, nil, "noisy count 1 = +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HistogramDensity(tc.noisy, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			integral := 0.0
			for i := range got {
				if math.Abs(got[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
				integral += got[i] / float64(len(got))
			}
			if math.Abs(integral-1) > 1e-12 {
				t.Errorf("density integrates to %g, want 1", integral)
			}
		})
	}
	if _, err := HistogramDensity([]float64{1, 2}, make([]float64, 3)); err == nil {
		t.Error("HistogramDensity accepted out of the wrong length")
	}
}

func TestNoiseScales(t *testing.T) {
	if s, err := HistogramNoiseScale(0.5); err != nil || s != 4 {
		t.Errorf("HistogramNoiseScale(0.5) = %v, %v; want 4", s, err)
	}
	if s, err := TrigNoiseScale(100, 21, 2); err != nil || math.Abs(s-0.2) > 1e-15 {
		t.Errorf("TrigNoiseScale(100, 21, 2) = %v, %v; want 2·20/(100·2) = 0.2", s, err)
	}
	for _, eps := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if _, err := HistogramNoiseScale(eps); err == nil {
			t.Errorf("HistogramNoiseScale(%v) accepted", eps)
		}
		if _, err := TrigNoiseScale(10, 3, eps); err == nil {
			t.Errorf("TrigNoiseScale(ε = %v) accepted", eps)
		}
	}
	if _, err := TrigNoiseScale(0, 3, 1); err == nil {
		t.Error("TrigNoiseScale(n = 0) accepted")
	}
}

func TestTrigMoments(t *testing.T) {
	// x = 1 → θ = 0: all 1; x = 0 → θ = π: (−1)^m; x = ½ → θ = π/2: cos(mπ/2).
	got, err := TrigMoments([]float64{1, 0, 0.5}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 0, 1.0 / 3, 0, 1}
	for m := range want {
		if math.Abs(got[m]-want[m]) > 1e-12 {
			t.Fatalf("moments %v, want %v", got, want)
		}
	}
	for _, tc := range []struct {
		x    []float64
		tt   int
		want string
	}{
		{[]float64{0.5}, 0, "t = 0"},
		{nil, 3, "no records"},
		{[]float64{-0.1}, 3, "x[0] = -0.1"},
	} {
		if _, err := TrigMoments(tc.x, tc.tt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TrigMoments(%v, %d): error %v, want %q", tc.x, tc.tt, err, tc.want)
		}
	}
}

func TestJacksonMultipliers(t *testing.T) {
	mu, err := JacksonMultipliers(1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if mu[0] != 1 {
		t.Errorf("μ_0 = %v, want 1", mu[0])
	}
	// For fixed m and large t the kernel concentrates at 0, a_{ml}·π → 1 and
	// μ_m → −Σ_{l≥1} C(K+1,l)(−1)^l = 1.
	for _, m := range []int{1, 2, 5} {
		if math.Abs(mu[m]-1) > 1e-3 {
			t.Errorf("t = 1000: μ_%d = %v, want ≈ 1", m, mu[m])
		}
	}
	for m, v := range mu {
		if math.Abs(v) > 1+1e-9 && m > 0 {
			// |π a_j| ≤ 1 and the multipliers of a smoothing operator stay bounded
			// by Σ C(K+1,l) = 2^{K+1} − 1; for K = 2 they are in practice ≤ 1.
			if math.Abs(v) > 7 {
				t.Fatalf("μ_%d = %v exceeds 2^{K+1}−1 = 7", m, v)
			}
		}
	}
	if _, err := JacksonMultipliers(0, 2); err == nil {
		t.Error("t = 0 accepted")
	}
	if _, err := JacksonMultipliers(5, -1); err == nil {
		t.Error("K = −1 accepted")
	}
}

// TestTrigKDEApproximates checks that noise-free summaries answer the KDE
// query: with many moments the Jackson approximation converges to F_D(y).
func TestTrigKDEApproximates(t *testing.T) {
	x := []float64{0, 0.1, 0.35, 0.5, 0.52, 0.9, 1}
	const b = 0.1
	s, err := TrigMoments(x, 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range []float64{0, 0.25, 0.5, 0.77, 1} {
		w, err := TrigKDEWeights(y, b, 200, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := 0.0
		for m := range w {
			got += w[m] * s[m]
		}
		want := 0.0
		for _, v := range x {
			z := (y - v) / b
			want += math.Exp(-z*z/2) / (math.Sqrt(2*math.Pi) * b) / float64(len(x))
		}
		// Tolerance: 1 % of the kernel peak 3.99, far above the Jackson error
		// at t = 200 (≈ 1e-3) and far below a wrong sign or factor.
		if math.Abs(got-want) > 0.04 {
			t.Errorf("y = %v: trigonometric answer %v, KDE %v", y, got, want)
		}
	}
	for _, tc := range []struct {
		y, b float64
		want string
	}{{-0.1, 0.1, "y = -0.1"}, {0.5, 0.001, "bandwidth = 0.001"}, {0.5, 2, "bandwidth = 2"}} {
		if _, err := TrigKDEWeights(tc.y, tc.b, 10, 2, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("TrigKDEWeights(%v, %v): error %v, want %q", tc.y, tc.b, err, tc.want)
		}
	}
}

// Example: a histogram density from noisy counts (post-processing only).
func ExampleHistogramDensity() {
	counts, _ := HistogramCounts([]float64{0.1, 0.2, 0.3, 0.8}, 2)
	noisy := []float64{counts[0] + 0.5, counts[1] - 1.5} // pretend Laplace draws
	f, _ := HistogramDensity(noisy, nil)
	fmt.Println(counts, f)
	// Output: [3 1] [2 0]
}
