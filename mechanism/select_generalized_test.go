package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	rand "math/rand/v2"
	"testing"
)

// neighbourScores returns the corners of the box ∏_i [q_i − β_i, q_i + β_i]
// (each score at −β_i, 0 or +β_i) and a few random points inside it: the
// score vectors of a neighbouring dataset the sensitivities allow.
func neighbourScores(q, betas []float64, r *rand.Rand) [][]float64 {
	n := len(q)
	corners := 1
	for range n {
		corners *= 3
	}
	var out [][]float64
	for c := range corners {
		v, x := make([]float64, n), c
		for i := range v {
			v[i] = q[i] + float64(x%3-1)*betas[i]
			x /= 3
		}
		out = append(out, v)
	}
	for range 5 {
		v := make([]float64, n)
		for i := range v {
			v[i] = q[i] + (2*r.Float64()-1)*betas[i]
		}
		out = append(out, v)
	}
	return out
}

func mustNormalised(t *testing.T, g GeneralizedSelection, q []float64) []float64 {
	t.Helper()
	s, err := g.Normalised(q)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGeneralizedScoresSensitivity checks the normalised scores' claim:
// when each q_i moves by at most β_i, each s_i moves by at most 1
// (+ 10⁻¹² for rounding), for sensitivities spread over 3 orders of
// magnitude, scores inside and beyond the clamp ±Bound and some far below
// the others (the clamp at −L); and that the corners reach 1.
func TestGeneralizedScoresSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 23))
	worst := 0.0
	for trial := range 60 {
		n := 2 + trial%3
		g := GeneralizedSelection{Betas: make([]float64, n), Bound: 2, Epsilon: 0.5, Gamma: 0.05}
		q := make([]float64, n)
		for i := range q {
			g.Betas[i] = math.Pow(10, -3*r.Float64())
			q[i] = (r.Float64()*2 - 1) * 3 // some beyond ±Bound
		}
		if trial%5 == 0 {
			q[0] = -1e3 // far below: clamped
		}
		s := mustNormalised(t, g, q)
		top := 0
		for i := range s {
			if s[i] > 0 || s[i] < -g.floor() {
				t.Fatalf("s[%d] = %g outside [−L, 0] = [%g, 0]", i, s[i], -g.floor())
			}
			if s[i] == 0 {
				top++
			}
		}
		if top == 0 {
			t.Fatalf("no candidate with s = 0 in %v", s)
		}
		for _, q2 := range neighbourScores(q, g.Betas, r) {
			s2 := mustNormalised(t, g, q2)
			for i := range s {
				d := math.Abs(s2[i] - s[i])
				worst = max(worst, d)
				if d > 1+1e-12 {
					t.Fatalf("q = %v, β = %v, q′ = %v: s[%d] moved by %.15g > 1", q, g.Betas, q2, i, d)
				}
			}
		}
	}
	t.Logf("largest move of a normalised score: %.6f (bound 1)", worst)
	if worst < 0.99 {
		t.Errorf("largest move %g: the neighbour search should reach the bound 1 (the corners attain it)", worst)
	}
}

// TestGeneralizedSelectPrivacyRatio checks ε-DP of the generalized
// selection exactly (integrated selection probabilities of
// report-noisy-max on the normalised scores at the scale Select uses, no
// sampling): for every neighbour score vector of the per-candidate box,
// P(i | q) ≤ e^ε·P(i | q′). It reads the scale from Select itself, so a
// selection calibrated at another scale fails here. Its power: the same
// normalised scores with noise at half that scale break the bound.
func TestGeneralizedSelectPrivacyRatio(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 31))
	broke := false
	for _, eps := range []float64{0.3, 1, 3} {
		for _, betas := range [][]float64{{0.01, 0.4}, {0.05, 0.05, 1}, {1, 0.1, 0.01}} {
			g := GeneralizedSelection{Betas: betas, Bound: 100, Epsilon: eps, Gamma: 0.05}
			sel, err := g.Select(make([]float64, len(betas)))
			if err != nil {
				t.Fatal(err)
			}
			scale := sel.Scale
			if want := 2 * (1 + generalizedRounding) / eps; scale != want || g.Scale() != want {
				t.Fatalf("Select's scale %g, Scale() %g; want 2(1 + 10⁻⁶)/ε = %g", scale, g.Scale(), want)
			}
			worst := 0.0
			for trial := range 3 {
				q := make([]float64, len(betas))
				for i := range q {
					if trial > 0 {
						q[i] = (r.Float64()*4 - 2) * betas[i] * g.Penalty()
					}
				}
				s := mustNormalised(t, g, q)
				p, pHalf := winProbs(s, scale), winProbs(s, scale/2)
				for _, q2 := range neighbourScores(q, betas, r) {
					s2 := mustNormalised(t, g, q2)
					p2, p2Half := winProbs(s2, scale), winProbs(s2, scale/2)
					for i := range p {
						for _, ratio := range []float64{p[i] / p2[i], p2[i] / p[i]} {
							worst = max(worst, math.Log(ratio))
							if ratio > math.Exp(eps)*(1+1e-6) {
								t.Errorf("ε = %g, β = %v, q = %v, q′ = %v: ratio for %d is e^%.6f > e^ε", eps, betas, q, q2, i, math.Log(ratio))
							}
						}
						broke = broke || pHalf[i]/p2Half[i] > math.Exp(eps)*(1+1e-3) || p2Half[i]/pHalf[i] > math.Exp(eps)*(1+1e-3)
					}
				}
			}
			t.Logf("ε = %g, β = %v: largest log-ratio %.4f (bound %g)", eps, betas, worst, eps)
		}
	}
	if !broke {
		t.Error("power check: noise at half the scale never broke e^ε; the test cannot see a wrong scale")
	}
}

// TestGeneralizedUtilityBoundTight checks UtilityBound against the exact
// selection probabilities of a case where a wrong selection breaks it
// (the bound itself is missed with probability 0.0015 here, well below
// γ): two candidates, β = (0.01, 1), q = (0.3, 0). The candidate of small β loses
// against the other's score by more than its bound only when the noise
// overturns a lead of about 20 scales; the probability of falling below
// the bound must be ≤ γ. A selection without the penalty, with the
// penalty's sign flipped or with 4 times the noise picks the second
// candidate so often that q_0 − bound(β_0) > q_1 fails the bound (checked:
// those variants exceed γ here).
func TestGeneralizedUtilityBoundTight(t *testing.T) {
	const gamma = 0.05
	g := GeneralizedSelection{Betas: []float64{0.01, 1}, Bound: 1, Epsilon: 1, Gamma: gamma}
	q := []float64{0.3, 0}
	if got, want := g.UtilityBound(0.5), 2*g.Penalty()*0.5+generalizedRounding*(0.5+1); got != want {
		t.Errorf("UtilityBound(0.5) = %g, want %g", got, want)
	}
	if got, want := g.Penalty(), 4*(1+generalizedRounding)*math.Log(2/gamma); math.Abs(got-want) > 1e-12 {
		t.Errorf("Penalty = %g, want 4(1 + 10⁻⁶)·ln(N/γ) = %g", got, want)
	}
	p := winProbs(mustNormalised(t, g, q), g.Scale())
	// Picking candidate 1 violates the bound against candidate 0 iff
	// q_1 < q_0 − UtilityBound(β_0).
	fail := 0.0
	if q[1] < q[0]-g.UtilityBound(g.Betas[0]) {
		fail += p[1]
	}
	if q[0] < q[1]-g.UtilityBound(g.Betas[1]) {
		fail += p[0]
	}
	t.Logf("P(pick 1) = %.4g; P(bound violated) = %.4g (γ = %g)", p[1], fail, gamma)
	if fail > gamma {
		t.Errorf("the bound fails with probability %.4g > γ = %g", fail, gamma)
	}
	// The same check at the seeded sampler, 20000 draws: the violation
	// rate exceeds γ + 5 SD with probability < 3·10⁻⁷.
	src := NewSimulationNoise(77)
	bad := 0
	const draws = 20_000
	for range draws {
		sel, err := g.Simulate(q, src)
		if err != nil {
			t.Fatal(err)
		}
		if j := 1 - sel.Index; q[sel.Index] < q[j]-g.UtilityBound(g.Betas[j]) {
			bad++
		}
	}
	if frac := float64(bad) / draws; frac > gamma+5*math.Sqrt(gamma*(1-gamma)/draws) {
		t.Errorf("the seeded selection violates the bound in %.4f of draws", frac)
	}
}

// TestGeneralizedSelectFrequencies compares the secure and the seeded
// selections' frequencies with the integrated probabilities of the
// normalised scores at Scale(), at 5 binomial SD per candidate
// (false-failure rate < 8·10⁻⁶ in all). A sampler at half or twice the
// scale moves the frequencies by > 0.05 here, about 14 SD.
func TestGeneralizedSelectFrequencies(t *testing.T) {
	const draws = 20_000
	g := GeneralizedSelection{Betas: []float64{0.1, 0.1, 1}, Bound: 5, Epsilon: 2, Gamma: 0.05}
	q := []float64{0, 0.2, 3}
	want := winProbs(mustNormalised(t, g, q), g.Scale())
	src := NewSimulationNoise(3)
	for _, secure := range []bool{true, false} {
		counts := make([]int, len(q))
		for range draws {
			var idx int
			if secure {
				sel, err := g.Select(q)
				if err != nil {
					t.Fatal(err)
				}
				idx = sel.Index
			} else {
				sel, err := g.Simulate(q, src)
				if err != nil {
					t.Fatal(err)
				}
				idx = sel.Index
			}
			counts[idx]++
		}
		for i, c := range counts {
			got := float64(c) / draws
			sd := math.Sqrt(want[i] * (1 - want[i]) / draws)
			if math.Abs(got-want[i]) > 5*sd+1e-9 {
				t.Errorf("secure %v: candidate %d chosen with frequency %.4f, want %.4f ± %.4f", secure, i, got, want[i], 5*sd)
			}
		}
	}
}

// TestGeneralizedSelectionValidates: the setting is checked where it
// enters, and whether the normalised scores are exact depends on the
// public setting only — right at the threshold of 5u·(Q + t·B)/b ≤ r/2 the
// check flips with b, and any finite scores, however large, are then
// accepted (clamped to ±Bound).
func TestGeneralizedSelectionValidates(t *testing.T) {
	ok := GeneralizedSelection{Betas: []float64{0.1, 1}, Bound: 1, Epsilon: 1, Gamma: 0.05}
	tests := []struct {
		name  string
		g     GeneralizedSelection
		field string
	}{
		{"ok", ok, ""},
		{"no candidate", GeneralizedSelection{Bound: 1, Epsilon: 1, Gamma: 0.05}, "betas"},
		{"zero beta", GeneralizedSelection{Betas: []float64{0, 1}, Bound: 1, Epsilon: 1, Gamma: 0.05}, "betas[0]"},
		{"NaN beta", GeneralizedSelection{Betas: []float64{1, math.NaN()}, Bound: 1, Epsilon: 1, Gamma: 0.05}, "betas[1]"},
		{"bound", GeneralizedSelection{Betas: []float64{1}, Bound: 0, Epsilon: 1, Gamma: 0.05}, "bound"},
		{"gamma", GeneralizedSelection{Betas: []float64{1}, Bound: 1, Epsilon: 1, Gamma: 1}, "gamma"},
		{"eps", GeneralizedSelection{Betas: []float64{1}, Bound: 1, Epsilon: 0, Gamma: 0.05}, "epsilon"},
		{"inexact", GeneralizedSelection{Betas: []float64{1e-12, 1}, Bound: 1, Epsilon: 1, Gamma: 0.05}, "betas"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Validate()
			if tc.field == "" {
				if err != nil || !tc.g.Exact() {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Field != tc.field || tc.g.Exact() {
				t.Fatalf("error %v, want a ParamError on %q", err, tc.field)
			}
		})
	}
	// The threshold: b at which 5u·(Q + t·B)/b = r/2.
	g := ok
	b0 := 5 * 0x1p-53 * (g.Bound + g.Penalty()*1) / (generalizedRounding / 2)
	for _, f := range []float64{0.999, 1.001} {
		g.Betas = []float64{b0 * f, 1}
		if g.Exact() != (f > 1) {
			t.Errorf("b = %g·threshold: Exact = %v", f, g.Exact())
		}
	}
	// Exact settings accept any finite scores (no refusal from the data).
	for _, q := range [][]float64{{1e300, -1e300}, {0, 1e-300}, {-5, 7}} {
		if _, err := ok.Select(q); err != nil {
			t.Errorf("scores %v refused: %v", q, err)
		}
	}
	for _, q := range [][]float64{{math.NaN(), 0}, {0}} {
		if _, err := ok.Select(q); err == nil {
			t.Errorf("scores %v accepted", q)
		}
	}
	if _, err := ok.Simulate([]float64{1, 2}, nil); err == nil {
		t.Error("nil simulation source accepted")
	}
}

func TestPreferGeneralized(t *testing.T) {
	tests := []struct {
		betas []float64
		base  []bool
		want  bool
	}{
		{[]float64{0.1, 0.2}, []bool{true, true}, false},
		{[]float64{0.1, 0.15}, []bool{true, false}, false},
		{[]float64{0.1, 0.2}, []bool{true, false}, true},
		{[]float64{0.1, 0.05, 4}, []bool{true, true, false}, true},
		{[]float64{0.3, 0.2}, []bool{false, false}, false},
	}
	for _, tc := range tests {
		if got := PreferGeneralized(tc.betas, tc.base); got != tc.want {
			t.Errorf("PreferGeneralized(%v, %v) = %v, want %v", tc.betas, tc.base, got, tc.want)
		}
	}
}

// Two candidates: a good one of small β and one scoring 0.05 better but
// with a β 50 times larger. The penalty t = 4(1 + 10⁻⁶)/ε·ln(N/γ) per unit
// of β puts the second far behind; the normalised scores are what the
// noise is added to.
func ExampleGeneralizedSelection_Normalised() {
	g := GeneralizedSelection{Betas: []float64{0.001, 0.05}, Bound: 1, Epsilon: 1, Gamma: 0.05}
	s, err := g.Normalised([]float64{0.50, 0.55})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("penalty t = %.2f, noise scale %.6f\n", g.Penalty(), g.Scale())
	for i, v := range s {
		fmt.Printf("candidate %d: s = %.2f\n", i, v)
	}
	// Output:
	// penalty t = 14.76, noise scale 2.000002
	// candidate 0: s = 0.00
	// candidate 1: s = -13.20
}

// TestGeneralizedNormalisedClamp: scores beyond ±Bound count as ±Bound —
// the normalised scores of q and of q clamped are identical, up to ±10³⁰⁰
// — so the float64 check, made on Bound alone, holds for any scores.
func TestGeneralizedNormalisedClamp(t *testing.T) {
	g := GeneralizedSelection{Betas: []float64{1e-3, 0.5, 2}, Bound: 2, Epsilon: 1, Gamma: 0.05}
	for _, q := range [][]float64{{20, -20, 0}, {1e300, 0, -1e300}, {-5, 2.5, 1}, {2, -2, 2}} {
		c := make([]float64, len(q))
		for i, v := range q {
			c[i] = min(max(v, -g.Bound), g.Bound)
		}
		a, b := mustNormalised(t, g, q), mustNormalised(t, g, c)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("q = %v: s = %v, clamped %v", q, a, b)
			}
		}
	}
}

// bigFloat is x at 300 bits.
func bigFloat(x float64) *big.Float { return new(big.Float).SetPrec(300).SetFloat64(x) }

// exactNormalised is Normalised computed at 300 bits (then rounded once).
func exactNormalised(g GeneralizedSelection, q []float64) []float64 {
	t := bigFloat(g.Penalty())
	a := make([]*big.Float, len(q))
	for i := range q {
		tb := new(big.Float).SetPrec(300).Mul(t, bigFloat(g.Betas[i]))
		a[i] = new(big.Float).SetPrec(300).Sub(bigFloat(min(max(q[i], -g.Bound), g.Bound)), tb)
	}
	out := make([]float64, len(q))
	for i := range q {
		s := bigFloat(0)
		for j := range q {
			if j == i {
				continue
			}
			d := new(big.Float).SetPrec(300).Sub(a[i], a[j])
			d.Quo(d, new(big.Float).SetPrec(300).Add(bigFloat(g.Betas[i]), bigFloat(g.Betas[j])))
			if d.Cmp(s) < 0 {
				s = d
			}
		}
		v, _ := s.Float64()
		out[i] = max(v, -g.floor())
	}
	return out
}

// TestGeneralizedNormalisedRounding checks the exactness analysis
// against 300-bit arithmetic: for settings just inside the threshold
// 5u·(Q + t·B)/b ≤ r/2 (the smallest β pushed to it; Q, ε and the β
// spread over many orders of magnitude) and scores at ±Q or inside, the
// float64 normalised scores are within r/2 of the exact ones (a review
// found at most 0.18 of it over 20 000 such settings).
func TestGeneralizedNormalisedRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst, tried := 0.0, 0
	for range 4000 {
		n := 2 + r.IntN(3)
		g := GeneralizedSelection{Betas: make([]float64, n), Bound: math.Pow(10, 6*r.Float64()-2), Epsilon: math.Pow(10, -8+8*r.Float64()), Gamma: 0.05}
		for i := range g.Betas {
			g.Betas[i] = math.Pow(10, -3*r.Float64())
		}
		if b0 := 5 * 0x1p-53 * (g.Bound + g.Penalty()*maxOf(g.Betas)) / (generalizedRounding / 2); b0 < maxOf(g.Betas) {
			g.Betas[0] = b0 * (1 + 1e-9)
		}
		if !g.Exact() {
			continue
		}
		tried++
		q := make([]float64, n)
		for i := range q {
			switch r.IntN(3) {
			case 0:
				q[i] = g.Bound
			case 1:
				q[i] = -g.Bound
			default:
				q[i] = (2*r.Float64() - 1) * g.Bound
			}
		}
		got, want := mustNormalised(t, g, q), exactNormalised(g, q)
		for i := range got {
			worst = max(worst, math.Abs(got[i]-want[i])/(generalizedRounding/2))
		}
	}
	t.Logf("%d settings at the threshold: largest error %.3g of r/2", tried, worst)
	if worst > 1 || tried < 1000 {
		t.Errorf("largest error %.3g of r/2 over %d settings: want ≤ 1 over at least 1000", worst, tried)
	}
}
