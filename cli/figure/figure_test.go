package figure

import (
	"context"
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
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
// grid evaluation, 1000 repeats × 7 ε × 6 methods); the target is ≤ 2 s.
func BenchmarkFigure1(b *testing.B) {
	cfg := Config1{Repeats: DefaultRepeats1, Bandwidth: DefaultBandwidth1, Seed: DefaultSeed1}
	for b.Loop() {
		if _, err := runFigure1(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
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
