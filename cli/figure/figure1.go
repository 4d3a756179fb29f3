package figure

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/study"
)

// Figure 1 of Aldà & Rubinstein (2017, Section 6, "Kernel Density
// Estimation"): the mean sup-norm error of the Bernstein mechanism (k = 20,
// h = 1..5) and of the nearest-lattice baseline (Section 4.2) for a Gaussian
// KDE of 5000 points from 0.4·N(0.5, 0.02) + 0.6·N(0.75, 0.005), where the
// second parameter of N is read as the VARIANCE (dataset.DemoKDE1D), against
// ε, averaged over repeats.
//
// This is a SIMULATION STUDY: the releases are simulated with the seeded
// mechanism.SimulationNoise (Laplace with the scale of Algorithm 1,
// λ = S(F)·(k+1)/ε, from mechanism.NoiseScale); nothing here is a release and
// no privacy is spent on anything.
//
// The run is a configuration of the study engine (package study). Two peer
// mechanisms (study.BuildPeers for the ℓ = 1 KDE) run as extra series on
// the same data, ε grid and unit noise draws: the trigonometric summary of
// Wang et al. (2013) with t = k + 1 = 21 moments and a Jackson operator of
// order 2, and the private histogram of Chaudhuri & Vinterbo (2013,
// Algorithm 5) with k = 20 bins (docs/reproduction.md).
//
// A third peer, the Gaussian-process release of Hall, Rinaldo & Wasserman
// (2013, Prop. 2.1), runs for ε ≤ 1 only (their proof needs it) and is
// (ε, δ)-DP with δ = 1e-6 (study's default δ for pure noise) — a weaker guarantee than the ε-DP of the other
// series, stated in the legend and docs/reproduction.md. It is released on
// the 1001-point grid itself, so its sup-norm error is the sup of the noise.
//
// Like with like (issue 19): two Bernstein series at the GP's δ
// (study.PeerDelta(0)) sit beside it, so every (ε, δ) peer has a Bernstein
// curve at the same (ε, δ): the Gaussian mechanism (mechanism.NoiseGaussian,
// σ of the analytic Gaussian mechanism for L2 sensitivity S·√21) and the
// approximate-DP Laplace variant of Section 4.2 (mechanism.NoiseLaplaceApprox,
// λ_δ = 2·S·√(2·21·ln(1/δ))/ε), both with the same k = 20 and h = 1..5 as
// the pure-ε series — the figure's k is the paper's fixed public k for every
// series, not the automatic k of a release (mechanism.AutoK), so the
// guarantee is the only thing that differs between the groups. Every row of
// the CSV records its δ (0 for pure ε-DP).
const (
	figure1K          = 20   // cover size of the paper
	figure1MaxH       = 5    // orders h = 1..5
	figure1GridPoints = 1001 // sup norm taken on {0, 0.001, …, 1}
	DefaultRepeats1   = 1000 // the paper's 1000 repeats
	figure1MaxRepeats = 1e6  // bounds run time (≈ 1 s per 1000 repeats)
	figure1Batch      = 500  // repeats per batch of interleaved draws (study.Interleaved; the draw order depends on it)
	DefaultBandwidth1 = 0.05 // fixed public bandwidth (the app's KDE default)
	DefaultSeed1      = 1    // simulation noise seed
	MethodBernstein   = "bernstein"
	MethodNearest     = "nearest-lattice"
	MethodTrig        = "wang-trig" // peers: Wang et al. (2013)
	MethodHistogram   = "histogram" // peers: Chaudhuri & Vinterbo (2013), Algorithm 5
	MethodGP          = "hall-gp"   // peers: Hall, Rinaldo & Wasserman (2013), Prop. 2.1
	// MethodGaussian and MethodLaplaceApprox are the Bernstein mechanism at
	// the GP's (ε, δ) (h = 1..5, k = 20).
	MethodGaussian      = "bernstein-gaussian"
	MethodLaplaceApprox = "bernstein-laplace-approx"
	// figure1GPSeedSalt separates the GP series' noise stream from the
	// shared one, so adding it left the other series' numbers unchanged.
	figure1GPSeedSalt = 0x4a11_6b5e_2013_0001
	// figure1GaussianSeedSalt seeds the Gaussian series' own draws
	// (study.PerRepeat: Interleaved replays Laplace draws only), so it
	// leaves the other series' numbers unchanged. The Laplace-approx series
	// replays the pure series' Interleaved draws (common random numbers:
	// only the scale differs).
	figure1GaussianSeedSalt = 0x6a55_b3e5_2017_0019
)

// figure1Epsilons are the privacy budgets on the x axis of Figure 1.
var figure1Epsilons = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10}

// Config1 are the parameters of the protocol that the command line
// may change. Validate checks them.
type Config1 struct {
	Repeats   int     // releases simulated per (method, ε), ≥ 1
	Bandwidth float64 // KDE bandwidth in [0,1] units, in [1e-6, 1] (the KDE's rule)
	Seed      uint64  // seed of the simulation noise
}

// Validate checks the configuration; its errors name the flag, the value
// and the rule (the figure command reports them as usage errors).
func (c Config1) Validate() error {
	if c.Repeats < 1 || c.Repeats > figure1MaxRepeats {
		return fmt.Errorf("--repeats %d: must be between 1 and %d", c.Repeats, int(figure1MaxRepeats))
	}
	// The KDE's own rule (learners' bandwidth ParamSpec) is the one home.
	kde, err := learners.Lookup(learners.KindKDE)
	if err != nil {
		return err
	}
	if _, err := kde.Spec().Resolve(learners.Values{"bandwidth": {c.Bandwidth}}, 1); err != nil {
		return fmt.Errorf("--bandwidth %v: %v (a standard deviation in units of the [0,1] data range)", c.Bandwidth, err)
	}
	return nil
}

// figure1Row is one point of Figure 1. H is 0 for the baseline.
type figure1Row struct {
	Method       string
	H            int
	Epsilon      float64
	Delta        float64 // 0 for the pure ε-DP series
	MeanSupError float64
}

// figure1Setup is everything computed once from the data: the study model
// of the Bernstein series (k = 20, h = 1..5 and the baseline on the
// 1001-point grid) and the three peers on the same grid (Wang et al., the
// histogram, Hall et al.).
type figure1Setup struct {
	Sensitivity float64
	Lattice     []float64   // F_D at the 21 lattice points (for cross-checks)
	Grid        [][]float64 // the 1001-point grid
	Truth       []float64   // F_D on the grid
	Model       *study.Model
	Peers       []*study.Peer // trig, histogram, GP (study.BuildPeers order)
}

// newFigure1Setup fits the KDE to the demo data (bounds [0,1], records
// outside are clipped like the app does), evaluates it on the lattice and
// the grid, and builds the study model and peers. The data set is the
// fixed demo (dataset.DemoKDE1DSeed); the seed only drives the simulation
// noise.
func newFigure1Setup(ctx context.Context, bandwidth float64) (*figure1Setup, error) {
	d := dataset.DemoKDE1D(dataset.DemoKDE1DSeed)
	x, _, err := d.MapToUnit([]string{"x"}, []dataset.Bounds{{Lo: 0, Hi: 1}})
	if err != nil {
		return nil, err
	}
	kde := learners.NewKDE()
	values := learners.Values{"bandwidth": {bandwidth}}
	fit, err := kde.Fit(ctx, learners.Dataset{Dim: 1, X: x}, values)
	if err != nil {
		return nil, err
	}
	lattice, err := study.EvalGrid(ctx, fit.Oracle, [][]float64{study.Linspace01(figure1K + 1)}, nil)
	if err != nil {
		return nil, err
	}
	grid := [][]float64{study.Linspace01(figure1GridPoints)}
	exact, err := study.EvalGrid(ctx, fit.Oracle, grid, nil)
	if err != nil {
		return nil, err
	}
	md, err := study.NewModel([]int{figure1K}, lattice, grid, exact, figure1Orders())
	if err != nil {
		return nil, err
	}
	sims, caption, err := study.BuildPeers(study.PeerData{Kind: learners.KindKDE, Title: kde.Spec().Title,
		Data: learners.Dataset{Dim: 1, X: x}, Fitted: fit, Values: values, Grid: grid, Truth: exact, K: []int{figure1K},
		GPOnGrid: true}) // the paper's protocol: the GP on the evaluation grid itself
	if err != nil {
		return nil, err
	}
	if len(sims) != 3 {
		return nil, fmt.Errorf("figure 1: a peer cannot run with bandwidth %v: %s", bandwidth, caption)
	}
	return &figure1Setup{Sensitivity: fit.Sensitivity, Lattice: lattice, Grid: grid, Truth: exact, Model: md, Peers: sims}, nil
}

// figure1Orders returns h = 1..figure1MaxH.
func figure1Orders() []int {
	hs := make([]int, figure1MaxH)
	for i := range hs {
		hs[i] = i + 1
	}
	return hs
}

// runFigure1 runs the protocol, a configuration of the study engine: for
// every ε, Repeats simulated releases of the 21 lattice values (Laplace
// noise of scale λ = S·21/ε from a seeded SimulationNoise), each evaluated
// by every method on the 1001-point grid, and the mean over repeats of
// sup_y |release(y) − F_D(y)|. The noise draws of one repeat are shared by
// all methods (common random numbers: the comparison between methods is
// not blurred by different draws); different ε use independent draws
// (study.Interleaved: batches of figure1Batch repeats). Rows come ordered
// by method (h = 1..5, the baseline, Wang et al., the histogram, then Hall
// et al. for ε ≤ 1) and then ε.
//
// The Hall et al. series draws its own unit-scale GP paths (one stream,
// seeded with seed^figure1GPSeedSalt, study.Stream) shared by all ε: its
// error is exactly proportional to the scale √c(ε). It runs in a second
// goroutine alongside the other series.
func runFigure1(ctx context.Context, cfg Config1) ([]figure1Row, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := newFigure1Setup(ctx, cfg.Bandwidth)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, cfg.Repeats, cfg.Seed)
}

func (s *figure1Setup) run(ctx context.Context, repeats int, seed uint64) ([]figure1Row, error) {
	type gpResult struct {
		curves []study.PeerCurve
		err    error
	}
	gpDone := make(chan gpResult, 1)
	gpCtx, cancelGP := context.WithCancel(ctx)
	defer cancelGP()
	go func() {
		c, err := study.RunPeers(gpCtx, s.Peers[2:], figure1Epsilons, repeats,
			study.Stream{Src: mechanism.NewSimulationNoise(seed ^ figure1GPSeedSalt), Common: true}, nil)
		gpDone <- gpResult{c, err}
	}()
	draws := study.Interleaved{Seed: seed, Units: figure1K + 1, Batch: figure1Batch}
	res, err := s.Model.Run(ctx, study.Spec{Sensitivity: s.Sensitivity, Noise: mechanism.NoiseLaplace,
		Epsilons: figure1Epsilons, Orders: figure1Orders(), Baseline: true, Repeats: repeats, Draws: draws}, nil)
	if err != nil {
		return nil, err
	}
	delta := study.PeerDelta(0) // the GP's δ (BuildPeers got no curator δ)
	approxDP := map[mechanism.NoiseKind]*study.Result{}
	for _, kind := range []struct {
		noise mechanism.NoiseKind
		draws study.Draws
	}{
		{mechanism.NoiseGaussian, study.PerRepeat{Seed: seed ^ figure1GaussianSeedSalt}},
		{mechanism.NoiseLaplaceApprox, draws},
	} {
		r, err := s.Model.Run(ctx, study.Spec{Sensitivity: s.Sensitivity, Noise: kind.noise, Delta: delta,
			Epsilons: figure1Epsilons, Orders: figure1Orders(), Repeats: repeats, Draws: kind.draws}, nil)
		if err != nil {
			return nil, err
		}
		for i, e := range r.Errors {
			if e != nil { // the protocol's ε are all valid at k = 20, δ = 1e-6: a change broke it
				return nil, fmt.Errorf("figure 1: %s at ε = %g: %w", kind.noise, figure1Epsilons[i], e)
			}
		}
		approxDP[kind.noise] = r
	}
	peerCurves, err := study.RunPeers(ctx, s.Peers[:2], figure1Epsilons, repeats, draws, nil)
	if err != nil {
		return nil, err
	}
	gp := <-gpDone
	if gp.err != nil {
		return nil, gp.err
	}
	var rows []figure1Row
	add := func(method string, h int, delta float64, mean []float64) {
		for i, eps := range figure1Epsilons {
			if !math.IsNaN(mean[i]) {
				rows = append(rows, figure1Row{Method: method, H: h, Epsilon: eps, Delta: delta, MeanSupError: mean[i]})
			}
		}
	}
	for o, h := range res.Orders {
		add(MethodBernstein, h, 0, res.Mean[o])
	}
	add(MethodNearest, 0, 0, res.Baseline)
	add(MethodTrig, 0, 0, peerCurves[0].Mean)
	add(MethodHistogram, 0, 0, peerCurves[1].Mean)
	add(MethodGP, 0, delta, gp.curves[0].Mean) // NaN (no row) for ε > peers.GPMaxEpsilon
	for _, m := range []struct {
		method string
		noise  mechanism.NoiseKind
	}{{MethodGaussian, mechanism.NoiseGaussian}, {MethodLaplaceApprox, mechanism.NoiseLaplaceApprox}} {
		r := approxDP[m.noise]
		for o, h := range r.Orders {
			add(m.method, h, delta, r.Mean[o])
		}
	}
	return rows, nil
}

// figure1CSV renders rows as CSV with the header
// method,h,epsilon,mean_sup_error,delta (h empty for the baseline and the
// peers; delta 0 for the pure ε-DP series). The delta column came last
// (issue 19), so the first four columns read as before.
func figure1CSV(rows []figure1Row) []byte {
	b := []byte("method,h,epsilon,mean_sup_error,delta\n")
	for _, r := range rows {
		h := ""
		if r.H > 0 {
			h = strconv.Itoa(r.H)
		}
		b = fmt.Appendf(b, "%s,%s,%s,%s,%s\n", r.Method, h,
			strconv.FormatFloat(r.Epsilon, 'g', -1, 64), strconv.FormatFloat(r.MeanSupError, 'g', 6, 64),
			strconv.FormatFloat(r.Delta, 'g', -1, 64))
	}
	return b
}
