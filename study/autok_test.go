package study

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The automatic cover size (mechanism.AutoK, fed by each learner's public
// stand-in) against the best k found by exhaustive simulation with this
// engine, on public and generated datasets (docs/reproduction.md, "The
// automatic cover size"). TestAutoKTable is opt-in (-autok.table, about a
// minute on two cores); TestAutoKDiabetesBMI is the case and runs
// always.

var autokTable = flag.Bool("autok.table", false, "print TestAutoKTable's table of the automatic k against the best k")

// autokCase is one learner on one dataset with public bounds.
type autokCase struct {
	name   string
	kind   learners.Kind
	values learners.Values
	data   learners.Dataset
}

// readAutoKCSV reads testdata/autok/name: a header line, then numbers.
func readAutoKCSV(t testing.TB, name string) [][]float64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "autok", name))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(raw))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cols := make([][]float64, len(recs[0]))
	for _, r := range recs[1:] {
		for j, s := range r {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cols[j] = append(cols[j], v)
		}
	}
	return cols
}

// mapTo01 maps x to [0,1] by the public bounds [lo, hi] (clipped).
func mapTo01(x []float64, lo, hi float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = min(max((v-lo)/(hi-lo), 0), 1)
	}
	return out
}

// interleave makes the row-major X of a dataset from mapped columns.
func interleave(cols ...[]float64) []float64 {
	var x []float64
	for i := range cols[0] {
		for _, c := range cols {
			x = append(x, c[i])
		}
	}
	return x
}

// autokCases returns the datasets × learners of the table. Public data:
// scikit-learn's bundled diabetes (n = 442), breast cancer (n = 569) and
// iris (n = 150) tables (testdata/autok, columns as named there); generated
// data: a bimodal density (n = 1000) and a sine regression (n = 500) from
// fixed seeds.
func autokCases(t testing.TB) []autokCase {
	dia := readAutoKCSV(t, "diabetes.csv")
	bc := readAutoKCSV(t, "breast_cancer.csv")
	iris := readAutoKCSV(t, "iris.csv")
	bmi := mapTo01(dia[0], 10, 60)
	target := mapTo01(dia[1], 0, 400)
	for i := range target {
		target[i] = 2*target[i] - 1
	}
	benign := make([]float64, len(bc[2]))
	for i, v := range bc[2] {
		benign[i] = 2*v - 1
	}
	bcX := interleave(mapTo01(bc[0], 5, 30), mapTo01(bc[1], 5, 40))
	rng := rand.New(rand.NewPCG(17, 8))
	var bimodal []float64
	for range 1000 {
		c := 0.3
		if rng.Float64() < 0.4 {
			c = 0.7
		}
		bimodal = append(bimodal, min(max(c+0.06*rng.NormFloat64(), 0), 1))
	}
	var sx, sy []float64
	for range 500 {
		x := rng.Float64()
		sx = append(sx, x)
		sy = append(sy, min(max(0.6*math.Sin(2*math.Pi*x)+0.2*rng.NormFloat64(), -1), 1))
	}
	one := func(x []float64, labels []float64) learners.Dataset {
		return learners.Dataset{Dim: 1, X: x, Labels: labels}
	}
	return []autokCase{
		{"kde diabetes bmi [10,60] b=0.05", learners.KindKDE, nil, one(bmi, nil)},
		{"kde iris petals [0,8]×[0,3] b=0.1", learners.KindKDE, learners.Values{"bandwidth": {0.1}},
			learners.Dataset{Dim: 2, X: interleave(mapTo01(iris[0], 0, 8), mapTo01(iris[1], 0, 3))}},
		{"kde iris petals b=0.05", learners.KindKDE, nil,
			learners.Dataset{Dim: 2, X: interleave(mapTo01(iris[0], 0, 8), mapTo01(iris[1], 0, 3))}},
		{"kde generated bimodal b=0.03", learners.KindKDE, learners.Values{"bandwidth": {0.03}}, one(bimodal, nil)},
		{"priestley-chao diabetes bmi→target [0,400]", learners.KindPriestleyChao, nil, one(bmi, target)},
		{"priestley-chao generated sine", learners.KindPriestleyChao, nil, one(sx, sy)},
		{"ridge diabetes bmi→target", learners.KindRidge, nil, one(bmi, target)},
		{"naive-bayes breast cancer radius,texture", learners.KindNaiveBayes, nil, learners.Dataset{Dim: 2, X: bcX, Labels: benign}},
		{"logistic (probability) breast cancer", learners.KindLogistic, learners.Values{"output": {1}}, learners.Dataset{Dim: 2, X: bcX, Labels: benign}},
		{"svm default σ=1 breast cancer", learners.KindSVM, nil, learners.Dataset{Dim: 2, X: bcX, Labels: benign}},
		{"logistic (score) breast cancer", learners.KindLogistic, nil, learners.Dataset{Dim: 2, X: bcX, Labels: benign}},
		{"svm σ=0.2 breast cancer", learners.KindSVM, learners.Values{"sigma": {0.2}}, learners.Dataset{Dim: 2, X: bcX, Labels: benign}},
	}
}

// autokRow is one (case, h, ε) of the table.
type autokRow struct {
	name           string
	h              int
	eps            float64
	autoK, bestK   int
	autoErr, best  float64
	ratio          float64
	paperK         int
	paperErr       float64
	candidateCount int
}

// autokEval simulates the mean sup-norm error (repeats releases, common
// draws) of every k in ks for every ε and order, and returns one row per
// (h, ε) with the automatic k (added to ks if missing) against the best.
func autokEval(t testing.TB, c autokCase, hs []int, epsilons []float64, ks []int, repeats int) []autokRow {
	t.Helper()
	ctx := context.Background()
	l, err := learners.Lookup(c.kind)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := l.Fit(ctx, c.data, c.values)
	if err != nil {
		t.Fatal(err)
	}
	dim := c.data.Dim
	gridN := map[int]int{1: 201, 2: 41}[dim]
	axes := make([][]float64, dim)
	for j := range axes {
		axes[j] = Linspace01(gridN)
	}
	truth, err := EvalGrid(ctx, fit.Oracle, axes, nil)
	if err != nil {
		t.Fatal(err)
	}
	// errs[h][k][ε index]
	errs := map[int]map[int][]float64{}
	for _, h := range hs {
		errs[h] = map[int][]float64{}
	}
	simulateK := func(k int) {
		if _, done := errs[hs[0]][k]; done {
			return
		}
		K := slices.Repeat([]int{k}, dim)
		lat, err := mechanism.NewLattice(K)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := mechanism.EvaluateLattice(ctx, fit.Oracle, lat, nil)
		if err != nil {
			t.Fatal(err)
		}
		md, err := NewModel(K, exact, axes, truth, hs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := md.Run(ctx, Spec{Sensitivity: fit.Sensitivity, Noise: mechanism.NoiseLaplace,
			Epsilons: epsilons, Orders: hs, Repeats: repeats, Draws: PerRepeat{Seed: 1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for o, h := range hs {
			errs[h][k] = res.Mean[o]
		}
	}
	var rows []autokRow
	for _, h := range hs {
		for i, eps := range epsilons {
			p := mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: h, K: []int{1}}
			ak, err := mechanism.AutoK(p, dim, fit.Sensitivity, fit.StandIn)
			if err != nil {
				t.Fatal(err)
			}
			pk := mechanism.OptimalK(eps, fit.Sensitivity, mechanism.DefaultBeta, h, dim)
			for _, k := range append(slices.Clone(ks), ak, pk) {
				simulateK(k)
			}
			row := autokRow{name: c.name, h: h, eps: eps, autoK: ak, paperK: pk, best: math.Inf(1)}
			for k, e := range errs[h] {
				if e[i] < row.best || (e[i] == row.best && k < row.bestK) {
					row.best, row.bestK = e[i], k
				}
			}
			row.candidateCount = len(errs[h])
			row.autoErr = errs[h][ak][i]
			row.paperErr = errs[h][pk][i]
			row.ratio = row.autoErr / row.best
			rows = append(rows, row)
		}
	}
	return rows
}

// autokKs are the k simulated exhaustively: every k up to 40 in one
// dimension (every k up to 24 in two), then steps up to 128 (64).
func autokKs(dim int) []int {
	var ks []int
	top, step := 40, []int{48, 56, 64, 80, 96, 112, 128}
	if dim == 2 {
		top, step = 24, []int{28, 32, 40, 48, 64}
	}
	for k := 1; k <= top; k++ {
		ks = append(ks, k)
	}
	return append(ks, step...)
}

// TestAutoKDiabetesBMI is the case of issue 17 item 8: KDE of bmi from the
// diabetes table (n = 442, bounds 10–60, bandwidth 0.05, h = 3, ε = 1),
// where the paper's k* = 2 had mean sup error 3.31 against 0.82 at k = 16.
// The automatic k must now be within 1.5× of the best k's error over
// k = 1..40 (200 simulated releases per k with common draws; the means at
// neighbouring k differ by far less than that margin, so the false-failure
// rate of the comparison is negligible: the draws are fixed by the seed and
// the test is deterministic).
func TestAutoKDiabetesBMI(t *testing.T) {
	c := autokCases(t)[0]
	var ks []int
	for k := 1; k <= 40; k += 3 {
		ks = append(ks, k)
	}
	rows := autokEval(t, c, []int{3}, []float64{1}, ks, 200)
	r := rows[0]
	t.Logf("auto k = %d (error %.3g), best k = %d (error %.3g), paper k* = %d (error %.3g)", r.autoK, r.autoErr, r.bestK, r.best, r.paperK, r.paperErr)
	if r.ratio > 1.5 {
		t.Errorf("auto k = %d: mean sup error %.3g is %.2f× the best (k = %d, %.3g); want ≤ 1.5×", r.autoK, r.autoErr, r.ratio, r.bestK, r.best)
	}
	if r.autoErr > 1.2 {
		t.Errorf("auto k = %d: mean sup error %.3g; want ≤ 1.2 (k = 16 reaches 0.82)", r.autoK, r.autoErr)
	}
}

// TestAutoKTable runs every case × h ∈ {1, 3} × ε ∈ {0.1, 0.3, 1, 3} and
// checks the goal of issue 17 item 8: the automatic k's mean sup error is
// within 1.5× of the best k's in the median and within 2× at worst. With
// -autok.table it also prints the table of docs/reproduction.md. The
// simulations are seeded, so the test is deterministic (false-failure
// rate 0).
func TestAutoKTable(t *testing.T) {
	epsilons := []float64{0.1, 0.3, 1, 3}
	var all []autokRow
	for _, c := range autokCases(t) {
		all = append(all, autokEval(t, c, []int{1, 3}, epsilons, autokKs(c.data.Dim), 200)...)
	}
	var b strings.Builder
	fmt.Fprintln(&b, "| case | h | ε | auto k | error | best k | best error | ratio | paper k* | its error |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|")
	ratios := make([]float64, len(all))
	for i, r := range all {
		ratios[i] = r.ratio
		fmt.Fprintf(&b, "| %s | %d | %g | %d | %.3g | %d | %.3g | %.2f | %d | %.3g |\n",
			r.name, r.h, r.eps, r.autoK, r.autoErr, r.bestK, r.best, r.ratio, r.paperK, r.paperErr)
	}
	sort.Float64s(ratios)
	med := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		med = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
	}
	fmt.Fprintf(&b, "\nmedian ratio %.3f, worst %.3f over %d rows\n", med, ratios[len(ratios)-1], len(ratios))
	if *autokTable {
		t.Log("\n" + b.String())
	}
	if med > 1.5 {
		t.Errorf("median ratio %.3f; want ≤ 1.5", med)
	}
	if w := ratios[len(ratios)-1]; w > 2 {
		t.Errorf("worst ratio %.3f; want ≤ 2", w)
	}
}
