package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// Peers: published mechanisms simulated on the same grid as a Model
// (docs/peers.md, docs/user-guide.md).
//
// Protocol: each peer that applies to the learner is simulated on the
// SAME grid, against the SAME exact F_D, with the SAME ε values, number of
// repeats and draw plan (Draws), and the SAME error measure as the
// Bernstein curves: the mean over repeats of sup_grid |release − F_D|, in
// the learner's output units. Repeat r of every peer draws its unit noise
// from the source the plan gives repeat r, the source the Bernstein
// release draws its lattice noise Z from, and with a common plan one
// repeat's draws serve every ε (only the scale changes). With Laplace noise
// the first draws of a peer therefore coincide with the first lattice draws
// of the Bernstein release (common random numbers). All noise is seeded
// simulation noise: nothing is released and no budget is spent.
//
// Peers are pure ε-DP mechanisms whatever noise the curator chose for the
// Bernstein release (except Hall et al., which is (ε, δ)-DP and is named
// with its δ).

// peerTrigJackson is the smoothness order of the Jackson operator of the
// Wang et al. peer (fixed a priori, as in Figure 1; one home with the
// product's wang-trig releases).
const peerTrigJackson = peers.TrigJackson

// peerTrigMaxT caps the number of trigonometric moments t = k + 1: the
// public weights cost O(grid·2048·t) cosines, and the Bernstein curves at
// large k compare against a trig summary of the same size only up to this.
const peerTrigMaxT = 101

// Legend names of the peers.
const (
	PeerNameTrig      = "Wang et al. trig"
	PeerNameHistogram = "C&V histogram"
	PeerNameOutput    = "C&V output perturbation"
	PeerNameGP        = "Hall et al. GP"
)

// peerGPDefaultDelta is the δ of the Hall et al. peer when the curator's
// noise is pure (δ = 0): the GP mechanism is (ε, δ)-DP only.
const peerGPDefaultDelta = 1e-6

// PeerData is what a peer simulator may use: the learner and its fit on
// the data mapped to [0,1]^ℓ, the resolved learner parameters, the grid
// and F_D on it (lattice order), the lattice k of the Bernstein curves and
// the curator's δ (0 if unset). The data are private: peers only feed
// simulations shown to the curator.
type PeerData struct {
	Kind   learners.Kind
	Title  string // the learner's title, for "No published peer applies to …"
	Data   learners.Dataset
	Fitted *learners.Fitted
	Values learners.Values // resolved parameters (learners.Spec.Resolve)
	Grid   [][]float64
	Truth  []float64
	K      []int
	Delta  float64
	// Points, for a classifier (nil otherwise), are the records (at most
	// MaxPoints) and F_D there, and Threshold the class boundary: the
	// peers' QuantileError is then the share of the points where the
	// released classifier disagrees with the non-private one (class +1
	// where F_D ≥ Threshold), the measure of the Bernstein release's
	// PointAgreement.
	Points    *PointData
	Threshold float64
	// Lattice (optional) is F_D on the lattice of K (mechanism.NewLattice
	// order), the public grid a GP release samples the process on
	// (peers.GPReleaseAxes); nil evaluates it from Fitted.Oracle.
	Lattice []float64
	// GPOnGrid samples Hall et al.'s process on Grid itself, without the
	// release's grid and interpolation: the paper's protocol (Figure 1),
	// not what the product releases.
	GPOnGrid bool
	// trig (optional) keeps the trig peer's quadrature across builds at
	// several k (AddPeers).
	trig *trigCoefficients
}

// peerSimulator is one published peer mechanism the overlay knows: applies
// says whether it fits a learner kind and dimension; build prepares its
// simulation for a fit (everything that depends only on the data, the
// grid and k). build returns (nil, reason) when the peer applies to the
// kind but not to these parameters; the reason is shown under the plot.
type peerSimulator struct {
	applies func(kind learners.Kind, dim int) bool
	build   func(pc PeerData) (*Peer, error)
}

// Peer is a published peer mechanism prepared for one fit and grid
// (BuildPeers); RunPeers simulates it.
type Peer struct {
	Label string  // legend name, with its settings (moments, bins, δ)
	Delta float64 // the peer's δ: 0 for pure ε-DP, PeerDelta for Hall et al.
	// Kind is the synopsis kind a release of this peer has (peers.KindGP,
	// KindTrig, KindOutputPerturbation), "" for a peer the product does
	// not release (the histogram).
	Kind string
	// noise is the kind of the peer's noise (Laplace; Gaussian for Hall
	// et al.); k the Bernstein lattice k the peer was built for (trig
	// moments t = k+1).
	noise mechanism.NoiseKind
	k     []int
	// newPointWorker (nil when the peer was built without PeerData.Points)
	// is newWorker for a classifier: it writes, for every scale, the share
	// of the points where the release's class differs from F_D's.
	newPointWorker func() func(src Source, scales, out []float64) error
	threshold      float64
	// scale returns the peer's noise scale at ε; an error makes the point
	// NaN (the peer does not apply at that ε).
	scale func(eps float64) (float64, error)
	// newWorker returns a function for one goroutine (own scratch) that
	// draws one repeat's unit noise from src and writes, for every scale,
	// sup_grid |release − F_D| into out; NaN scales are skipped.
	newWorker func() func(src Source, scales, out []float64) error
	// newChunkWorker (may be nil) is newWorker for a chunk of consecutive
	// repeats, repeat i drawing from srcs[i] (in order) and writing its
	// len(scales) values into out[i·len(scales):]: the same numbers up to
	// rounding, with the arithmetic batched over the chunk.
	newChunkWorker func() func(srcs []Source, scales, out []float64) error
	// chunk is the largest chunk newChunkWorker takes (0: simChunk).
	chunk int
}

// peerSimulators lists the peers in legend order; adding one is one entry
// here.
var peerSimulators = []peerSimulator{
	{applies: kde1D, build: buildTrigPeer},
	{applies: kde1D, build: buildHistogramPeer},
	{applies: func(k learners.Kind, _ int) bool { return k == learners.KindLogistic }, build: buildOutputPerturbationPeer},
	{applies: func(k learners.Kind, _ int) bool { return k == learners.KindKDE || k == learners.KindSVM }, build: buildGPPeer},
}

func kde1D(k learners.Kind, dim int) bool { return k == learners.KindKDE && dim == 1 }

// peerSkipped is the error of a peer that applies to the learner but not
// to these settings; its message, shown under the plot, explains why.
type peerSkipped struct{ reason string }

func (e *peerSkipped) Error() string { return e.reason }

// BuildPeers prepares, in legend order, every published peer that applies
// to pc.Kind and ℓ = len(pc.Grid) (docs/peers.md names each peer's source
// and its privacy guarantee). caption explains the peers that apply to the
// learner but not to these settings (for example a KDE bandwidth below
// what the trig peer resolves) or, when none applies at all, says so.
// Assumptions: pc.Fitted is the fit of pc.Kind on pc.Data with pc.Values,
// and pc.Truth is its F_D on pc.Grid. Errors other than skipped peers
// (invalid data or parameters) are returned.
func BuildPeers(pc PeerData) (sims []*Peer, caption string, err error) {
	// The peers read the records as the mapped copy X; a dataset read in
	// place (learners.RecordSource, a KDE's) is copied once here.
	pc.Data = pc.Data.Materialized()
	kind, dim := pc.Kind, len(pc.Grid)
	var notes []string
	applied := false
	// The builds are independent (each reads pc only): they run
	// concurrently (the trig weights and the GP factor are the costly
	// ones) and are taken in legend order.
	type built struct {
		s   *Peer
		err error
	}
	results := make([]chan built, len(peerSimulators))
	for i, ps := range peerSimulators {
		if !ps.applies(kind, dim) {
			continue
		}
		results[i] = make(chan built, 1)
		go func() {
			s, err := ps.build(pc)
			results[i] <- built{s, err}
		}()
	}
	for _, res := range results {
		if res == nil {
			continue
		}
		applied = true
		b := <-res
		s, err := b.s, b.err
		var skip *peerSkipped
		if errors.As(err, &skip) {
			notes = append(notes, skip.reason+".")
			continue
		}
		if err != nil {
			return nil, "", err
		}
		sims = append(sims, s)
	}
	if !applied {
		return nil, "No published peer applies to " + pc.Title + ".", nil
	}
	for i, n := range notes {
		if i > 0 {
			caption += " "
		}
		caption += n
	}
	return sims, caption, nil
}

// PeerCurve is one peer's mean sup-norm error per ε.
type PeerCurve struct {
	Label string
	Delta float64   // the peer's δ (Peer.Delta)
	Mean  []float64 // NaN where the peer does not apply at ε
}

// RunPeers simulates every peer over the ε values: repeats releases each,
// repeat r with the unit noise the plan d gives it (the same plan as the
// Model's Run gives the same draws). Guarantee: the mean of each curve is
// the mean over repeats of the peer's sup-norm error, summed in repeat
// order, so the result does not depend on scheduling; an ε whose scale the
// peer refuses is NaN. progress (may be nil) gets finished repeats over all
// peers, monotone and serialised. It returns ctx.Err() when cancelled.
func RunPeers(ctx context.Context, sims []*Peer, epsilons []float64, repeats int, d Draws, progress func(done, total int)) ([]PeerCurve, error) {
	if repeats < 1 || repeats > MaxRepeats {
		return nil, fmt.Errorf("study: %d repeats: must be between 1 and %d", repeats, MaxRepeats)
	}
	groups := 1
	if !d.start().common() {
		groups = len(epsilons)
	}
	total := repeats * groups * len(sims)
	out := make([]PeerCurve, len(sims))
	for si, s := range sims {
		scales := make([]float64, len(epsilons))
		for i, eps := range epsilons {
			v, err := s.scale(eps)
			if err != nil {
				v = math.NaN()
			}
			scales[i] = v
		}
		base := si * repeats * groups
		chunk := simChunk
		if s.chunk > 0 {
			chunk = s.chunk
		}
		sums, err := simulateChunks(ctx, d, scales, repeats, 1, chunk, func() chunkFunc {
			if s.newChunkWorker != nil {
				work := s.newChunkWorker()
				return func(_ int, srcs []Source, _ []int, scales, out []float64) error { return work(srcs, scales, out) }
			}
			work := s.newWorker()
			return perRepeat(func(_ int, src Source, _ []int, scales, out []float64) error { return work(src, scales, out) })
		}, func(done, _ int) {
			if progress != nil {
				progress(base+done, total)
			}
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("study: peer %s: %w", s.Label, err)
		}
		mean := make([]float64, len(epsilons))
		for i := range mean {
			if math.IsNaN(scales[i]) {
				mean[i] = math.NaN()
			} else {
				mean[i] = sums[i] / float64(repeats)
			}
		}
		out[si] = PeerCurve{Label: s.Label, Delta: s.Delta, Mean: mean}
	}
	return out, nil
}

// buildTrigPeer is Wang et al. (2013) with t = k + 1 moments (capped at
// peerTrigMaxT) and a Jackson operator of order 2, the Figure 1
// protocol: the answer at y is Σ_m w_m(y)·S̃_m with S̃_0 = S_0 = 1 public
// and S̃_m = S_m + λ·z_m, λ = peers.TrigNoiseScale(n, t, ε), for m ≥ 1.
// Repeat r uses its draws z_1..z_{t−1} (z_0 is drawn and unused, so the
// indices match the lattice draws as in Figure 1).
func buildTrigPeer(pc PeerData) (*Peer, error) {
	bw := pc.Values["bandwidth"]
	if len(bw) != 1 {
		return nil, fmt.Errorf("study: trig peer: %d bandwidths for ℓ = 1", len(bw))
	}
	if bw[0] < peers.MinTrigBandwidth {
		return nil, &peerSkipped{fmt.Sprintf("%s is not shown: it needs a bandwidth ≥ %g (this one is %g)", PeerNameTrig, peers.MinTrigBandwidth, bw[0])}
	}
	x := pc.Data.X
	n := len(x)
	t := min(pc.K[0]+1, peerTrigMaxT)
	if t < peers.TrigMinMoments(peerTrigJackson) {
		return nil, &peerSkipped{fmt.Sprintf("%s is not shown at k = %d: its t = %d moments answer a constant, whatever the data (t ≥ %d needed)",
			PeerNameTrig, pc.K[0], t, peers.TrigMinMoments(peerTrigJackson))}
	}
	moments, err := peers.TrigMoments(x, t)
	if err != nil {
		return nil, err
	}
	g := len(pc.Grid[0])
	var weights, answers []float64
	cached := false
	if pc.trig != nil {
		weights, answers, cached, err = pc.trig.kdeGrid(pc.Grid[0], bw[0], t, moments)
	}
	if !cached {
		weights, answers, err = trigKDEGridParallel(pc.Grid[0], bw[0], t, moments)
	}
	if err != nil {
		return nil, err
	}
	resid := make([]float64, g) // noise-free answer − F_D
	for i, a := range answers {
		resid[i] = a - pc.Truth[i]
	}
	return &Peer{
		Label: fmt.Sprintf("%s (t = %d)", PeerNameTrig, t), Kind: peers.KindTrig, noise: mechanism.NoiseLaplace, k: pc.K,
		scale: func(eps float64) (float64, error) { return peers.TrigNoiseScale(n, t, eps) },
		newWorker: func() func(Source, []float64, []float64) error {
			z := make([]float64, t)
			noise := make([]float64, g)
			return func(src Source, scales, out []float64) error {
				for m := range z {
					z[m] = src.Laplace(1)
				}
				for i := range noise {
					var s float64
					for m, v := range weights[i*t : (i+1)*t] {
						s += v * z[m]
					}
					noise[i] = s
				}
				supLinear(resid, noise, scales, out)
				return nil
			}
		},
		newChunkWorker: linearChunkWorker(newLinearBatch(t, [][]float64{weights}, []int{g}), resid),
	}, nil
}

// linearChunkWorker returns the chunk worker of a peer whose noise on the
// grid is linear in its m unit Laplace draws (lb, one map) and whose error
// is sup_grid |resid + λ·noise|, or nil when lb is nil.
func linearChunkWorker(lb *linearBatch, resid []float64) func() func([]Source, []float64, []float64) error {
	if lb == nil {
		return nil
	}
	return func() func([]Source, []float64, []float64) error {
		zs, noise := lb.buffers(simChunk)
		return func(srcs []Source, scales, out []float64) error {
			for i, src := range srcs {
				for v := range lb.m {
					zs[i*lb.m+v] = src.Laplace(1)
				}
			}
			lb.apply(zs, len(srcs), noise)
			nE := len(scales)
			for i := range srcs {
				supLinear(resid, lb.row(noise, i, 0), scales, out[i*nE:(i+1)*nE])
			}
			return nil
		}
	}
}

// trigKDEGridParallel is peers.TrigKDEGrid with the Jackson order of the
// peer, the grid split into runtime.GOMAXPROCS(0) parts computed
// concurrently (every grid point's weights are independent: the same
// values as one call).
func trigKDEGridParallel(grid []float64, bw float64, t int, moments []float64) (weights, answers []float64, err error) {
	weights, answers = make([]float64, len(grid)*t), make([]float64, len(grid))
	err = inParts(len(grid), func(lo, hi int) error {
		w, a, err := peers.TrigKDEGrid(grid[lo:hi], bw, t, peerTrigJackson, moments)
		copy(weights[lo*t:hi*t], w)
		copy(answers[lo:hi], a)
		return err
	})
	return weights, answers, err
}

// inParts runs f on runtime.GOMAXPROCS(0) consecutive parts [lo, hi) of
// [0, n) concurrently and joins their errors.
func inParts(n int, f func(lo, hi int) error) error {
	parts := min(runtime.GOMAXPROCS(0), n)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Go(func() { errs[p] = f(lo, hi) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// trigCoefficients are, per grid point y, the cosine coefficients ĝ_m(y),
// m < peerTrigMaxT, of the KDE kernel at y (peers.TrigKDEWeightsWith with
// unit multipliers): the trig peer's weights for any t are ĝ_m(y)·μ_m(t),
// the same numbers as peers.TrigKDEGrid's, so a search that builds the
// peer at many k (FindEpsilon) computes the costly quadrature once. One
// value serves one grid and bandwidth (AddPeers makes it).
type trigCoefficients struct {
	once sync.Once
	grid []float64
	bw   float64
	coef []float64
	err  error
}

// kdeGrid is trigKDEGridParallel from the coefficients (computed on first
// use); ok is false when c was made for another grid or bandwidth.
func (c *trigCoefficients) kdeGrid(grid []float64, bw float64, t int, moments []float64) (weights, answers []float64, ok bool, err error) {
	c.once.Do(func() {
		c.grid, c.bw = grid, bw
		ones := slices.Repeat([]float64{1}, peerTrigMaxT)
		c.coef = make([]float64, len(grid)*peerTrigMaxT)
		c.err = inParts(len(grid), func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				if _, err := peers.TrigKDEWeightsWith(grid[i], bw, ones, c.coef[i*peerTrigMaxT:(i+1)*peerTrigMaxT]); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if c.bw != bw || !slices.Equal(c.grid, grid) || t > peerTrigMaxT || len(moments) != t {
		return nil, nil, false, nil
	}
	if c.err != nil {
		return nil, nil, true, c.err
	}
	mu, err := peers.JacksonMultipliers(t, peerTrigJackson)
	if err != nil {
		return nil, nil, true, err
	}
	weights, answers = make([]float64, len(grid)*t), make([]float64, len(grid))
	for i := range grid {
		w, g := weights[i*t:(i+1)*t], c.coef[i*peerTrigMaxT:]
		for m := range w {
			w[m] = g[m] * mu[m]
			answers[i] += w[m] * moments[m]
		}
		w[0] = 0 // S_0 = 1 is public: no noise (as TrigKDEGrid)
	}
	return weights, answers, true, nil
}

// supLinear sets out[i] = max_g |resid[g] + scales[i]·noise[g]|, skipping
// NaN scales (left 0).
func supLinear(resid, noise, scales, out []float64) {
	for i, s := range scales {
		out[i] = 0
		if !math.IsNaN(s) {
			// r − (−s)·n is r + s·n exactly (negation is exact).
			out[i] = gemm.MaxAbsDiff(resid, noise, -s)
		}
	}
}

// buildHistogramPeer is Chaudhuri & Vinterbo (2013), Algorithm 5, with k
// bins of width 1/k (the lattice spacing, as in Figure 1): noisy
// counts n_i + (2/ε)·z_i, clamped and renormalised. The sup over the grid
// points of bin i of |f̂_i − F_D| is max(|f̂_i − lo_i|, |f̂_i − hi_i|), lo/hi
// the extremes of F_D over the bin's grid points.
func buildHistogramPeer(pc PeerData) (*Peer, error) {
	bins := pc.K[0]
	counts, err := peers.HistogramCounts(pc.Data.X, bins)
	if err != nil {
		return nil, err
	}
	ref, err := peers.NewHistogramReference(pc.Grid[0], pc.Truth, bins)
	if err != nil {
		return nil, err
	}
	return &Peer{
		Label: fmt.Sprintf("%s (%d bins)", PeerNameHistogram, bins), noise: mechanism.NoiseLaplace, k: pc.K,
		scale: peers.HistogramNoiseScale,
		newWorker: func() func(Source, []float64, []float64) error {
			z := make([]float64, bins)
			noisy := make([]float64, bins)
			dens := make([]float64, bins)
			return func(src Source, scales, out []float64) error {
				for i := range z {
					z[i] = src.Laplace(1)
				}
				for e, s := range scales {
					out[e] = 0
					if math.IsNaN(s) {
						continue
					}
					for i, c := range counts {
						noisy[i] = c + s*z[i]
					}
					if _, err := peers.HistogramDensity(noisy, dens); err != nil {
						return err
					}
					out[e] = ref.SupError(dens)
				}
				return nil
			}
		},
	}, nil
}

// buildOutputPerturbationPeer is Chaudhuri & Vinterbo (2013), Algorithm 4,
// for logistic regression: the released function is y ↦ link(⟨ŵ + b, ỹ⟩)
// with b of density ∝ exp(−(ε/Δ₂)‖b‖), Δ₂ = (2C/n)(1.01)
// (learners.LinearModel). One repeat draws a unit vector u (Δ₂/ε = 1) and
// uses b = (Δ₂/ε)·u for every ε.
func buildOutputPerturbationPeer(pc PeerData) (*Peer, error) {
	m, err := learners.LinearModelOf(pc.Kind, pc.Fitted, pc.Values)
	if err != nil {
		return nil, err
	}
	dim, p := m.Dim, m.Dim+1
	gsize := len(pc.Truth)
	lift := make([]float64, gsize*p)
	base := make([]float64, gsize) // ⟨ŵ, ỹ_g⟩
	y := make([]float64, dim)
	for g := range gsize {
		r := g
		for j := dim - 1; j >= 0; j-- {
			y[j] = pc.Grid[j][r%len(pc.Grid[j])]
			r /= len(pc.Grid[j])
		}
		row := lift[g*p : (g+1)*p]
		m.Lift(y, row)
		var z float64
		for j, v := range row {
			z += m.W[j] * v
		}
		base[g] = z
	}
	pw, err := outputPointWorker(pc, m)
	if err != nil {
		return nil, err
	}
	return &Peer{
		Label: PeerNameOutput, Kind: peers.KindOutputPerturbation, noise: mechanism.NoiseLaplace, k: pc.K,
		newPointWorker: pw, threshold: pc.Threshold,
		scale: func(eps float64) (float64, error) { return peers.OutputPerturbationScale(m.Sensitivity2, eps) },
		newWorker: func() func(Source, []float64, []float64) error {
			noise := make([]float64, gsize)
			return func(src Source, scales, out []float64) error {
				u, err := peers.OutputPerturbationNoise(p, 1, 1, src)
				if err != nil {
					return err
				}
				for g := range noise {
					var s float64
					for j, v := range lift[g*p : (g+1)*p] {
						s += u[j] * v
					}
					noise[g] = s
				}
				clear(out)
				for g, z := range base {
					for e, s := range scales {
						if d := math.Abs(m.Link(z+s*noise[g]) - pc.Truth[g]); d > out[e] {
							out[e] = d
						}
					}
				}
				return nil
			}
		},
	}, nil
}

// buildGPPeer is Hall, Rinaldo & Wasserman (2013) for the learners whose
// F_D lies in a Gaussian RKHS (kde, svm; learners.RKHSPeer), simulated as
// the product releases it (project/release, synopsis kind hall-gp): the
// process is sampled on the public grid of the release
// (peers.GPReleaseAxes(K): the lattice of k) as F_D(lattice) +
// √c·G(lattice), G the centred Gaussian process of the learner's kernel,
// √c = peers.GPNoiseScale(Δ_H, ε, δ), and evaluated at the preview grid
// points by the multilinear interpolation of the file
// (peers.GPInterpolation). Its error is therefore sup_grid |I(F_D) − F_D +
// √c·I(G)|, the interpolation error included (gpRelease). With
// PeerData.GPOnGrid the process is sampled on the preview grid itself
// (the paper's protocol, Figure 1): the error is √c·sup_grid |G|. The
// proof needs ε ≤ 1: larger ε are NaN (not drawn). δ is the curator's δ,
// or peerGPDefaultDelta for pure noise; the legend states it.
func buildGPPeer(pc PeerData) (*Peer, error) {
	dim := len(pc.Grid)
	rs, err := learners.RKHSPeer(pc.Kind, pc.Fitted.N, pc.Values, dim)
	if err != nil {
		return nil, err
	}
	r, err := newGPRelease(pc, peers.GPKernel{Amplitude: rs.Amplitude, Sigmas: rs.Sigmas})
	if err != nil {
		return nil, err
	}
	f := r.factor
	delta := PeerDelta(pc.Delta)
	return &Peer{
		Label: fmt.Sprintf("%s (δ = %g, ε ≤ 1)", PeerNameGP, delta),
		Delta: delta, Kind: peers.KindGP, noise: mechanism.NoiseGaussian, k: pc.K,
		newPointWorker: r.pointWorker(pc), threshold: pc.Threshold,
		scale: func(eps float64) (float64, error) { return peers.GPNoiseScale(rs.Delta, eps, delta) },
		newWorker: func() func(Source, []float64, []float64) error {
			path := make([]float64, f.Size())
			at := r.gridScratch()
			return func(src Source, scales, out []float64) error {
				if err := f.Sample(1, src, path); err != nil {
					return err
				}
				r.supError(path, at, scales, out)
				return nil
			}
		},
		// On the preview grid the factor (8 MB for 1001 points) is read
		// once per chunk: larger chunks than simChunk keep that traffic
		// small.
		chunk: gpChunk,
		newChunkWorker: func() func([]Source, []float64, []float64) error {
			g := make([]float64, gpChunk*f.Size())
			gs := make([]peers.GaussianSource, gpChunk)
			at := r.gridScratch()
			return func(srcs []Source, scales, out []float64) error {
				for i, src := range srcs {
					gs[i] = src
				}
				paths := g[:len(srcs)*f.Size()]
				if err := f.SampleRows(1, gs[:len(srcs)], paths); err != nil {
					return err
				}
				nE := len(scales)
				for i := range srcs {
					r.supError(paths[i*f.Size():(i+1)*f.Size()], at, scales, out[i*nE:(i+1)*nE])
				}
				return nil
			}
		},
	}, nil
}

// gpRelease is the simulated GP release of a peer: the factor of the
// process on the grid it is sampled on and, on the release's public grid,
// the interpolation to the preview grid (grid) and to the points (points,
// nil without PeerData.Points), with the noise-free interpolants of
// F_D(lattice) there: resid = I(F_D) − F_D on the preview grid, base =
// I(F_D) at the points. grid is nil when the process is sampled on the
// preview grid itself (PeerData.GPOnGrid).
type gpRelease struct {
	factor *peers.GPFactor
	grid   *peers.GPInterpolation
	resid  []float64
	points *peers.GPInterpolation
	base   []float64
}

// newGPRelease prepares the GP release of pc with kernel k: the factor on
// the release grid of pc.K (or on pc.Grid with GPOnGrid), F_D on that
// grid (pc.Lattice, or evaluated from pc.Fitted.Oracle) and its
// interpolants. A grid whose covariance cannot be factored skips the peer
// with a reason.
func newGPRelease(pc PeerData, k peers.GPKernel) (*gpRelease, error) {
	if pc.GPOnGrid {
		f, err := peers.NewGPFactor(pc.Grid, k)
		if err != nil {
			return nil, &peerSkipped{fmt.Sprintf("%s is not shown: its covariance on the preview grid could not be factored (%v)", PeerNameGP, err)}
		}
		return &gpRelease{factor: f}, nil
	}
	axes, err := peers.GPReleaseAxes(pc.K)
	if err != nil {
		return nil, fmt.Errorf("study: GP peer: %w", err)
	}
	f, err := peers.NewGPFactor(axes, k)
	if err != nil {
		return nil, &peerSkipped{fmt.Sprintf("%s is not shown: its covariance on the release grid of k = %v could not be factored (%v)", PeerNameGP, pc.K, err)}
	}
	lattice := pc.Lattice
	if lattice == nil {
		if lattice, err = EvalGrid(context.Background(), pc.Fitted.Oracle, axes, nil); err != nil {
			return nil, err
		}
	}
	if len(lattice) != f.Size() {
		return nil, fmt.Errorf("study: GP peer: %d values of F_D on the lattice of k = %v (%d points)", len(lattice), pc.K, f.Size())
	}
	r := &gpRelease{factor: f}
	if r.grid, err = peers.NewGPInterpolation(axes, tensorPoints(pc.Grid)); err != nil {
		return nil, err
	}
	if len(pc.Truth) != r.grid.Points() {
		return nil, fmt.Errorf("study: GP peer: %d values of F_D on a grid of %d points", len(pc.Truth), r.grid.Points())
	}
	r.resid = make([]float64, len(pc.Truth))
	r.grid.Apply(lattice, r.resid)
	for i, v := range pc.Truth {
		r.resid[i] -= v
	}
	if pc.Points != nil {
		if r.points, err = peers.NewGPInterpolation(axes, pc.Points.X); err != nil {
			return nil, err
		}
		r.base = make([]float64, r.points.Points())
		r.points.Apply(lattice, r.base)
	}
	return r, nil
}

// gridScratch returns a worker's buffer for the path at the preview grid
// (nil when the path is sampled there).
func (r *gpRelease) gridScratch() []float64 {
	if r.grid == nil {
		return nil
	}
	return make([]float64, r.grid.Points())
}

// supError writes, for every scale s, the sup over the preview grid of
// the release's error for the unit path (resid + s·I(path)), at the
// scratch of gridScratch.
func (r *gpRelease) supError(path, at, scales, out []float64) {
	if r.grid == nil {
		sup := 0.0
		for _, v := range path {
			sup = math.Max(sup, math.Abs(v))
		}
		gpScaleSup(sup, scales, out)
		return
	}
	r.grid.Apply(path, at)
	supLinear(r.resid, at, scales, out)
}

// tensorPoints lists the points of a tensor grid row-major (last axis
// fastest), ℓ coordinates each: the lattice order of Truth.
func tensorPoints(axes [][]float64) []float64 {
	n := 1
	for _, a := range axes {
		n *= len(a)
	}
	dim := len(axes)
	out := make([]float64, n*dim)
	for q := range n {
		r := q
		for j := dim - 1; j >= 0; j-- {
			out[q*dim+j] = axes[j][r%len(axes[j])]
			r /= len(axes[j])
		}
	}
	return out
}

// gpChunk is the number of GP paths drawn per chunk.
const gpChunk = 128

// gpScaleSup sets out[e] = scales[e]·sup (0 for NaN scales): the GP
// release's error at every ε from the sup of one unit path.
func gpScaleSup(sup float64, scales, out []float64) {
	for e, s := range scales {
		out[e] = 0
		if !math.IsNaN(s) {
			out[e] = s * sup
		}
	}
}
