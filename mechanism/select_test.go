package mechanism

import (
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2"
	"testing"
)

// winProbs returns P(i* = i) for report-noisy-max with i.i.d. continuous
// Laplace(b) noise on scores q, by numerical integration of
//
//	P(i wins) = ∫ f_b(z − q_i) ∏_{j≠i} F_b(z − q_j) dz
//
// with the composite Simpson rule on [min q − 60b, max q + 60b] (the
// truncated tails weigh < e^{−60}). Each kink of the integrand (z = q_j)
// lies on a node; the error (≈ h⁴·sup|f⁗|) is below 1e-10 here.
func winProbs(q []float64, b float64) []float64 {
	lo, hi := q[0], q[0]
	for _, x := range q {
		lo, hi = min(lo, x), max(hi, x)
	}
	lo -= 60 * b
	hi += 60 * b
	// Nodes: break at every q_j so kinks sit on nodes.
	breaks := []float64{lo}
	sorted := append([]float64(nil), q...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if sorted[j] < sorted[i] {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	for _, x := range sorted {
		if x > breaks[len(breaks)-1] {
			breaks = append(breaks, x)
		}
	}
	breaks = append(breaks, hi)
	pdf := func(x float64) float64 { return math.Exp(-math.Abs(x)/b) / (2 * b) }
	cdf := laplaceCDF(b)
	out := make([]float64, len(q))
	for i := range q {
		g := func(z float64) float64 {
			v := pdf(z - q[i])
			for j := range q {
				if j != i {
					v *= cdf(z - q[j])
				}
			}
			return v
		}
		total := 0.0
		for s := 0; s+1 < len(breaks); s++ {
			a, c := breaks[s], breaks[s+1]
			n := 12000 // even
			h := (c - a) / float64(n)
			sum := g(a) + g(c)
			for t := 1; t < n; t++ {
				w := 2.0
				if t%2 == 1 {
					w = 4
				}
				sum += w * g(a+float64(t)*h)
			}
			total += sum * h / 3
		}
		out[i] = total
	}
	return out
}

func TestWinProbsSumToOne(t *testing.T) {
	for _, q := range [][]float64{{0}, {0, 0}, {0, 1, -2}, {3, 3, 3}} {
		p := winProbs(q, 0.7)
		s := 0.0
		for _, x := range p {
			s += x
		}
		if math.Abs(s-1) > 1e-10 {
			t.Errorf("q = %v: Σ P = %.12f, want 1", q, s)
		}
	}
}

// TestNoisyMaxPrivacyRatio checks ε-DP of report-noisy-max with scale
// 2β/ε exactly (by integration, no sampling): for score vectors q and
// neighbours q′ with |q′_i − q_i| ≤ β for every i — every corner of the
// cube {−β, 0, β}^N and random points — P(i | q) ≤ e^ε·P(i | q′). It also
// checks the test's power: with the scale β/ε (no factor 2, which suffices
// only for monotone scores) some neighbour pair breaks the bound.
func TestNoisyMaxPrivacyRatio(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	const beta = 1.0
	for _, eps := range []float64{0.1, 1, 3} {
		for _, n := range []int{2, 3} {
			worst := 0.0
			for trial := 0; trial < 4; trial++ {
				q := make([]float64, n)
				for i := range q {
					if trial > 0 {
						q[i] = (r.Float64()*6 - 3) * beta
					}
				}
				p := winProbs(q, 2*beta/eps)
				var shifts [][]float64
				corners := 1
				for range n {
					corners *= 3
				}
				for c := 0; c < corners; c++ {
					d, x := make([]float64, n), c
					for i := range d {
						d[i] = float64(x%3-1) * beta
						x /= 3
					}
					shifts = append(shifts, d)
				}
				for range 5 {
					d := make([]float64, n)
					for i := range d {
						d[i] = (2*r.Float64() - 1) * beta
					}
					shifts = append(shifts, d)
				}
				for _, d := range shifts {
					q2 := make([]float64, n)
					for i := range q2 {
						q2[i] = q[i] + d[i]
					}
					p2 := winProbs(q2, 2*beta/eps)
					for i := range p {
						for _, ratio := range []float64{p[i] / p2[i], p2[i] / p[i]} {
							worst = max(worst, math.Log(ratio))
							if ratio > math.Exp(eps)*(1+1e-6) {
								t.Errorf("ε = %g, q = %v, q′ = %v: P ratio for candidate %d is e^%.6f > e^ε", eps, q, q2, i, math.Log(ratio))
							}
						}
					}
				}
			}
			t.Logf("ε = %g, N = %d: largest log-ratio %.4f (bound %g)", eps, n, worst, eps)
		}
	}
	// Power: scale β/ε is not enough when scores move in opposite directions.
	eps := 1.0
	p := winProbs([]float64{0, 0}, beta/eps)
	p2 := winProbs([]float64{beta, -beta}, beta/eps)
	if ratio := p[1] / p2[1]; ratio <= math.Exp(eps) {
		t.Errorf("power check: with scale β/ε the ratio %g should exceed e^ε = %g", ratio, math.Exp(eps))
	}
}

// TestNoisyMaxFrequencies compares the selection frequencies of the secure
// NoisyMax and of SimulateNoisyMax with the integrated probabilities. Each
// of the 3 frequencies per source is checked at 5 binomial standard
// deviations (false-failure rate ≤ 6·5.7e-7 < 4e-6 in all); a wrong scale
// (β/ε instead of 2β/ε) shifts them by > 0.05, about 14 SD at n = 20000.
func TestNoisyMaxFrequencies(t *testing.T) {
	const beta, eps, draws = 0.5, 2.0, 20_000
	scale := 2 * beta / eps
	q := []float64{0, 0.5 * scale, scale}
	want := winProbs(q, scale)
	src := NewSimulationNoise(42)
	for _, secure := range []bool{true, false} {
		counts := make([]int, len(q))
		for range draws {
			var idx int
			if secure {
				s, err := NoisyMax(q, beta, eps)
				if err != nil {
					t.Fatal(err)
				}
				if s.Scale != scale {
					t.Fatalf("Scale = %g, want %g", s.Scale, scale)
				}
				idx = s.Index
			} else {
				s, err := SimulateNoisyMax(q, beta, eps, src)
				if err != nil {
					t.Fatal(err)
				}
				idx = s.Index
			}
			counts[idx]++
		}
		for i, c := range counts {
			got := float64(c) / draws
			sd := math.Sqrt(want[i] * (1 - want[i]) / draws)
			if math.Abs(got-want[i]) > 5*sd {
				t.Errorf("secure = %v: candidate %d chosen with frequency %.4f, want %.4f ± %.4f", secure, i, got, want[i], 5*sd)
			}
		}
	}
}

func TestNoisyMaxValidates(t *testing.T) {
	tests := []struct {
		name        string
		scores      []float64
		beta, eps   float64
		field       string
		wantSuccess bool
	}{
		{"ok", []float64{1, 2}, 1, 1, "", true},
		{"single", []float64{1}, 1, 1, "", true},
		{"empty", nil, 1, 1, "scores", false},
		{"NaN score", []float64{1, math.NaN()}, 1, 1, "scores[1]", false},
		{"Inf score", []float64{math.Inf(1)}, 1, 1, "scores[0]", false},
		{"zero beta", []float64{1}, 0, 1, "beta", false},
		{"Inf beta", []float64{1}, math.Inf(1), 1, "beta", false},
		{"zero eps", []float64{1}, 1, 0, "epsilon", false},
		{"tiny eps", []float64{1}, 1, 1e-300, "epsilon", false},
		{"NaN eps", []float64{1}, 1, math.NaN(), "epsilon", false},
		{"overflowing scale", []float64{1}, 1e300, 1e-10, "beta", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NoisyMax(tc.scores, tc.beta, tc.eps)
			_, serr := SimulateNoisyMax(tc.scores, tc.beta, tc.eps, NewSimulationNoise(1))
			if tc.wantSuccess {
				if err != nil || serr != nil {
					t.Fatalf("unexpected errors %v, %v", err, serr)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Field != tc.field {
				t.Fatalf("NoisyMax error %v, want a ParamError on %q", err, tc.field)
			}
			if !errors.As(serr, &pe) || pe.Field != tc.field {
				t.Fatalf("SimulateNoisyMax error %v, want a ParamError on %q", serr, tc.field)
			}
		})
	}
	if _, err := SimulateNoisyMax([]float64{1}, 1, 1, nil); err == nil {
		t.Error("nil simulation source accepted")
	}
}

// TestNoisyMaxPicksClearWinner: with the best score 40 noise scales ahead,
// the chance of another pick is < N·e^{−20} ≈ 6e-9 per call (the utility
// bound with γ = 6e-9).
func TestNoisyMaxPicksClearWinner(t *testing.T) {
	for range 50 {
		s, err := NoisyMax([]float64{0, 1, 40, 2}, 0.5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if s.Index != 2 {
			t.Fatalf("chose %d, want 2", s.Index)
		}
	}
}

func TestNoisyMaxUtilityBound(t *testing.T) {
	got := NoisyMaxUtilityBound(10, 0.5, 2, 0.1)
	want := 4 * 0.5 / 2 * math.Log(100)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("bound = %g, want %g", got, want)
	}
	// Empirically (seeded): the gap exceeds the bound in at most a γ fraction.
	src := NewSimulationNoise(5)
	q := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	const draws, gamma = 20_000, 0.1
	bound := NoisyMaxUtilityBound(len(q), 0.5, 2, gamma)
	bad := 0
	for range draws {
		s, err := SimulateNoisyMax(q, 0.5, 2, src)
		if err != nil {
			t.Fatal(err)
		}
		if q[s.Index] < 1-bound {
			bad++
		}
	}
	if float64(bad)/draws > gamma {
		t.Errorf("gap > bound in %d of %d draws; allowed fraction %g", bad, draws, gamma)
	}
	defer func() {
		if recover() == nil {
			t.Error("NoisyMaxUtilityBound(0, …) did not panic")
		}
	}()
	NoisyMaxUtilityBound(0, 1, 1, 0.1)
}

// TestLebesgueBound checks Λ against the operator it bounds: for every y on
// a fine grid, Σ_ν |b^(h)_ν(y)| (the sup over coefficient vectors with
// |c_ν| ≤ 1, attained by c_ν = sign b^(h)_ν(y)) is ≤ Λ, and Λ ≤ 2^h − 1
// (Eq. 12), Λ = 1 for h = 1. Random ±1 coefficient vectors stay within Λ.
func TestLebesgueBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, h := range []int{1, 2, 3, 4, 5} {
		for _, k := range []int{1, 2, 5, 10, 25, 60} {
			ib := NewIteratedBasis(k, h)
			lam := LebesgueBound(ib)
			if h == 1 && lam != 1 {
				t.Errorf("k = %d, h = 1: Λ = %g, want 1", k, lam)
			}
			if lam > math.Exp2(float64(h))-1+1e-9 || lam < 1-1e-12 {
				t.Errorf("k = %d, h = %d: Λ = %g outside [1, 2^h − 1]", k, h, lam)
			}
			b := make([]float64, k+1)
			c := make([]float64, k+1)
			for i := range c {
				c[i] = float64(2*r.IntN(2) - 1)
			}
			sup, supRand := 0.0, 0.0
			for g := 0; g <= 2000; g++ {
				ib.At(float64(g)/2000, b)
				s, v := 0.0, 0.0
				for nu, x := range b {
					s += math.Abs(x)
					v += c[nu] * x
				}
				sup = max(sup, s)
				supRand = max(supRand, math.Abs(v))
			}
			if sup > lam*(1+1e-9) {
				t.Errorf("k = %d, h = %d: sup_y Σ|b^(h)_ν(y)| = %.9g > Λ = %.9g", k, h, sup, lam)
			}
			if supRand > lam*(1+1e-9) {
				t.Errorf("k = %d, h = %d: random ±1 polynomial reaches %.9g > Λ = %.9g", k, h, supRand, lam)
			}
		}
	}
}

func TestLebesgueBoundK(t *testing.T) {
	k, h := []int{6, 9}, 3
	lam, err := LebesgueBoundK(k, h)
	if err != nil {
		t.Fatal(err)
	}
	want := LebesgueBound(NewIteratedBasis(6, 3)) * LebesgueBound(NewIteratedBasis(9, 3))
	if lam != want {
		t.Fatalf("Λ = %g, want the product %g", lam, want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	coeffs := make([]float64, 7*10)
	for trial := range 20 {
		for i := range coeffs {
			coeffs[i] = r.Float64()*2 - 1
			if trial%2 == 0 {
				coeffs[i] = float64(2*r.IntN(2) - 1)
			}
		}
		p, err := NewPolynomial(k, h, coeffs)
		if err != nil {
			t.Fatal(err)
		}
		axis := make([]float64, 101)
		for i := range axis {
			axis[i] = float64(i) / 100
		}
		vals, err := p.EvalGrid([][]float64{axis, axis})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if math.Abs(v) > lam*(1+1e-9) {
				t.Fatalf("|P(y)| = %g > Λ = %g for coefficients in [−1,1]", v, lam)
			}
		}
	}
	for _, bad := range []struct {
		k []int
		h int
	}{{nil, 1}, {[]int{0}, 1}, {[]int{3}, 0}, {[]int{3}, 11}} {
		if _, err := LebesgueBoundK(bad.k, bad.h); err == nil {
			t.Errorf("LebesgueBoundK(%v, %d) accepted", bad.k, bad.h)
		}
	}
}

func ExampleNoisyMax() {
	// Three candidates whose scores each move by at most β = 0.01 between
	// neighbouring datasets; the third is far ahead of the noise 2β/ε = 0.02.
	s, err := NoisyMax([]float64{0.2, 0.5, 3}, 0.01, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("chosen:", s.Index, "noise scale:", s.Scale)
	// Output: chosen: 2 noise scale: 0.02
}
