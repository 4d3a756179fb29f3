package figure

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/study"
)

// likeRun runs Figure 1 on its setup with few repeats (shared by the tests
// of this file).
func likeRun(t *testing.T, repeats int, seed uint64) (*figure1Setup, []figure1Row) {
	t.Helper()
	s, err := newFigure1Setup(context.Background(), DefaultBandwidth1)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.run(context.Background(), repeats, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s, rows
}

// TestFigure1ApproxDPSeries checks that the Bernstein Gaussian and
// Laplace-approx series exist for h = 1..5 at every ε of the figure, at the
// GP's δ, and that the CSV records every row's (ε, δ): δ = 0 for the pure
// ε-DP series, the GP's δ (study.PeerDelta(0) = 1e-6) for the three
// (ε, δ) series.
func TestFigure1ApproxDPSeries(t *testing.T) {
	_, rows := likeRun(t, 5, 3)
	delta := study.PeerDelta(0)
	if delta != 1e-6 {
		t.Fatalf("PeerDelta(0) = %g, want 1e-6 (the documented δ of Figure 1)", delta)
	}
	recs, err := csv.NewReader(bytes.NewReader(figure1CSV(rows))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"method", "h", "epsilon", "mean_sup_error", "delta"}; !reflect.DeepEqual(recs[0], want) {
		t.Fatalf("header %v, want %v", recs[0], want)
	}
	type key struct {
		method, h, eps string
	}
	seen := map[key]string{} // → delta column
	for _, r := range recs[1:] {
		seen[key{r[0], r[1], r[2]}] = r[4]
	}
	gpDelta := ""
	for k, d := range seen {
		switch k.method {
		case MethodGP:
			gpDelta = d
		case MethodGaussian, MethodLaplaceApprox:
		default:
			if d != "0" {
				t.Errorf("%v: delta %q, want 0 (pure ε-DP)", k, d)
			}
		}
	}
	if gpDelta != "1e-06" {
		t.Fatalf("hall-gp delta %q, want 1e-06", gpDelta)
	}
	for _, m := range []string{MethodGaussian, MethodLaplaceApprox} {
		for h := 1; h <= figure1MaxH; h++ {
			for _, eps := range figure1Epsilons {
				k := key{m, strconv.Itoa(h), strconv.FormatFloat(eps, 'g', -1, 64)}
				if d, ok := seen[k]; !ok {
					t.Errorf("no row %v", k)
				} else if d != gpDelta {
					t.Errorf("%v: delta %q, want the GP's %q", k, d, gpDelta)
				}
			}
		}
	}
	if want := 61 + 2*figure1MaxH*len(figure1Epsilons); len(recs)-1 != want {
		t.Errorf("%d rows, want %d (61 before the (ε, δ) Bernstein series + 70)", len(recs)-1, want)
	}
}

// TestFigure1LegendGroups checks the legend of Figure 1 (entries, not
// pixels): the pure ε-DP group with h = 1..5, the baseline and the two pure
// peers, then the (ε, δ = 1e-06) group with the two Bernstein (ε, δ) series
// and then Hall et al.'s GP; every curve is in the group of its guarantee.
func TestFigure1LegendGroups(t *testing.T) {
	_, rows := likeRun(t, 5, 3)
	tr, _ := figure1Tradeoff(rows, Config1{Repeats: 5, Bandwidth: DefaultBandwidth1, Seed: 3})
	var got []string
	for _, e := range tr.Legend() {
		got = append(got, e.String())
	}
	want := []string{
		"# pure ε-DP",
		"Bernstein, h = 1", "Bernstein, h = 2", "Bernstein, h = 3", "Bernstein, h = 4", "Bernstein, h = 5",
		"nearest lattice point (baseline)",
		"Wang et al. trigonometric, t = 21 (peer)",
		"Chaudhuri–Vinterbo histogram, 20 bins (peer)",
		"# (ε, δ = 1e-06)-DP",
		"Bernstein Gaussian, best of h = 1..5",
		"Bernstein Laplace-approx (§4.2), best of h = 1..5",
		"Hall et al. Gaussian process, ε ≤ 1 (peer)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("legend:\n got %q\nwant %q", got, want)
	}
	// The drawn (ε, δ) Bernstein curves are the best order per ε.
	for _, c := range tr.Curves {
		method := map[string]string{want[10]: MethodGaussian, want[11]: MethodLaplaceApprox}[c.Label]
		if method == "" {
			continue
		}
		for i, eps := range figure1Epsilons {
			best := math.Inf(1)
			for _, r := range rows {
				if r.Method == method && r.Epsilon == eps {
					best = math.Min(best, r.MeanSupError)
				}
			}
			if c.Y[i] != best {
				t.Errorf("%s at ε = %g: drawn %g, want the best order's %g", c.Label, eps, c.Y[i], best)
			}
		}
	}
	if _, err := plotting.RenderTradeoff(tr, plotting.Light(), plotting.Size{W: 900, H: 600, Scale: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestFigure1GaussianMatchesSimulate checks the (ε, δ) series against
// mechanism.Simulate, the simulated release of the mechanism itself.
//
// Gaussian: the series draws repeat r from
// SimulationNoise(RepeatSeed(seed^figure1GaussianSeedSalt, r)) (study.PerRepeat),
// so its mean over 3 repeats must equal, up to rounding (relative 1e-9), the
// mean sup error of the polynomials mechanism.Simulate returns for the same
// lattice values, parameters and streams — exact, it cannot fail by chance.
//
// Laplace-approx replays the pure series' interleaved draws, so it is
// compared statistically: 400 repeats of the figure against 400 independent
// mechanism.Simulate releases (other seeds) at ε ∈ {0.1, 1}, h ∈ {1, 5}.
// Under the null both means have the same variance; with s the sample
// standard deviation of the direct releases the difference is within
// 5·s·√(2/400) except with probability ≈ 5.7·10⁻⁷ per comparison by the
// normal approximation (sup errors are bounded here, so the CLT applies at
// n = 400), < 3·10⁻⁶ for the 4 comparisons. The seeds are fixed, so the
// test is deterministic.
func TestFigure1GaussianMatchesSimulate(t *testing.T) {
	const seed = 11
	s, _ := likeRun(t, 1, seed) // builds the setup
	delta := study.PeerDelta(0)
	supErr := func(p mechanism.Params, src *mechanism.SimulationNoise) float64 {
		t.Helper()
		sim, err := mechanism.Simulate(s.Lattice, s.Sensitivity, p, src)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := sim.EvalGrid(s.Grid)
		if err != nil {
			t.Fatal(err)
		}
		e := 0.0
		for g, v := range vals {
			e = math.Max(e, math.Abs(s.Truth[g]-v))
		}
		return e
	}
	mean := func(rows []figure1Row, method string, h int, eps float64) float64 {
		i := slices.IndexFunc(rows, func(r figure1Row) bool { return r.Method == method && r.H == h && r.Epsilon == eps })
		if i < 0 {
			t.Fatalf("no %s row h = %d ε = %g", method, h, eps)
		}
		return rows[i].MeanSupError
	}

	const exactRepeats = 3
	rows, err := s.run(context.Background(), exactRepeats, seed)
	if err != nil {
		t.Fatal(err)
	}
	for h := 1; h <= figure1MaxH; h++ {
		for _, eps := range figure1Epsilons {
			p := mechanism.Params{Epsilon: eps, Delta: delta, Noise: mechanism.NoiseGaussian, K: []int{figure1K}, H: h}
			want := 0.0
			for r := range exactRepeats {
				want += supErr(p, mechanism.NewSimulationNoise(study.RepeatSeed(seed^figure1GaussianSeedSalt, r)))
			}
			want /= exactRepeats
			// The figure's CSV keeps 6 significant digits; compare unrounded rows.
			if got := mean(rows, MethodGaussian, h, eps); math.Abs(got-want) > 1e-9*want {
				t.Errorf("Gaussian h = %d ε = %g: figure %v, mechanism.Simulate %v", h, eps, got, want)
			}
		}
	}

	const n = 400
	rows, err = s.run(context.Background(), n, seed)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []int{1, 5} {
		for _, eps := range []float64{0.1, 1} {
			p := mechanism.Params{Epsilon: eps, Delta: delta, Noise: mechanism.NoiseLaplaceApprox, K: []int{figure1K}, H: h}
			var sum, sum2 float64
			for r := range n {
				e := supErr(p, mechanism.NewSimulationNoise(study.RepeatSeed(0x5eed_1a9a, r)))
				sum += e
				sum2 += e * e
			}
			m := sum / n
			sd := math.Sqrt((sum2 - n*m*m) / (n - 1))
			got := mean(rows, MethodLaplaceApprox, h, eps)
			if tol := 5 * sd * math.Sqrt(2.0/n); math.Abs(got-m) > tol {
				t.Errorf("Laplace-approx h = %d ε = %g: figure %v, mechanism.Simulate %v ± %v", h, eps, got, m, tol)
			}
		}
	}
}
