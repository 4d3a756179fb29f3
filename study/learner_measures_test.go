package study

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// classThreshold is the class boundary of a classifier's output kind.
func classThreshold(k learners.OutputKind) float64 {
	if k == learners.OutputProbability {
		return 0.5
	}
	return 0
}

// TestLearnerMeasuresGolden: the preview's measures on the public tables
// of TestAutoKTable, from ONE Run per case (the same simulated releases):
// classifiers (breast cancer radius × texture, n = 569) get the agreement
// with the non-private classifier and the accuracy on the records beside
// the sup-norm error; regressions (diabetes bmi → target, n = 442) the
// RMSE. k is the automatic k at each ε, h = 1, 100 releases. The table is
// testdata/learner_measures.golden. Checks beside the golden file: RMSE ≤
// sup error; at ε = 10⁹ with the k of ε = 3 (noise negligible) the
// agreement and accuracy are those of the noiseless polynomial
// mechanism.NewPolynomial builds from F_D on the lattice, evaluated at the
// records (to one record: rounding at the threshold). Deterministic
// (seeded): the false-failure rate is 0.
func TestLearnerMeasuresGolden(t *testing.T) {
	var b strings.Builder
	fmt.Fprintln(&b, "case\tε\tk\tsup\trmse\tagreement\taccuracy\tnon-private accuracy")
	for _, c := range autokCases(t) {
		l, err := learners.Lookup(c.kind)
		if err != nil {
			t.Fatal(err)
		}
		spec := l.Spec()
		if spec.Label == learners.LabelNone {
			continue
		}
		fit, err := l.Fit(context.Background(), c.data, c.values)
		if err != nil {
			t.Fatal(err)
		}
		kind := spec.Output.Kind
		if fit.Output.Kind != "" {
			kind = fit.Output.Kind
		}
		classifier := spec.Label == learners.LabelBinary
		dim := c.data.Dim
		grid := make([][]float64, dim)
		for j := range grid {
			grid[j] = Linspace01(map[int]int{1: 201, 2: 41}[dim])
		}
		truth, err := EvalGrid(context.Background(), fit.Oracle, grid, nil)
		if err != nil {
			t.Fatal(err)
		}
		ptruth, err := EvalPoints(context.Background(), fit.Oracle, c.data.X, dim)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, eps := range []float64{0.3, 1, 3, 1e9} {
			p := mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1, K: []int{1}}
			if eps < 1e9 {
				k = mechanism.AutoCoverSize(p, 1, dim, fit.Sensitivity, mechanism.DefaultBeta, fit.StandIn)
			}
			K := make([]int, dim)
			for j := range K {
				K[j] = k
			}
			exact, err := oracleLattice(fit.Oracle)(context.Background(), K)
			if err != nil {
				t.Fatal(err)
			}
			md, err := NewModel(K, exact, grid, truth, []int{1})
			if err != nil {
				t.Fatal(err)
			}
			sp := Spec{Sensitivity: fit.Sensitivity, Noise: mechanism.NoiseLaplace, Epsilons: []float64{eps}, Orders: []int{1},
				Repeats: 100, Draws: PerRepeat{Seed: 20170204}, Also: []Measure{RMSError}}
			var pts *Points
			if classifier {
				sp.Threshold = classThreshold(kind)
				if pts, err = md.AtPoints(PointData{X: c.data.X, Truth: ptruth, Labels: c.data.Labels}); err != nil {
					t.Fatal(err)
				}
				sp.Points = pts
				sp.Also = append(sp.Also, PointAgreement, PointAccuracy)
			}
			res, err := md.Run(context.Background(), sp, nil)
			if err != nil {
				t.Fatal(err)
			}
			sup, rmse := res.Mean[0][0], res.Also[0][0][0]
			if rmse > sup*(1+1e-12) {
				t.Errorf("%s ε = %g: RMSE %g above the sup error %g", c.name, eps, rmse, sup)
			}
			agree, acc, npAcc := "-", "-", "-"
			if classifier {
				a, r, np := res.Also[1][0][0], res.Also[2][0][0], pts.NonPrivateAccuracy(sp.Threshold)
				agree, acc, npAcc = fmt.Sprintf("%.4f", a), fmt.Sprintf("%.4f", r), fmt.Sprintf("%.4f", np)
				if eps == 1e9 {
					wa, wr := noiselessShares(t, K, exact, c.data, ptruth, sp.Threshold)
					if tol := 1 / float64(len(ptruth)); math.Abs(a-wa) > tol || math.Abs(r-wr) > tol {
						t.Errorf("%s at ε = 10⁹: agreement %.4f, accuracy %.4f; want the noiseless polynomial's %.4f, %.4f", c.name, a, r, wa, wr)
					}
				}
			}
			fmt.Fprintf(&b, "%s\t%g\t%d\t%.5g\t%.5g\t%s\t%s\t%s\n", c.name, eps, k, sup, rmse, agree, acc, npAcc)
		}
	}
	checkGolden(t, "learner_measures.golden", b.String())
}

// noiselessShares returns the agreement with F_D (ptruth) and the accuracy
// on the records of the noiseless polynomial of order 1 over exact.
func noiselessShares(t *testing.T, k []int, exact []float64, d learners.Dataset, ptruth []float64, thr float64) (agree, acc float64) {
	t.Helper()
	p, err := mechanism.NewPolynomial(k, 1, exact)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range ptruth {
		v, err := p.Eval(d.X[i*d.Dim : (i+1)*d.Dim])
		if err != nil {
			t.Fatal(err)
		}
		if (v >= thr) == (f >= thr) {
			agree++
		}
		if (v >= thr) == (d.Labels[i] > 0) {
			acc++
		}
	}
	n := float64(len(ptruth))
	return agree / n, acc / n
}
