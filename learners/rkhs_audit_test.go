package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded test data only
	"testing"
)

// Neighbour-search audit of the RKHS-norm sensitivities of RKHSPeer: fit
// the learner to replace-one neighbours D ~ D′, read the fitted function
// F = Σ_a c_a K(p_a, ·) off the oracle (its centres and coefficients), and
// compute the exact RKHS norm of F_D − F_D′ from the Gram matrix of the
// kernel RKHSPeer reports:
//
//	‖Σ_a c_a K(p_a,·)‖²_H = Σ_{a,b} c_a c_b K(p_a, p_b).
//
// Tolerance: the Gram sum has ≤ (2·50)² terms of magnitude ≤ A·max|c|², so
// its rounding error is ≤ 10⁴·(ℓ+5)u·A·max|c|² ≈ 1e-11·A·max|c|²; with
// max|c| ≤ 2C/n or 1/n this is < 1e-9·Δ_H² for the configurations below,
// i.e. a relative slack of 1e-9 on the norm would be generous; we use
// rkhsAuditSlack = 1e-9. A real violation is orders of magnitude larger.
const rkhsAuditSlack = 1e-9

// rkhsNorm returns ‖Σ_a c_a K(p_a,·)‖_H for the kernel of r (points
// row-major, dim = len(r.Sigmas)).
func rkhsNorm(r RKHSSensitivity, p, c []float64) float64 {
	dim := len(r.Sigmas)
	var s float64
	for a := range c {
		for b := range c {
			q := 0.0
			for j, sg := range r.Sigmas {
				d := (p[a*dim+j] - p[b*dim+j]) / sg
				q += d * d / 2
			}
			s += c[a] * c[b] * r.Amplitude * math.Exp(-q)
		}
	}
	return math.Sqrt(math.Max(s, 0))
}

// rkhsExpansion returns the centres and coefficients of a fitted KDE or SVM
// in the kernel of r, checking that the oracle's kernel is r's.
func rkhsExpansion(t *testing.T, f *Fitted, r RKHSSensitivity) (p, c []float64) {
	t.Helper()
	switch o := f.Oracle.(type) {
	case *kdeOracle:
		for j, b := range o.bw {
			if b != r.Sigmas[j] {
				t.Fatalf("kde bandwidth %v, RKHS kernel σ %v", o.bw, r.Sigmas)
			}
		}
		w := o.scale / r.Amplitude // 1/n
		c = make([]float64, o.n)
		for i := range c {
			c[i] = w
		}
		return o.x, c
	case *svmOracle:
		if g := 1 / (2 * r.Sigmas[0] * r.Sigmas[0]); math.Abs(o.g-g) > 1e-15*g || r.Amplitude != 1 {
			t.Fatalf("svm kernel exp(−%g·d²), RKHS kernel A = %g σ = %v", o.g, r.Amplitude, r.Sigmas)
		}
		return o.sv, o.coef
	}
	t.Fatalf("unexpected oracle %T", f.Oracle)
	return nil, nil
}

// rkhsAuditCase is one learner configuration.
type rkhsAuditCase struct {
	learner  Learner
	kind     Kind
	dim      int
	values   Values
	binary   bool
	pairs    int
	attained bool // the bound is attained: the search must reach ratio ≥ 0.999
}

// rkhsPair is a neighbouring pair: D and the index and new record of D′.
type rkhsPair struct {
	d     Dataset
	i     int
	x     []float64
	label float64
}

func (p rkhsPair) neighbour() Dataset {
	d := Dataset{Dim: p.d.Dim, X: append([]float64(nil), p.d.X...)}
	copy(d.X[p.i*p.d.Dim:], p.x)
	if p.d.Labels != nil {
		d.Labels = append([]float64(nil), p.d.Labels...)
		d.Labels[p.i] = p.label
	}
	return d
}

// ratio fits both datasets and returns ‖F_D − F_D′‖_H / Δ_H.
func (c rkhsAuditCase) ratio(t *testing.T, p rkhsPair, r RKHSSensitivity) float64 {
	t.Helper()
	ctx := context.Background()
	f1, err := c.learner.Fit(ctx, p.d, c.values)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := c.learner.Fit(ctx, p.neighbour(), c.values)
	if err != nil {
		t.Fatal(err)
	}
	p1, c1 := rkhsExpansion(t, f1, r)
	p2, c2 := rkhsExpansion(t, f2, r)
	pts := append(append([]float64(nil), p1...), p2...)
	coef := append([]float64(nil), c1...)
	for _, v := range c2 {
		coef = append(coef, -v)
	}
	return rkhsNorm(r, pts, coef) / r.Delta
}

// scenario draws a neighbouring pair: random data (sometimes stacked on a
// corner or all one class), replacement uniform, at a corner, at the
// opposite corner of the replaced record, identical, a small move, or the
// same point with the label flipped.
func (c rkhsAuditCase) scenario(rng *rand.Rand) rkhsPair {
	ns := []int{1, 2, 3, 5, 8, 13, 30, 50}
	n, dim := ns[rng.IntN(len(ns))], c.dim
	d := Dataset{Dim: dim, X: make([]float64, n*dim)}
	corner := func() []float64 {
		x := make([]float64, dim)
		for j := range x {
			x[j] = float64(rng.IntN(2))
		}
		return x
	}
	stack := rng.IntN(4) == 0
	spot := corner()
	for i := range n {
		for j := range dim {
			if stack {
				d.X[i*dim+j] = spot[j]
			} else {
				d.X[i*dim+j] = rng.Float64()
			}
		}
	}
	if c.binary {
		d.Labels = make([]float64, n)
		one := rng.IntN(3) == 0
		for i := range d.Labels {
			if one || rng.IntN(2) == 0 {
				d.Labels[i] = 1
			} else {
				d.Labels[i] = -1
			}
		}
	}
	p := rkhsPair{d: d, i: rng.IntN(n)}
	old := d.X[p.i*dim : (p.i+1)*dim]
	p.x = make([]float64, dim)
	switch rng.IntN(6) {
	case 0:
		for j := range p.x {
			p.x[j] = rng.Float64()
		}
	case 1:
		p.x = corner()
	case 2: // opposite corner: put the replaced record on a corner first
		cr := corner()
		copy(old, cr)
		for j := range p.x {
			p.x[j] = 1 - cr[j]
		}
	case 3:
		copy(p.x, old)
	case 4:
		for j := range p.x {
			p.x[j] = clamp01(old[j] + 0.01*rng.NormFloat64())
		}
	case 5:
		copy(p.x, old)
	}
	if c.binary {
		p.label = d.Labels[p.i]
		if rng.IntN(2) == 0 {
			p.label = -p.label
		}
	}
	return p
}

// TestRKHSAudit searches neighbouring pairs and fails if ‖F_D − F_D′‖_H
// ever exceeds Δ_H (by more than rkhsAuditSlack); it then hill-climbs from
// the worst pair by moving the replacement record. Where the bound is
// attained (KDE: records at opposite corners; SVM with C ≤ 1: one label
// flipped at the same point) the search must come within 0.1 % of it.
func TestRKHSAudit(t *testing.T) {
	cases := []rkhsAuditCase{
		{learner: NewKDE(), kind: KindKDE, dim: 1, values: Values{"bandwidth": {0.05}}, pairs: 2000, attained: true},
		{learner: NewKDE(), kind: KindKDE, dim: 1, values: Values{"bandwidth": {1}}, pairs: 2000, attained: true},
		{learner: NewKDE(), kind: KindKDE, dim: 2, values: Values{"bandwidth": {0.3, 0.02}}, pairs: 2000, attained: true},
		{learner: NewKDE(), kind: KindKDE, dim: 3, values: Values{"bandwidth": {0.7, 0.5, 1}}, pairs: 2000, attained: true},
		{learner: NewSVM(), kind: KindSVM, dim: 1, values: Values{"C": {1}, "sigma": {1}, "intercept": {0}}, binary: true, pairs: 1500, attained: true},
		{learner: NewSVM(), kind: KindSVM, dim: 2, values: Values{"C": {0.5}, "sigma": {0.1}, "intercept": {0}}, binary: true, pairs: 1500, attained: true},
		{learner: NewSVM(), kind: KindSVM, dim: 1, values: Values{"C": {4}, "sigma": {0.2}, "intercept": {0}}, binary: true, pairs: 300},
		{learner: NewSVM(), kind: KindSVM, dim: 2, values: Values{"C": {20}, "sigma": {0.3}, "intercept": {0}}, binary: true, pairs: 300},
		{learner: NewSVM(), kind: KindSVM, dim: 3, values: Values{"C": {300}, "sigma": {0.5}, "intercept": {0}}, binary: true, pairs: 200},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s/dim=%d/%v", c.kind, c.dim, c.values), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(900+ci), 17))
			var worst rkhsPair
			maxRatio := -1.0
			rs := map[int]RKHSSensitivity{}
			sens := func(n int) RKHSSensitivity {
				if r, ok := rs[n]; ok {
					return r
				}
				r, err := RKHSPeer(c.kind, n, c.values, c.dim)
				if err != nil {
					t.Fatal(err)
				}
				rs[n] = r
				return r
			}
			check := func(p rkhsPair) float64 {
				ratio := c.ratio(t, p, sens(p.d.N()))
				if ratio > 1+rkhsAuditSlack {
					t.Fatalf("‖F_D − F_D′‖_H / Δ_H = %.12g > 1 for n = %d, record %d → %v (label %g)", ratio, p.d.N(), p.i, p.x, p.label)
				}
				return ratio
			}
			for range c.pairs {
				p := c.scenario(rng)
				if r := check(p); r > maxRatio {
					maxRatio, worst = r, p
				}
			}
			// Hill climb on the replacement record of the worst pair.
			step := 0.2
			for range 100 {
				q := worst
				q.x = append([]float64(nil), worst.x...)
				for j := range q.x {
					q.x[j] = clamp01(q.x[j] + step*rng.NormFloat64())
				}
				if r := check(q); r >= maxRatio {
					maxRatio, worst = r, q
				} else {
					step *= 0.97
				}
			}
			t.Logf("largest ‖F_D − F_D′‖_H / Δ_H = %.6f (n = %d)", maxRatio, worst.d.N())
			if c.attained && maxRatio < 0.999 {
				t.Errorf("largest ratio %.6f < 0.999: the search misses the attained worst case", maxRatio)
			}
		})
	}
}

// TestRKHSAuditDetectsTooSmallBound checks that the audit's norm would
// expose a bound 1 % too small: the KDE's opposite-corner pair reaches the
// bound exactly.
func TestRKHSAuditDetectsTooSmallBound(t *testing.T) {
	c := rkhsAuditCase{learner: NewKDE(), kind: KindKDE, dim: 2, values: Values{"bandwidth": {0.2, 0.4}}}
	r, err := RKHSPeer(KindKDE, 3, c.values, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := rkhsPair{d: Dataset{Dim: 2, X: []float64{0, 0, 0.5, 0.5, 0.3, 0.9}}, i: 0, x: []float64{1, 1}}
	r.Delta *= 0.99
	if ratio := c.ratio(t, p, r); !(ratio > 1) {
		t.Errorf("ratio %.6f against a bound 1 %% too small, want > 1", ratio)
	}
}
