package study

import (
	"context"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// checkGolden compares got with testdata/name (rewritten with -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// randomPoints returns n seeded points in [0,1]^dim and ±1 labels.
func randomPoints(n, dim int, seed uint64) (x, labels []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for range n * dim {
		x = append(x, rng.Float64())
	}
	for range n {
		l := -1.0
		if rng.Float64() < 0.6 {
			l = 1
		}
		labels = append(labels, l)
	}
	return x, labels
}

// TestPointMeasuresMatchSimulate checks every measure of one Run (sup
// error, RMSE, agreement on the grid and at points, accuracy; orders and
// the baseline) against polynomials mechanism.Simulate builds from the
// same seeded draws, evaluated on the grid and at the points. Tolerances:
// errors 1e-9 relative; a share of points may differ by one point per
// repeat (a release within rounding of the threshold), i.e. 1/points.
func TestPointMeasuresMatchSimulate(t *testing.T) {
	f := func(y []float64) float64 { return smooth2D(y) - 0.5 }
	grid := [][]float64{Linspace01(19), Linspace01(13)}
	k := []int{6, 5}
	orders := []int{1, 3}
	md, exact := testModel(t, f, k, orders, grid)
	truth := evalOnGridNaive(f, grid)
	x, labels := randomPoints(57, 2, 4)
	x[0], x[1] = 1, 0 // the corners are valid points
	ptruth, err := EvalPoints(context.Background(), funcOracle{2, f}, x, 2)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := md.AtPoints(PointData{X: x, Truth: ptruth, Labels: labels})
	if err != nil {
		t.Fatal(err)
	}
	const S, thr, repeats, seed = 0.02, 0.1, 3, 31
	eps := []float64{0.3, 3}
	also := []Measure{RMSError, SignAgreement, PointAgreement, PointAccuracy}
	res, err := md.Run(context.Background(), Spec{Sensitivity: S, Noise: mechanism.NoiseLaplace, Epsilons: eps, Orders: orders,
		Baseline: true, Repeats: repeats, Draws: PerRepeat{Seed: seed}, Measure: SupError, Also: also, Threshold: thr, Points: pts}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Also) != len(also) || len(res.AlsoBaseline) != len(also) {
		t.Fatalf("%d extra measures, %d baselines: want %d", len(res.Also), len(res.AlsoBaseline), len(also))
	}
	share := func(n, of int) float64 { return float64(n) / float64(of) }
	for i, e := range eps {
		for o, h := range orders {
			var want [5]float64 // sup, rmse, grid agreement, point agreement, accuracy
			var base [5]float64
			for r := range repeats {
				sim, err := mechanism.Simulate(exact, S, mechanism.Params{Epsilon: e, Noise: mechanism.NoiseLaplace, K: k, H: h},
					mechanism.NewSimulationNoise(RepeatSeed(seed, r)))
				if err != nil {
					t.Fatal(err)
				}
				vals, err := sim.EvalGrid(grid)
				if err != nil {
					t.Fatal(err)
				}
				sup, ss, agree := 0.0, 0.0, 0
				for g, v := range vals {
					sup = math.Max(sup, math.Abs(truth[g]-v))
					ss += (truth[g] - v) * (truth[g] - v)
					if (v >= thr) == (truth[g] >= thr) {
						agree++
					}
				}
				pa, acc, bpa, bacc := 0, 0, 0, 0
				for p := range ptruth {
					v, err := sim.Eval(x[2*p : 2*p+2])
					if err != nil {
						t.Fatal(err)
					}
					bv, err := sim.EvalNearest(x[2*p : 2*p+2])
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						v         float64
						pa, accur *int
					}{{v, &pa, &acc}, {bv, &bpa, &bacc}} {
						if (c.v >= thr) == (ptruth[p] >= thr) {
							*c.pa++
						}
						if (c.v >= thr) == (labels[p] > 0) {
							*c.accur++
						}
					}
				}
				r := [5]float64{sup, math.Sqrt(ss / float64(len(vals))), share(agree, len(vals)), share(pa, len(ptruth)), share(acc, len(ptruth))}
				for m := range want {
					want[m] += r[m] / repeats
				}
				base[3] += share(bpa, len(ptruth)) / repeats
				base[4] += share(bacc, len(ptruth)) / repeats
			}
			got := [5]float64{res.Mean[o][i], res.Also[0][o][i], res.Also[1][o][i], res.Also[2][o][i], res.Also[3][o][i]}
			tol := [5]float64{1e-9 * want[0], 1e-9 * want[1], 1.0 / float64(len(truth)), 1.0 / float64(len(ptruth)), 1.0 / float64(len(ptruth))}
			for m := range got {
				if math.Abs(got[m]-want[m]) > tol[m] {
					t.Errorf("h = %d, ε = %g, measure %d: %v, want %v (mechanism.Simulate)", h, e, m, got[m], want[m])
				}
			}
			if o == 0 {
				for m := 3; m < 5; m++ {
					if got := res.AlsoBaseline[m-1][i]; math.Abs(got-base[m]) > 1.0/float64(len(ptruth)) {
						t.Errorf("baseline, ε = %g, measure %d: %v, want %v", e, m, got, base[m])
					}
				}
			}
		}
	}
	// The non-private classifier's accuracy: the same count on F_D itself.
	n := 0
	for p, v := range ptruth {
		if (v >= thr) == (labels[p] > 0) {
			n++
		}
	}
	if got, want := pts.NonPrivateAccuracy(thr), share(n, len(ptruth)); got != want {
		t.Errorf("non-private accuracy %v, want %v", got, want)
	}
}

// TestMeasureErrors: misuse of the measures is an error naming the rule.
func TestMeasureErrors(t *testing.T) {
	grid := [][]float64{Linspace01(9)}
	f := func(y []float64) float64 { return y[0] - 0.5 }
	md, _ := testModel(t, f, []int{4}, []int{1}, grid)
	other, _ := testModel(t, f, []int{4}, []int{1}, grid)
	x := []float64{0.1, 0.5, 0.9}
	truth := []float64{-0.4, 0, 0.4}
	pts, err := md.AtPoints(PointData{X: x, Truth: truth})
	if err != nil {
		t.Fatal(err)
	}
	otherPts, err := other.AtPoints(PointData{X: x, Truth: truth, Labels: []float64{1, -1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	base := Spec{Sensitivity: 0.1, Noise: mechanism.NoiseLaplace, Epsilons: []float64{1}, Orders: []int{1}, Repeats: 2}
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"point measure without points", func(s *Spec) { s.Also = []Measure{PointAgreement} }, "needs Spec.Points"},
		{"points of another model", func(s *Spec) { s.Measure, s.Points = PointAgreement, otherPts }, "this model's AtPoints"},
		{"accuracy without labels", func(s *Spec) { s.Also, s.Points = []Measure{PointAccuracy}, pts }, "labels"},
		{"NaN threshold", func(s *Spec) { s.Threshold = math.NaN() }, "threshold"},
		{"unknown measure", func(s *Spec) { s.Also = []Measure{Measure(42)} }, "unknown measure 42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := base
			tc.edit(&sp)
			_, err := md.Run(context.Background(), sp, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v: want one containing %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		d    PointData
		want string
	}{
		{"no points", PointData{}, "between 1 and"},
		{"coordinate outside [0,1]", PointData{X: []float64{1.5}, Truth: []float64{0}}, "must be in [0, 1]"},
		{"NaN coordinate", PointData{X: []float64{math.NaN()}, Truth: []float64{0}}, "must be in [0, 1]"},
		{"truth length", PointData{X: x, Truth: truth[:2]}, "2 values of F_D for 3 points"},
		{"truth not finite", PointData{X: x, Truth: []float64{0, math.Inf(1), 0}}, "must be finite"},
		{"labels length", PointData{X: x, Truth: truth, Labels: []float64{1}}, "1 labels for 3 points"},
		{"too many points", PointData{X: make([]float64, MaxPoints+1), Truth: make([]float64, MaxPoints+1)}, "Thin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := md.AtPoints(tc.d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v: want one containing %q", err, tc.want)
			}
		})
	}
	if got := pts.NonPrivateAccuracy(0); !math.IsNaN(got) {
		t.Errorf("accuracy without labels %v, want NaN", got)
	}
	if _, err := EvalPoints(context.Background(), funcOracle{2, smooth2D}, []float64{0.5, 0.5, 0.5}, 2); err == nil {
		t.Error("EvalPoints accepted 3 coordinates in 2 dimensions")
	}
}

// TestThin: every row up to the limit, else evenly spread rows chosen by
// index alone.
func TestThin(t *testing.T) {
	x := []float64{0, 0.1, 1, 1.1, 2, 2.1, 3, 3.1, 4, 4.1}
	labels := []float64{0, 1, 2, 3, 4}
	for _, tc := range []struct {
		limit      int
		wantX      []float64
		wantLabels []float64
	}{
		{5, x, labels},
		{9, x, labels},
		{2, []float64{0, 0.1, 2, 2.1}, []float64{0, 2}},
		{3, []float64{0, 0.1, 1, 1.1, 3, 3.1}, []float64{0, 1, 3}},
	} {
		gx, gl := Thin(x, 2, labels, tc.limit)
		if !equalFloats(gx, tc.wantX) || !equalFloats(gl, tc.wantLabels) {
			t.Errorf("limit %d: %v %v, want %v %v", tc.limit, gx, gl, tc.wantX, tc.wantLabels)
		}
	}
	if _, gl := Thin(x, 2, nil, 2); gl != nil {
		t.Errorf("labels %v from nil, want nil", gl)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestUnits: errors in plot units and as a share of the range.
func TestUnits(t *testing.T) {
	density := Units{Scale: 1.0 / 50, Range: [2]float64{0, 4}} // bmi in [10, 60]: peak 4 in mapped units
	score := Units{Scale: 1, Range: [2]float64{-2, 2}}
	for _, tc := range []struct {
		name        string
		u           Units
		err         float64
		plot, share float64
	}{
		{"density 3.31 mapped is 0.0662 per kg/m²", density, 3.31, 0.0662, 0.8275},
		{"density at its peak", density, 4, 0.08, 1},
		{"score", score, 1, 1, 0.25},
		{"regression: half the label range", Units{Scale: 200, Range: [2]float64{-1, 1}}, 0.1, 20, 0.05},
		{"negative scale counts by size", Units{Scale: -2, Range: [2]float64{0, 1}}, 0.5, 1, 0.5},
		{"empty range", Units{Scale: 1}, 1, 1, math.NaN()},
		{"infinite range", Units{Scale: 1, Range: [2]float64{0, math.Inf(1)}}, 1, 1, math.NaN()},
		{"NaN error", score, math.NaN(), math.NaN(), math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			near := func(a, b float64) bool {
				if math.IsNaN(b) {
					return math.IsNaN(a)
				}
				return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
			}
			if got := tc.u.Plot(tc.err); !near(got, tc.plot) {
				t.Errorf("Plot = %v, want %v", got, tc.plot)
			}
			if got := tc.u.Share(tc.err); !near(got, tc.share) {
				t.Errorf("Share = %v, want %v", got, tc.share)
			}
		})
	}
}

// TestNoBetterThanZero: the error of publishing zero and the predicate.
func TestNoBetterThanZero(t *testing.T) {
	if got := ZeroError([]float64{0.5, -3, 2}); got != 3 {
		t.Errorf("ZeroError = %v, want 3", got)
	}
	for _, tc := range []struct {
		err, zero float64
		want      bool
	}{
		{3, 3, true},
		{2.7, 3, true},   // within ZeroMargin
		{2.69, 3, false}, // just better
		{10, 3, true},
		{math.NaN(), 3, false},
		{1, 0, false},
	} {
		if got := NoBetterThanZero(tc.err, tc.zero); got != tc.want {
			t.Errorf("NoBetterThanZero(%v, %v) = %v, want %v", tc.err, tc.zero, got, tc.want)
		}
	}
	for _, tc := range []struct {
		errs []float64
		want bool
	}{
		{[]float64{5, 2.8, math.NaN()}, true},
		{[]float64{5, 2}, false},
		{[]float64{math.NaN()}, false},
		{nil, false},
	} {
		if got := AllNoBetterThanZero(tc.errs, 3); got != tc.want {
			t.Errorf("AllNoBetterThanZero(%v, 3) = %v, want %v", tc.errs, got, tc.want)
		}
	}
}

// BenchmarkTradeoffWithPoints is BenchmarkTradeoff with a classifier's
// measures: agreement and accuracy at 2,000 records
// beside the sup-norm error, on the same releases.
func BenchmarkTradeoffWithPoints(b *testing.B) {
	grid := [][]float64{Linspace01(100), Linspace01(100)}
	f := func(y []float64) float64 { return smooth2D(y) - 0.5 }
	md, _ := testModel(b, f, []int{20, 20}, []int{1, 2, 3, 4, 5}, grid)
	x, labels := randomPoints(2000, 2, 1)
	truth := make([]float64, 2000)
	for i := range truth {
		truth[i] = f(x[2*i : 2*i+2])
	}
	pts, err := md.AtPoints(PointData{X: x, Truth: truth, Labels: labels})
	if err != nil {
		b.Fatal(err)
	}
	sp := Spec{Sensitivity: 1e-4, Noise: mechanism.NoiseLaplace, Epsilons: []float64{0.0316, 0.1, 0.316, 1, 3.16, 10, 31.6}, Orders: []int{1, 2, 3, 4, 5},
		Baseline: true, Repeats: 200, Draws: PerRepeat{Seed: 1}, Also: []Measure{PointAgreement, PointAccuracy}, Points: pts}
	for b.Loop() {
		if _, err := md.Run(context.Background(), sp, nil); err != nil {
			b.Fatal(err)
		}
	}
}
