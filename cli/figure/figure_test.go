package figure

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/bernsteinrelease/bernstein/internal/anchor"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

var (
	regenFigure1 = flag.Bool("figure1.regen", false, "rewrite docs/reproduction/figure1.{csv,png} with the default protocol (1000 repeats)")
	regenFigure2 = flag.Bool("figure2.regen", false, "rewrite docs/reproduction/figure2.{csv,png} with the default protocol (100 repeats)")
)

// TestFigure1GPSeries checks the Hall et al. series: rows only for ε ≤ 1,
// errors exactly proportional to the noise scale √c(ε) ∝ 1/ε (common
// paths), and a plausible size. The noise at one grid point has standard
// deviation s = √c·√A; the sup of |G| over 1001 strongly correlated points
// (kernel width 0.05, i.e. about 20 correlation lengths) lies between the
// mean of one |N(0, s²)| (0.8·s) and the sup of 1001 independent ones
// (≈ 3.3·s); the mean of 200 such sups has a relative standard error of a
// few per cent, so [0.8 s, 4 s] cannot fail by chance.
func TestFigure1GPSeries(t *testing.T) {
	s, err := newFigure1Setup(context.Background(), DefaultBandwidth1)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.run(context.Background(), 200, 5)
	if err != nil {
		t.Fatal(err)
	}
	got := map[float64]float64{}
	for _, r := range rows {
		if r.Method == MethodGP {
			got[r.Epsilon] = r.MeanSupError
		}
	}
	if len(got) != 5 {
		t.Fatalf("GP rows for ε = %v, want the 5 values ≤ 1", got)
	}
	for eps, e := range got {
		if eps > 1 {
			t.Errorf("GP row for ε = %g > 1", eps)
		}
		if r := e * eps / got[1]; math.Abs(r-1) > 1e-12 {
			t.Errorf("ε = %g: error·ε / error(1) = %.15g, want 1", eps, r)
		}
	}
	x, _, err := dataset.DemoKDE1D(dataset.DemoKDE1DSeed).MapToUnit([]string{"x"}, []dataset.Bounds{{Lo: 0, Hi: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rk, err := learners.RKHSPeer(learners.KindKDE, len(x), learners.Values{"bandwidth": {DefaultBandwidth1}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	scale, err := peers.GPNoiseScale(rk.Delta, 1, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	sd := scale * math.Sqrt(rk.Amplitude)
	if e := got[1]; !(e > 0.8*sd && e < 4*sd) {
		t.Errorf("ε = 1: mean sup error %g outside [0.8, 4]·s, s = %g", e, sd)
	}
}

// TestFigure1Regenerate rewrites the committed figure with the defaults; it
// runs only with -figure1.regen.
func TestFigure1Regenerate(t *testing.T) {
	if !*regenFigure1 {
		t.Skip("pass -figure1.regen to rewrite docs/reproduction/figure1.{csv,png}")
	}
	cfg := Config1{Repeats: DefaultRepeats1, Bandwidth: DefaultBandwidth1, Seed: DefaultSeed1}
	paths, err := Write1(context.Background(), filepath.Join("..", "..", "docs", "reproduction"), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(paths)
}

// BenchmarkFigure1 measures the whole default protocol (fit, lattice and
// grid evaluation, peers' set-up, 1000 repeats × 7 ε × every series). It
// reports cpu-ms/op (all threads; the machine is shared) and, where
// python3 with numpy is installed, runs the numpy anchor
// (testdata/anchor_figure1.py: an independent implementation of the same
// protocol with numpy's generator) in the same run and reports its time
// per protocol (numpy-ms/op) and numpy-ratio = numpy / ours (> 1: we are
// faster). The anchor's means must agree with ours within 15 % for every
// series and ε (independent draws: the mean of 1000 sups has a relative
// standard error of at most a few per cent), which checks it computes the
// same protocol.
func BenchmarkFigure1(b *testing.B) {
	cfg := Config1{Repeats: DefaultRepeats1, Bandwidth: DefaultBandwidth1, Seed: DefaultSeed1}
	var rows []figure1Row
	cpu0, _ := anchor.CPUTime()
	for b.Loop() {
		var err error
		if rows, err = runFigure1(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if cpu1, ok := anchor.CPUTime(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
	py := anchor.Python()
	if py == "" {
		b.Log("no python3 with numpy (install python3-numpy): numpy anchor not run")
		return
	}
	dir := b.TempDir()
	x, params := figure1AnchorInputs(b)
	dataPath, paramsPath, outPath := filepath.Join(dir, "data"), filepath.Join(dir, "params"), filepath.Join(dir, "out")
	if err := anchor.WriteFloats(dataPath, x); err != nil {
		b.Fatal(err)
	}
	if err := anchor.WriteFloats(paramsPath, params); err != nil {
		b.Fatal(err)
	}
	fig, err := anchor.Run(py, filepath.Join("testdata", "anchor_figure1.py"), dataPath, paramsPath, strconv.Itoa(cfg.Repeats), "3", outPath)
	if err != nil {
		b.Fatal(err)
	}
	np, err := anchor.ReadFloats(outPath, len(figure1Epsilons)*figure1AnchorSeries)
	if err != nil {
		b.Fatal(err)
	}
	checkFigure1Anchor(b, rows, np)
	ms, ok := fig["ms_per_op"]
	if !ok {
		b.Fatal("numpy anchor printed no ms_per_op")
	}
	b.ReportMetric(ms, "numpy-ms/op")
	if cpu, ok := fig["cpu_ms_per_op"]; ok {
		b.ReportMetric(cpu, "numpy-cpu-ms/op")
	}
	b.ReportMetric(ms*1e6*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "numpy-ratio")
}

// figure1AnchorSeries is the number of series per ε in the anchor's
// output: h = 1..5, baseline, trig, histogram, GP, Gaussian h = 1..5,
// Laplace-approx h = 1..5.
const figure1AnchorSeries = 19

// figure1AnchorInputs returns the demo data in [0,1] and the anchor's
// parameters (see testdata/anchor_figure1.py): ε, b, the noise scales of
// every series per ε, the GP kernel and the Jackson multipliers.
func figure1AnchorInputs(b *testing.B) (x, params []float64) {
	x, _, err := dataset.DemoKDE1D(dataset.DemoKDE1DSeed).MapToUnit([]string{"x"}, []dataset.Bounds{{Lo: 0, Hi: 1}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := newFigure1Setup(context.Background(), DefaultBandwidth1)
	if err != nil {
		b.Fatal(err)
	}
	rk, err := learners.RKHSPeer(learners.KindKDE, len(x), learners.Values{"bandwidth": {DefaultBandwidth1}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	const delta = 1e-6
	params = append(slices.Clone(figure1Epsilons), DefaultBandwidth1)
	scale := func(f func(eps float64) (float64, error)) {
		for _, eps := range figure1Epsilons {
			v, err := f(eps)
			if err != nil {
				v = math.NaN()
			}
			params = append(params, v)
		}
	}
	for _, nd := range []struct {
		noise mechanism.NoiseKind
		delta float64
	}{{mechanism.NoiseLaplace, 0}, {mechanism.NoiseLaplaceApprox, delta}, {mechanism.NoiseGaussian, delta}} {
		scale(func(eps float64) (float64, error) {
			return mechanism.NoiseScale(s.Sensitivity, mechanism.Params{Epsilon: eps, Delta: nd.delta, Noise: nd.noise, K: []int{figure1K}, H: 1})
		})
	}
	scale(func(eps float64) (float64, error) { return peers.TrigNoiseScale(len(x), figure1K+1, eps) })
	scale(peers.HistogramNoiseScale)
	scale(func(eps float64) (float64, error) {
		if eps > peers.GPMaxEpsilon {
			return 0, fmt.Errorf("ε > 1")
		}
		return peers.GPNoiseScale(rk.Delta, eps, delta)
	})
	mu, err := peers.JacksonMultipliers(figure1K+1, 2)
	if err != nil {
		b.Fatal(err)
	}
	params = append(append(params, rk.Amplitude, rk.Sigmas[0]), mu...)
	return x, params
}

// checkFigure1Anchor fails b unless every mean of the anchor is within
// 15 % of ours (NaN where we have no row).
func checkFigure1Anchor(b *testing.B, rows []figure1Row, np []float64) {
	col := func(r figure1Row) int {
		switch r.Method {
		case MethodBernstein:
			return r.H - 1
		case MethodNearest:
			return 5
		case MethodTrig:
			return 6
		case MethodHistogram:
			return 7
		case MethodGP:
			return 8
		case MethodGaussian:
			return 8 + r.H
		case MethodLaplaceApprox:
			return 13 + r.H
		}
		b.Fatalf("unknown method %q", r.Method)
		return 0
	}
	seen := 0
	worst := 0.0
	for _, r := range rows {
		e := slices.Index(figure1Epsilons, r.Epsilon)
		v := np[e*figure1AnchorSeries+col(r)]
		d := math.Abs(v-r.MeanSupError) / r.MeanSupError
		if !(d <= 0.15) {
			b.Errorf("%s h = %d ε = %g: numpy %g, ours %g", r.Method, r.H, r.Epsilon, v, r.MeanSupError)
		}
		worst = math.Max(worst, d)
		seen++
	}
	if want := len(figure1Epsilons)*figure1AnchorSeries - 2; seen != want { // no GP rows for ε = 3, 10
		b.Errorf("%d rows compared, want %d", seen, want)
	}
	b.Logf("largest relative difference of the means, numpy vs ours: %.3f", worst)
}

// TestFigure2DeterministicBySeed: same seed, same rows; another seed,
// other rows (with 2 repeats, equal means across seeds would need equal
// noise draws).
func TestFigure2DeterministicBySeed(t *testing.T) {
	ctx := context.Background()
	setup, err := newFigure2Setup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64) string {
		res, err := simulateFigure2(ctx, setup, Config2{Repeats: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return string(figure2CSV(res.Rows))
	}
	a, b, c := run(7), run(7), run(8)
	if a != b {
		t.Errorf("seed 7 twice gave different CSVs:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave the same CSV")
	}
}

// TestFigure2Regenerate rewrites the committed figure with the defaults; it
// runs only with -figure2.regen.
func TestFigure2Regenerate(t *testing.T) {
	if !*regenFigure2 {
		t.Skip("pass -figure2.regen to rewrite docs/reproduction/figure2.{csv,png}")
	}
	cfg := Config2{Repeats: DefaultRepeats2, Seed: DefaultSeed2}
	paths, err := Write2(context.Background(), filepath.Join("..", "..", "docs", "reproduction"), cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(paths)
}
