package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project"
)

// Figure 1 of Aldà & Rubinstein (2017, Section 6, "Kernel Density
// Estimation"): the mean sup-norm error of the Bernstein mechanism (k = 20,
// h = 1..5) and of the nearest-lattice baseline (Section 4.2) for a Gaussian
// KDE of 5000 points from 0.4·N(0.5, 0.02) + 0.6·N(0.75, 0.005), where the
// second parameter of N is read as the VARIANCE (project.DemoKDE1D), against
// ε, averaged over repeats.
//
// This is a SIMULATION STUDY: the releases are simulated with the seeded
// mechanism.SimulationNoise (Laplace with the scale of Algorithm 1,
// λ = S(F)·(k+1)/ε, from mechanism.NoiseScale); nothing here is a release and
// no privacy is spent on anything.
//
// Two peer mechanisms from mechanism/peers run as extra series on the same
// data, ε grid and unit noise draws: the trigonometric summary of Wang et
// al. (2013) with t = 21 moments, and the private histogram of Chaudhuri &
// Vinterbo (2013, Algorithm 5) with 20 bins (docs/reproduction.md).
//
// A third peer, the Gaussian-process release of Hall, Rinaldo & Wasserman
// (2013, Prop. 2.1), runs for ε ≤ 1 only (their proof needs it) and is
// (ε, δ)-DP with δ = 1e-6 — a weaker guarantee than the ε-DP of the other
// series, stated in the legend and docs/reproduction.md. It is released on
// the 1001-point grid itself, so its sup-norm error is the sup of the noise.
const (
	figure1K               = 20   // cover size of the paper
	figure1MaxH            = 5    // orders h = 1..5
	figure1GridPoints      = 1001 // sup norm taken on {0, 0.001, …, 1}
	figure1DefaultRepeats  = 1000 // the paper's 1000 repeats
	figure1MaxRepeats      = 1e6  // bounds run time (≈ 1 s per 1000 repeats)
	figure1Batch           = 500  // repeats per matrix product (bounds memory)
	figure1DefaultBW       = 0.05 // fixed public bandwidth (the app's KDE default)
	figure1DefaultSeed     = 1    // simulation noise seed
	figure1MethodBernstein = "bernstein"
	figure1MethodNearest   = "nearest-lattice"
	figure1MethodTrig      = "wang-trig"  // peers: Wang et al. (2013)
	figure1MethodHistogram = "histogram"  // peers: Chaudhuri & Vinterbo (2013), Algorithm 5
	figure1TrigT           = figure1K + 1 // moments m = 0..20: as many numbers as the Bernstein lattice
	figure1TrigK           = 2            // smoothness order of the Jackson operator (fixed a priori)
	figure1Bins            = figure1K     // histogram bins of width 1/20 = the lattice spacing
	figure1MethodGP        = "hall-gp"    // peers: Hall, Rinaldo & Wasserman (2013), Prop. 2.1
	figure1GPDelta         = 1e-6         // δ of the GP series ((ε, δ)-DP)
	// figure1GPSeedSalt separates the GP series' noise stream from the
	// shared one, so adding it left the other series' numbers unchanged.
	figure1GPSeedSalt = 0x4a11_6b5e_2013_0001
)

// figure1Epsilons are the privacy budgets on the x axis of Figure 1.
var figure1Epsilons = []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10}

// figure1Config are the parameters of the protocol that the command line
// may change. Validate checks them.
type figure1Config struct {
	Repeats   int     // releases simulated per (method, ε), ≥ 1
	Bandwidth float64 // KDE bandwidth in [0,1] units, in [1e-6, 1] (the KDE's rule)
	Seed      uint64  // seed of the simulation noise
}

// Validate checks the configuration; errors are usage errors naming the
// flag, the value and the rule.
func (c figure1Config) Validate() error {
	if c.Repeats < 1 || c.Repeats > figure1MaxRepeats {
		return usagef("--repeats %d: must be between 1 and %d", c.Repeats, int(figure1MaxRepeats))
	}
	// The KDE's own rule (learners' bandwidth ParamSpec) is the one home.
	kde, err := learners.Lookup(learners.KindKDE)
	if err != nil {
		return err
	}
	if _, err := kde.Spec().Resolve(learners.Values{"bandwidth": {c.Bandwidth}}, 1); err != nil {
		return usagef("--bandwidth %v: %v (a standard deviation in units of the [0,1] data range)", c.Bandwidth, err)
	}
	return nil
}

// figure1Row is one point of Figure 1. H is 0 for the baseline.
type figure1Row struct {
	Method       string
	H            int
	Epsilon      float64
	MeanSupError float64
}

// figure1Setup is everything computed once from the data: the linear
// evaluation matrices and noise-free residual of each linear method
// (Bernstein h = 1..5, baseline, Wang et al.) and the histogram's counts.
type figure1Setup struct {
	Sensitivity float64
	N           int // records
	Methods     []figure1Method
	// Stacked is the (len(Methods)·1001)×21 matrix of all evaluation
	// matrices (noise weights), so that one product per batch serves every
	// linear method.
	Stacked   *mat.Dense
	Histogram figure1Histogram
	GP        figure1GP
}

// figure1GP is the Hall–Rinaldo–Wasserman series: the GP kernel (the KDE
// kernel itself, A = 1/(√(2π)·b), σ = b) and the RKHS-norm sensitivity
// Δ_H = √(2A(1 − e^{−1/(2b²)}))/n from learners.RKHSPeer.
type figure1GP struct {
	Kernel peers.GPKernel
	Delta  float64
	Grid   []float64 // the 1001-point release and evaluation grid
}

// figure1Method is one series: rows of its 1001×21 basis matrix B (row i is
// the weight of each lattice value at y_i = i/1000) and its error without
// noise, Resid = B·c − F on the grid, c the exact lattice values.
type figure1Method struct {
	Name  string
	H     int
	Resid []float64
	// Scale returns the Laplace scale of this method's noise at ε.
	Scale func(eps float64) (float64, error)
}

// figure1Histogram is the Chaudhuri–Vinterbo series, which is not linear
// in the noise (clamping, renormalisation) and is evaluated bin by bin
// (peers.HistogramReference).
type figure1Histogram struct {
	Counts []float64
	Ref    *peers.HistogramReference
}

// newFigure1Setup fits the KDE to the demo data (bounds [0,1], records
// outside are clipped like the app does), evaluates it on the lattice and
// the grid, and builds the basis matrices. The data set is the fixed demo
// (project.DemoKDE1DSeed); seed only drives the simulation noise.
func newFigure1Setup(ctx context.Context, bandwidth float64) (*figure1Setup, error) {
	d := project.DemoKDE1D(project.DemoKDE1DSeed)
	x, _, err := d.MapToUnit([]string{"x"}, []project.Bounds{{Lo: 0, Hi: 1}})
	if err != nil {
		return nil, err
	}
	fit, err := learners.NewKDE().Fit(ctx, learners.Dataset{Dim: 1, X: x}, learners.Values{"bandwidth": {bandwidth}})
	if err != nil {
		return nil, err
	}
	g, ok := fit.Oracle.(learners.GridOracle)
	if !ok {
		return nil, errors.New("figure 1: the KDE oracle does not evaluate grids")
	}
	lattice := make([]float64, figure1K+1)
	if err := g.EvalGrid(ctx, [][]float64{figure1Axis(figure1K)}, lattice); err != nil {
		return nil, err
	}
	grid := figure1Axis(figure1GridPoints - 1)
	exact := make([]float64, len(grid))
	if err := g.EvalGrid(ctx, [][]float64{grid}, exact); err != nil {
		return nil, err
	}
	s := &figure1Setup{Sensitivity: fit.Sensitivity, N: len(x)}
	rk, err := learners.RKHSPeer(learners.KindKDE, len(x), learners.Values{"bandwidth": {bandwidth}}, 1)
	if err != nil {
		return nil, err
	}
	s.GP = figure1GP{Kernel: peers.GPKernel{Amplitude: rk.Amplitude, Sigmas: rk.Sigmas}, Delta: rk.Delta, Grid: grid}
	bernsteinScale := func(eps float64) (float64, error) {
		return mechanism.NoiseScale(s.Sensitivity, mechanism.Params{
			Epsilon: eps, Noise: mechanism.NoiseLaplace, K: []int{figure1K}, H: 1,
		})
	}
	n, m := len(grid), figure1K+1
	nMethods := figure1MaxH + 2
	s.Stacked = mat.NewDense(nMethods*n, m, nil)
	// exactCoeffs[j] are the noise-free numbers the basis of Bernstein
	// method j multiplies (the trig method has its own answers).
	exactCoeffs := make([][]float64, 0, nMethods)
	for h := 1; h <= figure1MaxH; h++ {
		basis := mechanism.NewIteratedBasis(figure1K, h)
		row := make([]float64, m)
		for i, y := range grid {
			basis.At(y, row)
			s.Stacked.SetRow((h-1)*n+i, row)
		}
		s.Methods = append(s.Methods, figure1Method{Name: figure1MethodBernstein, H: h, Scale: bernsteinScale})
		exactCoeffs = append(exactCoeffs, lattice)
	}
	for i, y := range grid {
		s.Stacked.Set(figure1MaxH*n+i, figure1Nearest(y, figure1K), 1)
	}
	s.Methods = append(s.Methods, figure1Method{Name: figure1MethodNearest, Scale: bernsteinScale})
	exactCoeffs = append(exactCoeffs, lattice)

	// Wang et al.: t = 21 moments; S_0 = 1 is public, so its column is
	// kept out of the noise (the residual adds its exact contribution).
	moments, err := peers.TrigMoments(x, figure1TrigT)
	if err != nil {
		return nil, err
	}
	trigW, trigAnswers, err := peers.TrigKDEGrid(grid, bandwidth, figure1TrigT, figure1TrigK, moments)
	if err != nil {
		return nil, err
	}
	row := (figure1MaxH + 1) * n
	for i := range grid {
		s.Stacked.SetRow(row+i, trigW[i*figure1TrigT:(i+1)*figure1TrigT])
	}
	s.Methods = append(s.Methods, figure1Method{Name: figure1MethodTrig, Scale: func(eps float64) (float64, error) {
		return peers.TrigNoiseScale(s.N, figure1TrigT, eps)
	}})

	for j := range s.Methods {
		r := make([]float64, n)
		if s.Methods[j].Name == figure1MethodTrig {
			// The noise rows omit the public S_0 column; the answers have it.
			for i := range r {
				r[i] = trigAnswers[i] - exact[i]
			}
			s.Methods[j].Resid = r
			continue
		}
		rows := s.Stacked.Slice(j*n, (j+1)*n, 0, m)
		approx := mat.NewVecDense(n, nil)
		approx.MulVec(rows, mat.NewVecDense(m, exactCoeffs[j]))
		for i := range r {
			r[i] = approx.AtVec(i) - exact[i]
		}
		s.Methods[j].Resid = r
	}

	counts, err := peers.HistogramCounts(x, figure1Bins)
	if err != nil {
		return nil, err
	}
	ref, err := peers.NewHistogramReference(grid, exact, figure1Bins)
	if err != nil {
		return nil, err
	}
	s.Histogram = figure1Histogram{Counts: counts, Ref: ref}
	return s, nil
}

// figure1Axis returns {0, 1/k, …, 1}.
func figure1Axis(k int) []float64 {
	a := make([]float64, k+1)
	for i := range a {
		a[i] = float64(i) / float64(k)
	}
	return a
}

// figure1Nearest is the lattice index of mechanism.Polynomial.EvalNearest:
// ⌊y·k + ½⌋, at most k.
func figure1Nearest(y float64, k int) int {
	return min(int(math.Floor(y*float64(k)+0.5)), k)
}

// runFigure1 runs the protocol: for every ε, Repeats simulated releases of
// the 21 lattice values (Laplace noise of scale λ = S·21/ε from a seeded
// SimulationNoise), each evaluated by every method on the 1001-point grid,
// and the mean over repeats of sup_y |release(y) − F_D(y)|. The noise draws
// of one repeat are shared by all methods (common random numbers: the
// comparison between methods is not blurred by different draws); different
// ε use independent draws. Rows come ordered by method (h = 1..5, the
// baseline, Wang et al., the histogram, then Hall et al. for ε ≤ 1) and
// then ε.
//
// The Hall et al. series draws its own unit-scale GP paths (seeded
// SimulationNoise with figure1GPSeedSalt) once, shared by all ε: its error
// is exactly proportional to the scale √c(ε), so the mean over the same
// paths times √c(ε) is its mean sup-norm error at every ε. It runs in a
// second goroutine alongside the other series.
func runFigure1(ctx context.Context, cfg figure1Config) ([]figure1Row, error) {
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
		meanSup float64
		err     error
	}
	gpDone := make(chan gpResult, 1)
	gpCtx, cancelGP := context.WithCancel(ctx)
	defer cancelGP()
	go func() {
		m, err := s.GP.meanSup(gpCtx, repeats, seed^figure1GPSeedSalt)
		gpDone <- gpResult{m, err}
	}()
	src := mechanism.NewSimulationNoise(seed)
	n := figure1GridPoints
	m := figure1K + 1
	sums := make([][]float64, len(s.Methods)) // [method][ε]
	for j := range sums {
		sums[j] = make([]float64, len(figure1Epsilons))
	}
	z := mat.NewDense(m, figure1Batch, nil)
	prod := mat.NewDense(len(s.Methods)*n, figure1Batch, nil)
	histSums := make([]float64, len(figure1Epsilons))
	noisyCounts := make([]float64, figure1Bins)
	density := make([]float64, figure1Bins)
	lambdas := make([]float64, len(s.Methods))
	for ei, eps := range figure1Epsilons {
		for j, meth := range s.Methods {
			l, err := meth.Scale(eps)
			if err != nil {
				return nil, err
			}
			lambdas[j] = l
		}
		histScale, err := peers.HistogramNoiseScale(eps)
		if err != nil {
			return nil, err
		}
		for done := 0; done < repeats; done += figure1Batch {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			b := min(figure1Batch, repeats-done)
			zb := z.Slice(0, m, 0, b).(*mat.Dense)
			for i := range m {
				for r := range b {
					zb.Set(i, r, src.Laplace(1))
				}
			}
			pb := prod.Slice(0, len(s.Methods)*n, 0, b).(*mat.Dense)
			pb.Mul(s.Stacked, zb)
			for j, meth := range s.Methods {
				sups := make([]float64, b)
				lambda := lambdas[j]
				for i := range n {
					row := pb.RawRowView(j*n + i)[:b]
					res := meth.Resid[i]
					for r, v := range row {
						sups[r] = math.Max(sups[r], math.Abs(res+lambda*v))
					}
				}
				for _, v := range sups {
					sums[j][ei] += v
				}
			}
			// Histogram: the same unit draws (rows 0..19) as its noise.
			h := &s.Histogram
			for r := range b {
				for i := range noisyCounts {
					noisyCounts[i] = h.Counts[i] + histScale*zb.At(i, r)
				}
				if _, err := peers.HistogramDensity(noisyCounts, density); err != nil {
					return nil, err
				}
				histSums[ei] += h.Ref.SupError(density)
			}
		}
	}
	var rows []figure1Row
	for j, meth := range s.Methods {
		for ei, eps := range figure1Epsilons {
			rows = append(rows, figure1Row{Method: meth.Name, H: meth.H, Epsilon: eps, MeanSupError: sums[j][ei] / float64(repeats)})
		}
	}
	for ei, eps := range figure1Epsilons {
		rows = append(rows, figure1Row{Method: figure1MethodHistogram, Epsilon: eps, MeanSupError: histSums[ei] / float64(repeats)})
	}
	gp := <-gpDone
	if gp.err != nil {
		return nil, gp.err
	}
	for _, eps := range figure1Epsilons {
		if eps > peers.GPMaxEpsilon {
			continue
		}
		scale, err := peers.GPNoiseScale(s.GP.Delta, eps, figure1GPDelta)
		if err != nil {
			return nil, err
		}
		rows = append(rows, figure1Row{Method: figure1MethodGP, Epsilon: eps, MeanSupError: scale * gp.meanSup})
	}
	return rows, nil
}

// meanSup returns the mean over repeats of sup_grid |G|, G the unit-scale
// GP with the KDE kernel on the 1001-point grid (one Cholesky factor, then
// one triangular product per path), drawn from a SimulationNoise seeded
// with seed.
func (g figure1GP) meanSup(ctx context.Context, repeats int, seed uint64) (float64, error) {
	f, err := peers.NewGPFactor([][]float64{g.Grid}, g.Kernel)
	if err != nil {
		return 0, err
	}
	src := mechanism.NewSimulationNoise(seed)
	path := make([]float64, f.Size())
	var sum float64
	for r := range repeats {
		if r%64 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if err := f.Sample(1, src, path); err != nil {
			return 0, err
		}
		sup := 0.0
		for _, v := range path {
			sup = math.Max(sup, math.Abs(v))
		}
		sum += sup
	}
	return sum / float64(repeats), nil
}

// figure1CSV renders rows as CSV with the header
// method,h,epsilon,mean_sup_error (h empty for the baseline).
func figure1CSV(rows []figure1Row) []byte {
	b := []byte("method,h,epsilon,mean_sup_error\n")
	for _, r := range rows {
		h := ""
		if r.H > 0 {
			h = strconv.Itoa(r.H)
		}
		b = fmt.Appendf(b, "%s,%s,%s,%s\n", r.Method, h,
			strconv.FormatFloat(r.Epsilon, 'g', -1, 64), strconv.FormatFloat(r.MeanSupError, 'g', 6, 64))
	}
	return b
}
