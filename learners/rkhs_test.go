package learners

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

func TestRKHSPeer(t *testing.T) {
	kdeA := gaussPeak(0.05)
	for _, tc := range []struct {
		name   string
		kind   Kind
		n, dim int
		values Values
		delta  float64
		amp    float64
		sigmas []float64
	}{
		{"kde 1-D", KindKDE, 5000, 1, Values{"bandwidth": {0.05}}, math.Sqrt(2*kdeA*(1-math.Exp(-200))) / 5000, kdeA, []float64{0.05}},
		{"kde 2-D wide", KindKDE, 10, 2, Values{"bandwidth": {1, 0.5}},
			math.Sqrt(2*gaussPeak(1)*gaussPeak(0.5)*(1-math.Exp(-0.5-2))) / 10, gaussPeak(1) * gaussPeak(0.5), []float64{1, 0.5}},
		{"svm C ≤ 1", KindSVM, 100, 2, Values{"C": {1}, "sigma": {0.3}, "intercept": {0}}, 2.0 / 100, 1, []float64{0.3, 0.3}},
		{"svm C > 1", KindSVM, 100, 1, Values{"C": {20}, "sigma": {1}, "intercept": {0}}, 2 * 20.0 / 100 * 1.05, 1, []float64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RKHSPeer(tc.kind, tc.n, tc.values, tc.dim)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Delta-tc.delta) > 1e-9*tc.delta || r.Delta < tc.delta {
				t.Errorf("Δ_H = %.12g, want %.12g (and not below it)", r.Delta, tc.delta)
			}
			if math.Abs(r.Amplitude-tc.amp) > 1e-15*tc.amp || len(r.Sigmas) != len(tc.sigmas) {
				t.Errorf("kernel A = %g σ = %v, want A = %g σ = %v", r.Amplitude, r.Sigmas, tc.amp, tc.sigmas)
			}
			for j := range tc.sigmas {
				if r.Sigmas[j] != tc.sigmas[j] {
					t.Errorf("σ_%d = %g, want %g", j, r.Sigmas[j], tc.sigmas[j])
				}
			}
			if r.Note == "" {
				t.Error("empty note")
			}
		})
	}
}

// TestRKHSPeerKDETighterThanHall checks Δ_H ≤ 2√A/n (Hall et al.,
// Section 3) with ratio √(2(1 − e^{−q}))/2 ≤ 1/√2.
func TestRKHSPeerKDETighterThanHall(t *testing.T) {
	for _, b := range []float64{0.01, 0.05, 0.3, 1} {
		r, err := RKHSPeer(KindKDE, 50, Values{"bandwidth": {b}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		hall := 2 * math.Sqrt(r.Amplitude) / 50
		if !(r.Delta <= hall/math.Sqrt2*(1+1e-11)) {
			t.Errorf("b = %g: Δ_H = %g exceeds Hall's 2√A/n / √2 = %g", b, r.Delta, hall/math.Sqrt2)
		}
	}
}

func TestRKHSPeerErrors(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		n, dim int
		values Values
		want   string
	}{
		{KindKDE, 0, 1, nil, "n = 0"},
		{KindKDE, 10, 1, Values{"bandwidth": {0}}, "bandwidth"},
		{KindKDE, 10, 9, nil, "feature columns"},
		{KindSVM, 10, 1, Values{"sigma": {-1}}, "sigma"},
		{KindRidge, 10, 1, nil, "supports only kde and svm"},
	} {
		if _, err := RKHSPeer(tc.kind, tc.n, tc.values, tc.dim); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RKHSPeer(%s, n=%d, %v, dim=%d): error %v, want one containing %q", tc.kind, tc.n, tc.values, tc.dim, err, tc.want)
		}
	}
}

// TestRKHSPeerKernelIsLearnerKernel checks that the kernel RKHSPeer
// reports is the learner's own: for one record x, the KDE is K(x, ·); for
// the SVM with C ≤ 1 and one record of label +1, F = (C/n)·K(x, ·).
func TestRKHSPeerKernelIsLearnerKernel(t *testing.T) {
	x := []float64{0.2, 0.7}
	ys := [][]float64{{0.2, 0.7}, {0.25, 0.6}, {1, 0}, {0.5, 0.5}}
	kernel := func(r RKHSSensitivity, a, b []float64) float64 {
		q := 0.0
		for j, s := range r.Sigmas {
			d := (a[j] - b[j]) / s
			q += d * d / 2
		}
		return r.Amplitude * math.Exp(-q)
	}
	vals := Values{"bandwidth": {0.1, 0.3}}
	fit, err := NewKDE().Fit(context.Background(), Dataset{Dim: 2, X: x}, vals)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RKHSPeer(KindKDE, 1, vals, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, y := range ys {
		if got, want := fit.Oracle.Eval(y), kernel(r, x, y); math.Abs(got-want) > 1e-14*r.Amplitude {
			t.Errorf("kde at %v: F = %g, K(x, y) = %g", y, got, want)
		}
	}
	vals = Values{"C": {0.5}, "sigma": {0.4}, "intercept": {0}}
	fit, err = NewSVM().Fit(context.Background(), Dataset{Dim: 2, X: x, Labels: []float64{1}}, vals)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = RKHSPeer(KindSVM, 1, vals, 2); err != nil {
		t.Fatal(err)
	}
	for _, y := range ys {
		if got, want := fit.Oracle.Eval(y), 0.5*kernel(r, x, y); math.Abs(got-want) > 1e-15 {
			t.Errorf("svm at %v: F = %g, (C/n)K(x, y) = %g", y, got, want)
		}
	}
}

// TestRKHSPeerRefusesIntercept: with the kernel K + c (c > 0) the SVM's
// decision function is not in the Gaussian RKHS the GP release uses, so
// RKHSPeer must refuse it with a ParamError naming the parameter.
func TestRKHSPeerRefusesIntercept(t *testing.T) {
	_, err := RKHSPeer(KindSVM, 100, Values{"C": {1}, "sigma": {0.3}, "intercept": {0.5}}, 2)
	var pe *mechanism.ParamError
	if !errors.As(err, &pe) || pe.Field != "intercept" {
		t.Fatalf("RKHSPeer with intercept 0.5: %v, want a ParamError for intercept", err)
	}
	if _, err := RKHSPeer(KindSVM, 100, Values{"C": {1}, "sigma": {0.3}, "intercept": {0}}, 2); err != nil {
		t.Fatalf("RKHSPeer with intercept 0: %v", err)
	}
}
