package preview

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// twoClassKDE is a 2-D KDE request on the bundled two-class demo data
// (ℓ = 2, k = 20, the benchmark setting).
func twoClassKDE(eps float64) Input {
	return Input{Request: release.Request{
		Dataset: dataset.DemoTwoClass2D(1), Features: []string{"x1", "x2"},
		Bounds:  map[string]dataset.Bounds{"x1": {Lo: 0, Hi: 1}, "x2": {Lo: 0, Hi: 1}},
		Learner: learners.KindKDE,
		Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 3, K: []int{20}},
	}}
}

// TestPreviewEngineCaches: changing only ε reuses the fit, the lattice
// values and (within the same ε grid) the tradeoff curves — only the
// error-vs-k curve at the new ε is simulated, and it too is cached;
// changing a learner parameter refits.
func TestPreviewEngineCaches(t *testing.T) {
	e := NewEngine()
	var stages []Stage
	progress := func(s Stage, done, total int) {
		if len(stages) == 0 || stages[len(stages)-1] != s {
			stages = append(stages, s)
		}
	}
	first, err := e.Compute(context.Background(), twoClassKDE(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	prep := e.prep
	stages = nil
	second, err := e.Compute(context.Background(), twoClassKDE(2), func(s Stage, d, n int) { progress(s, d, n) })
	if err != nil {
		t.Fatal(err)
	}
	if e.prep != prep {
		t.Error("changing ε refitted the learner")
	}
	if len(stages) != 1 || stages[0] != StageSweep {
		t.Errorf("changing ε within the same ε grid reran %v; want everything cached but the error against k at the new ε", stages)
	}
	stages = nil
	if _, err := e.Compute(context.Background(), twoClassKDE(1), func(s Stage, d, n int) { progress(s, d, n) }); err != nil {
		t.Fatal(err)
	}
	if len(stages) != 0 {
		t.Errorf("back to ε = 1 reran %v; want everything cached", stages)
	}
	if second.Tradeoff.Curves[0].Y[0] != first.Tradeoff.Curves[0].Y[0] || second.MarkerErr >= first.MarkerErr {
		t.Errorf("curves should be identical and the marker error fall with ε: %v vs %v, marker %v vs %v",
			first.Tradeoff.Curves[0].Y[0], second.Tradeoff.Curves[0].Y[0], first.MarkerErr, second.MarkerErr)
	}
	in := twoClassKDE(2)
	in.Request.Params = learners.Values{"bandwidth": {0.08}}
	if _, err := e.Compute(context.Background(), in, nil); err != nil {
		t.Fatal(err)
	}
	if e.prep == prep {
		t.Error("changing the bandwidth did not refit")
	}
}

// TestPreviewEngineErrors: request errors come from release.Prepare and
// mechanism validation unchanged; cancellation returns context.Canceled.
func TestPreviewEngineErrors(t *testing.T) {
	e := NewEngine()
	in := twoClassKDE(1)
	delete(in.Request.Bounds, "x2")
	_, err := e.Compute(context.Background(), in, nil)
	var re *release.RequestError
	if !errors.As(err, &re) || re.Field != "bounds[x2]" {
		t.Errorf("missing bounds: %v, want a *release.RequestError for bounds[x2]", err)
	}
	in = twoClassKDE(1)
	in.Request.Privacy.Noise = mechanism.NoiseGaussian // needs δ
	_, err = e.Compute(context.Background(), in, nil)
	var pe *mechanism.ParamError
	if !errors.As(err, &pe) {
		t.Errorf("Gaussian noise without δ: %v, want a *mechanism.ParamError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewEngine().Compute(ctx, twoClassKDE(1), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled compute: %v, want context.Canceled", err)
	}
}

// BenchmarkPreviewEpsilonMove is what moving the ε slider costs with the
// fit, lattice and tradeoff curves cached (ℓ = 2, k = 20, 100×100 grid):
// the marker (200 simulated releases at one order), one simulated release
// on the grid, and drawing both plots at 640×420.
func BenchmarkPreviewEpsilonMove(b *testing.B) {
	e := NewEngine()
	if _, err := e.Compute(context.Background(), twoClassKDE(1), nil); err != nil {
		b.Fatal(err)
	}
	size := plotting.Size{W: 640, H: 420, Scale: 1}
	eps := []float64{1.1, 1.3, 1.5, 1.7}
	i := 0
	for b.Loop() {
		res, err := e.Compute(context.Background(), twoClassKDE(eps[i%len(eps)]), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Render(res, plotting.Light(), size, size); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkPreviewFirst is a full preview from scratch: fit (KDE, n =
// 3000), F_D on the lattice and the grid, the tradeoff curves and both plots.
func BenchmarkPreviewFirst(b *testing.B) {
	size := plotting.Size{W: 640, H: 420, Scale: 1}
	for b.Loop() {
		res, err := NewEngine().Compute(context.Background(), twoClassKDE(1), nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := Render(res, plotting.Light(), size, size); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPreviewTailBoundCurve: the tradeoff plot draws the proven 95% bound
// on the sup error for Laplace and for Gaussian noise, and the simulated
// mean error of the chosen order stays below it at every ε.
func TestPreviewTailBoundCurve(t *testing.T) {
	for _, noise := range []mechanism.NoiseKind{mechanism.NoiseLaplace, mechanism.NoiseGaussian} {
		t.Run(string(noise), func(t *testing.T) {
			in := kde1DInput(1)
			in.Peers = false
			in.Request.Privacy.Noise = noise
			if noise == mechanism.NoiseGaussian {
				in.Request.Privacy.Delta = 1e-6
			}
			res, err := NewEngine().Compute(context.Background(), in, nil)
			if err != nil {
				t.Fatal(err)
			}
			var bound, mean []float64
			for _, c := range res.Tradeoff.Curves {
				switch c.Label {
				case "95% bound (h = 2)":
					bound = c.Y
				case "Bernstein, h = 2":
					mean = c.Y
				}
			}
			if bound == nil || mean == nil {
				t.Fatalf("curves %v: want the 95%% bound and the h = 2 curve", res.Tradeoff.Curves)
			}
			for i, b := range bound {
				if !(b > mean[i]) {
					t.Errorf("ε = %g: bound %g ≤ simulated mean sup error %g", res.Tradeoff.Epsilons[i], b, mean[i])
				}
			}
		})
	}
}
func TestEpsilonGrid(t *testing.T) {
	for _, eps := range []float64{0.001, 0.05, 0.5, 1, 3, 40, 1000} {
		g := epsilonGrid(eps)
		if len(g) != 7 || !(g[0] <= eps && eps <= g[6]) {
			t.Errorf("ε = %g: grid %v does not cover it", eps, g)
		}
		for i := 1; i < len(g); i++ {
			if r := g[i] / g[i-1]; math.Abs(r-math.Sqrt(10)) > 1e-9 {
				t.Errorf("ε = %g: ratio %g between grid points, want √10", eps, r)
			}
		}
	}
	// Small moves keep the grid (only the marker moves).
	a, b := epsilonGrid(1.0), epsilonGrid(2.5)
	if a[0] != b[0] {
		t.Errorf("grid changed between ε = 1 and 2.5: %v vs %v", a, b)
	}
}

func TestTradeoffGrid(t *testing.T) {
	for dim, want := range map[int]int{1: 512, 2: 100, 3: 21, 4: 10, 5: 6, 6: 4} {
		g := tradeoffGrid(dim)
		if len(g) != dim || len(g[0]) != want || g[0][0] != 0 || g[0][want-1] != 1 {
			t.Errorf("dim %d: grid of %d axes × %d points, want %d points from 0 to 1", dim, len(g), len(g[0]), want)
		}
	}
}

// TestPreviewBinningBias: a KDE previewed from binned aggregates (B = 64,
// bandwidth 0.1, ℓ = 2) shows the binning bias in its error budget — the
// bound learners.KDEBinningBound as the other errors are written — and a
// KDE from the records shows no such line.
func TestPreviewBinningBias(t *testing.T) {
	const B = 64
	table := filepath.Join(t.TempDir(), "cells.csv")
	if err := os.WriteFile(table, []byte("bin_1,bin_2,records\n3,5,40\n30,31,50\n60,2,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bounds := map[string]dataset.Bounds{"x1": {Lo: 0, Hi: 1}, "x2": {Lo: 0, Hi: 1}}
	in := Input{Request: release.Request{
		Aggregates: &release.Aggregates{Path: table, Dialect: aggregate.DuckDB, Bins: B, N: 100, Dataset: "cells"},
		Features:   []string{"x1", "x2"}, Bounds: bounds,
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.1}},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, H: 1, K: []int{8}},
	}}
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "within " + res.ErrorText(learners.KDEBinningBound([]float64{0.1, 0.1}, B)) + " of the KDE of the records"
	i := slices.IndexFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "B = 64 per axis") })
	if i < 0 || !strings.Contains(res.Warnings[i], want) {
		t.Fatalf("no binning bias %q in the preview's lines %q", want, res.Warnings)
	}

	records := twoClassKDE(1)
	records.Request.Params = learners.Values{"bandwidth": {0.1}}
	res, err = NewEngine().Compute(context.Background(), records, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "Binned records") }) {
		t.Errorf("a release from the records shows a binning bias: %q", res.Warnings)
	}
}

// TestFitKeyNamesTheAggregateTable: two aggregate tables with the same
// settings, or one table rewritten in place, do not share a cached fit
// (issue 20: the key named only the settings, so a second table's preview
// showed the first table's fit within a session).
func TestFitKeyNamesTheAggregateTable(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("x_bin,records\n1,5\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	req := func(path string) release.Request {
		return release.Request{Features: []string{"x"}, Learner: learners.KindKDE,
			Aggregates: &release.Aggregates{Path: path, Dialect: aggregate.DuckDB, N: 5, Dataset: "d"}}
	}
	ka, kb := FitKey(req(a)), FitKey(req(b))
	if ka == kb {
		t.Errorf("tables %s and %s share the key %q", a, b, ka)
	}
	if FitKey(req(a)) != ka {
		t.Error("the same table gives two keys")
	}
	if err := os.WriteFile(a, []byte("x_bin,records\n1,4\n2,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if FitKey(req(a)) == ka {
		t.Error("a table rewritten in place keeps its key")
	}
	recs := req("")
	recs.Aggregates = &release.Aggregates{Records: b, N: 5}
	if FitKey(recs) == kb {
		t.Error("a records file and a table of the same path share a key")
	}
}
