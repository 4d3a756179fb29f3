package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2"
	"strings"
	"testing"
)

// momentsOf computes the ridge moments of d by plain summation, with the
// public error bound γ_n·n of an n-term sum of terms of magnitude ≤ 1.
func momentsOf(d Dataset) RidgeMoments {
	n, l := d.N(), d.Dim
	m := RidgeMoments{Dim: l, N: n, Records: int64(n), SumX: make([]float64, l), SumXY: make([]float64, l), SumXX: make([]float64, l*(l+1)/2)}
	for i := range n {
		x := d.X[i*l : (i+1)*l]
		y := d.Labels[i]
		p := 0
		for j := range l {
			m.SumX[j] += x[j]
			m.SumXY[j] += x[j] * y
			for k := j; k < l; k++ {
				m.SumXX[p] += x[j] * x[k]
				p++
			}
		}
		m.SumY += y
	}
	m.SumError = ermGamma(n+1) * float64(n)
	return m
}

// TestRidgeMomentsSameFit checks that ridge regression from sufficient
// statistics gives the in-memory fit: the same S, note, range and stand-in,
// and the same released function to 1e-9 relative (of the range), over
// dimensions 1…6 and C from 0.01 to 100.
func TestRidgeMomentsSameFit(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 2))
	for _, dim := range []int{1, 2, 3, 6} {
		for _, c := range []float64{0.01, 1, 100} {
			t.Run(fmt.Sprintf("dim=%d/C=%g", dim, c), func(t *testing.T) {
				data := randomDataset(r, 700, dim, LabelReal)
				for i := range data.N() { // a linear signal, so the fit is not trivial
					data.Labels[i] = math.Max(-1, math.Min(1, 0.8*data.X[i*dim]-0.3+0.2*(2*r.Float64()-1)))
				}
				vals := Values{"C": {c}}
				mem, err := NewRidge().Fit(context.Background(), data, vals)
				if err != nil {
					t.Fatal(err)
				}
				agg, err := FitRidgeMoments(context.Background(), momentsOf(data), vals)
				if err != nil {
					t.Fatal(err)
				}
				if agg.Sensitivity != mem.Sensitivity || agg.OutputRange != mem.OutputRange || agg.N != mem.N {
					t.Errorf("moments: S %v range %v n %d; in memory %v %v %d", agg.Sensitivity, agg.OutputRange, agg.N, mem.Sensitivity, mem.OutputRange, mem.N)
				}
				if fmt.Sprint(agg.StandIn) != fmt.Sprint(mem.StandIn) {
					t.Errorf("stand-in %+v, in memory %+v", agg.StandIn, mem.StandIn)
				}
				scale := mem.OutputRange[1]
				for range 50 {
					y := make([]float64, dim)
					for j := range y {
						y[j] = r.Float64()
					}
					a, b := agg.Oracle.Eval(y), mem.Oracle.Eval(y)
					if math.Abs(a-b) > 1e-9*scale {
						t.Fatalf("F(%v): moments %v, in memory %v (difference %.3g of the range)", y, a, b, math.Abs(a-b)/scale)
					}
				}
				wa, wm := agg.Oracle.(*ermLinearOracle).w, mem.Oracle.(*ermLinearOracle).w
				for j := range wa {
					if math.Abs(wa[j]-wm[j]) > 1e-9*math.Max(1, math.Abs(wm[j])) {
						t.Errorf("w[%d]: moments %v, in memory %v", j, wa[j], wm[j])
					}
				}
			})
		}
	}
}

// TestRidgeMomentsFallbackWithinRadius runs the public gradient-descent
// fallback on the moments and checks it lands within its a-priori radius
// (plus the certified tolerance) of the certified solution, and that the
// radius does not exceed τ, so S is unchanged.
func TestRidgeMomentsFallbackWithinRadius(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 3))
	for _, c := range []float64{0.1, 1, 30} {
		data := randomDataset(r, 400, 3, LabelReal)
		m := momentsOf(data)
		stab, tau, wStar := ridgeBounds(m.N, c)
		_ = stab
		plan := ridgePlan(m.Dim, c, wStar, tau)
		q := newRidgeMomentProblem(m, c)
		w, cert, err := q.solve(context.Background(), tau)
		if err != nil || cert > tau {
			t.Fatalf("C=%g: solve: cert %v > τ %v or %v", c, cert, tau, err)
		}
		rad := q.gdRadius(plan, wStar)
		if rad > tau {
			t.Errorf("C=%g: fallback radius %v exceeds τ = %v: S would change", c, rad, tau)
		}
		gd, err := q.gradientDescent(context.Background(), plan)
		if err != nil {
			t.Fatal(err)
		}
		var d2 float64
		for j := range w {
			d2 += (gd[j] - w[j]) * (gd[j] - w[j])
		}
		if math.Sqrt(d2) > rad+tau {
			t.Errorf("C=%g: fallback %v is %v from the certified %v; radius %v + τ %v", c, gd, math.Sqrt(d2), w, rad, tau)
		}
	}
}

func TestRidgeMomentsRefusals(t *testing.T) {
	data := randomDataset(rand.New(rand.NewPCG(1, 1)), 10, 2, LabelReal)
	ok := momentsOf(data)
	for _, tc := range []struct {
		edit func(*RidgeMoments)
		want string
	}{
		{func(m *RidgeMoments) { m.N = 11 }, "the aggregates count 10 records but the declared n is 11"},
		{func(m *RidgeMoments) { m.SumXX = m.SumXX[:2] }, "wrong size"},
		{func(m *RidgeMoments) { m.SumY = math.NaN() }, "not a finite number"},
		{func(m *RidgeMoments) { m.SumError = -1 }, "sum error bound"},
		{func(m *RidgeMoments) { m.Dim = 7 }, "feature columns"},
	} {
		m := ok
		tc.edit(&m)
		if _, err := FitRidgeMoments(context.Background(), m, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitRidgeMoments = %v, want an error containing %q", err, tc.want)
		}
	}
}
