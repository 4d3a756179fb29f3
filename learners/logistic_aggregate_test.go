package learners

import (
	"context"
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test data only
	"strings"
	"testing"
)

// memPasser is an in-memory LogisticPasser: it computes a pass's sums from
// the records of a Dataset in Go, with the SQL query's formulas (the
// margin in mapped units, ψ and h from e = exp(−|m|)), and counts passes.
type memPasser struct {
	d      Dataset
	passes int
	fail   error // returned by every pass if set
}

func (m *memPasser) Pass(ctx context.Context, c LogisticCoef) (LogisticSums, error) {
	m.passes++
	if m.fail != nil {
		return LogisticSums{}, m.fail
	}
	dim := m.d.Dim
	s := LogisticSums{Records: int64(m.d.N()), G: make([]float64, dim+1), H: make([]float64, dim+1), HXX: make([]float64, dim*(dim+1)/2)}
	g := make([]ermSum, dim+1)
	for i := range m.d.N() {
		x := m.d.X[i*dim : (i+1)*dim]
		l := m.d.Labels[i]
		z := c.A0
		for j, v := range x {
			z += c.A[j] * v
		}
		mg := l * z
		e := math.Exp(math.Max(-math.Abs(mg), -700))
		sig := 1 / (1 + e) // σ(−m) for m < 0
		if mg >= 0 {
			sig = e / (1 + e)
		}
		psi, h := -l*sig, e/((1+e)*(1+e))
		g[0].add(psi)
		s.H[0] += h
		k := 0
		for j, v := range x {
			g[j+1].add(psi * v)
			s.H[j+1] += h * v
			for jj := j; jj < dim; jj++ {
				s.HXX[k] += h * v * x[jj]
				k++
			}
		}
	}
	for j := range g {
		s.G[j] = g[j].value()
	}
	return s, nil
}

// TermError: the margin (ℓ+1 operations), exp and the division (≤ 16u
// together here, libm), the product, and the compensated sum (≤ 3u per term).
func (m *memPasser) TermError(a float64) float64 {
	return 0.25*ermGamma(m.d.Dim+2)*a + 32*ermRoundoff
}

// logisticAggData is a dataset with a linear signal (so the fit is not
// trivial) and some label noise.
func logisticAggData(r *rand.Rand, n, dim int) Dataset {
	d := randomDataset(r, n, dim, LabelBinary)
	for i := range n {
		z := 3*d.X[i*dim] - 1.5 + 0.8*(2*r.Float64()-1)
		if dim > 1 {
			z -= 2 * (d.X[i*dim+1] - 0.5)
		}
		d.Labels[i] = 1
		if z < 0 {
			d.Labels[i] = -1
		}
	}
	return d
}

// TestLogisticAggregatesSameFit: on the same records, the fit from passes
// and the in-memory fit are both within r of w* (r = τ here: no fallback
// radius exceeds it), so their scores differ by at most 2τ at every query
// (‖ỹ‖ ≤ 1), and S, the range, n and the stand-in are identical.
func TestLogisticAggregatesSameFit(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 7))
	for _, dim := range []int{1, 2, 3, 6} {
		for _, tc := range []struct{ c, b, out float64 }{{0.1, 1, 0}, {1, 1, 1}, {10, 0, 0}, {100, 2.5, 0}} {
			t.Run(fmt.Sprintf("dim=%d/C=%g/b=%g/output=%g", dim, tc.c, tc.b, tc.out), func(t *testing.T) {
				data := logisticAggData(r, 600, dim)
				vals := Values{"C": {tc.c}, "intercept": {tc.b}, "output": {tc.out}}
				mem, err := NewLogistic().Fit(context.Background(), data, vals)
				if err != nil {
					t.Fatal(err)
				}
				p := &memPasser{d: data}
				agg, err := FitLogisticAggregates(context.Background(), LogisticAggregates{Dim: dim, N: data.N()}, p, vals)
				if err != nil {
					t.Fatal(err)
				}
				if agg.Sensitivity != mem.Sensitivity || agg.OutputRange != mem.OutputRange || agg.N != mem.N {
					t.Errorf("aggregates: S %v range %v n %d; in memory %v %v %d", agg.Sensitivity, agg.OutputRange, agg.N, mem.Sensitivity, mem.OutputRange, mem.N)
				}
				if fmt.Sprint(agg.StandIn) != fmt.Sprint(mem.StandIn) {
					t.Errorf("stand-in %+v, in memory %+v", agg.StandIn, mem.StandIn)
				}
				if p.passes >= logisticAggNewtonPasses {
					t.Errorf("%d passes: Newton did not certify within its budget", p.passes)
				}
				_, tau, _ := logisticBounds(data.N(), tc.c)
				worst := 0.0
				for range 100 {
					y := make([]float64, dim)
					for j := range y {
						y[j] = r.Float64()
					}
					worst = math.Max(worst, math.Abs(agg.Oracle.Eval(y)-mem.Oracle.Eval(y)))
				}
				if worst > 2*tau {
					t.Errorf("max |F_agg − F_mem| = %.3g > 2τ = %.3g", worst, 2*tau)
				}
				t.Logf("%d passes; max |F_agg − F_mem| = %.3g (2τ = %.3g)", p.passes, worst, 2*tau)
			})
		}
	}
}

// TestLogisticAggregatesFallbackWithinRadius forces the public gradient
// fallback (no Newton pass) and checks that it runs exactly the plan's
// public number of passes and lands within its radius (+ τ) of the
// certified fit, and that the radius does not exceed τ (S unchanged).
func TestLogisticAggregatesFallbackWithinRadius(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 8))
	saved := logisticAggNewtonPasses
	defer func() { logisticAggNewtonPasses = saved }()
	for _, c := range []float64{0.1, 1, 30} {
		data := logisticAggData(r, 300, 2)
		vals := Values{"C": {c}}
		logisticAggNewtonPasses = saved
		cert, err := FitLogisticAggregates(context.Background(), LogisticAggregates{Dim: 2, N: data.N()}, &memPasser{d: data}, vals)
		if err != nil {
			t.Fatal(err)
		}
		logisticAggNewtonPasses = 0
		p := &memPasser{d: data}
		gd, err := FitLogisticAggregates(context.Background(), LogisticAggregates{Dim: 2, N: data.N()}, p, vals)
		if err != nil {
			t.Fatal(err)
		}
		_, tau, wStar := logisticBounds(data.N(), c)
		plan := logisticPlan(2, c, wStar, tau)
		q := &logisticAggProblem{dim: 2, p: 3, n: float64(data.N()), c: c, b: 1, passer: p}
		rad := q.gdRadius(plan, wStar)
		if rad > tau {
			t.Errorf("C=%g: fallback radius %v exceeds τ = %v: S would change", c, rad, tau)
		}
		if p.passes != plan.iters {
			t.Errorf("C=%g: fallback ran %d passes, the public plan has %d", c, p.passes, plan.iters)
		}
		wc, wg := cert.Oracle.(*ermLinearOracle).w, gd.Oracle.(*ermLinearOracle).w
		var d2 float64
		for j := range wc {
			d2 += (wc[j] - wg[j]) * (wc[j] - wg[j])
		}
		if math.Sqrt(d2) > rad+tau {
			t.Errorf("C=%g: fallback is %v from the certified fit; radius %v + τ %v", c, math.Sqrt(d2), rad, tau)
		}
		if gd.Sensitivity != cert.Sensitivity || gd.SensitivityNote != cert.SensitivityNote {
			t.Errorf("C=%g: the fallback changed S or the note (public): %v %q, %v %q", c, gd.Sensitivity, gd.SensitivityNote, cert.Sensitivity, cert.SensitivityNote)
		}
	}
}

// badPasser returns sums edited by edit.
type badPasser struct {
	memPasser
	edit func(*LogisticSums)
}

func (b *badPasser) Pass(ctx context.Context, c LogisticCoef) (LogisticSums, error) {
	s, err := b.memPasser.Pass(ctx, c)
	b.edit(&s)
	return s, err
}

func TestLogisticAggregatesRefusals(t *testing.T) {
	data := logisticAggData(rand.New(rand.NewPCG(1, 1)), 10, 2)
	agg := LogisticAggregates{Dim: 2, N: 10}
	boom := errors.New("engine failed")
	for _, tc := range []struct {
		agg  LogisticAggregates
		p    LogisticPasser
		want string
	}{
		{LogisticAggregates{Dim: 2, N: 11}, &memPasser{d: data}, "the pass counted 10 records but the declared n is 11"},
		{LogisticAggregates{Dim: 7, N: 10}, &memPasser{d: data}, "feature columns"},
		{LogisticAggregates{Dim: 2, N: 0}, &memPasser{d: data}, "n = 0"},
		{agg, &memPasser{d: data, fail: boom}, "engine failed"},
		{agg, &badPasser{memPasser{d: data}, func(s *LogisticSums) { s.HXX = s.HXX[:1] }}, "wrong size"},
		{agg, &badPasser{memPasser{d: data}, func(s *LogisticSums) { s.G[1] = math.Inf(1) }}, "not a finite number"},
	} {
		if _, err := FitLogisticAggregates(context.Background(), tc.agg, tc.p, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitLogisticAggregates = %v, want an error containing %q", err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FitLogisticAggregates(ctx, agg, &memPasser{d: data}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
