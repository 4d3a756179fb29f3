package preview

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
)

// The preview engine turns the curator's current settings into the data of
// the two preview plots. It never releases anything: the fit goes through
// release.Prepare (the one pipeline shared with the release), and every
// "release" it shows is a mechanism.SimulatedRelease made with seeded
// simulation noise.
//
// Caching (what does not change is computed once):
//   - the fit (release.Prepare: mapping, learner fit) per fit key — data,
//     columns, bounds, learner and parameters;
//   - F_D on the lattice per k (mechanism.EvaluateLattice on the cached
//     oracle), F_D on the preview grid per fit;
//   - per k the tradeoff model (basis matrices per h and exact parts);
//   - the tradeoff curves per (k, noise, δ, ε grid);
//
// so moving the ε slider only recomputes the marker (one order, 200
// repeats: ~20 ms at ℓ = 2, k = 20) and one simulated release.

// previewOrders are the orders h drawn in the tradeoff plot.
var previewOrders = []int{1, 2, 3, 4, 5}

// previewSeed seeds every simulated release of the preview, so the same
// settings always show the same picture.
const previewSeed = 20170204

// Repeats returns the simulated releases averaged per tradeoff
// point: 200 for ℓ ≤ 2, fewer for larger ℓ where each costs more.
func Repeats(dim int) int {
	switch {
	case dim <= 2:
		return 200
	case dim == 3:
		return 100
	}
	return 50
}

// Input is everything the preview depends on.
type Input struct {
	// Request is the release request the curator would make now (Title,
	// Note are ignored). Privacy.K is used unless KAuto.
	Request release.Request
	// SliceAt gives, for ℓ ≥ 3, the position in [0,1] of every axis from
	// the third on (the function plot shows the slice through axes 1 and 2).
	SliceAt []float64
	// Peers adds the published peers that apply to the learner to the
	// tradeoff simulation (study.BuildPeers).
	Peers bool
	// Recommend compares Bernstein with the releasable peers at the
	// curator's (ε, δ) (Result.Recommendation; recommend.go).
	Recommend bool
	// StandIn, if not empty, names the public stand-in that replaced the
	// private data in Request; the plots are marked with it.
	StandIn string
}

// Stage names the step of the preview in progress.
type Stage string

const (
	StageFit      Stage = "Fitting the learner and evaluating F_D on the lattice"
	StageLattice  Stage = "Evaluating F_D on the lattice"
	StageGrid     Stage = "Evaluating F_D on the preview grid"
	StageSimulate Stage = "Simulating releases"
	StagePeers    Stage = "Simulating releases of the published peers"
)

// Progress is called (from any goroutine) with the stage and its
// progress.
type Progress func(stage Stage, done, total int)

// Result is the computed preview: plot data and numbers, no images.
type Result struct {
	Dim         int
	K           []int
	H           int
	Epsilon     float64
	Noise       mechanism.NoiseKind
	Scale       float64 // noise scale λ / λ_δ / σ at the current setting
	Sensitivity float64
	// NoiseSensitivity is what the noise is calibrated to at this setting
	// (Fitted.NoiseSensitivity): Sensitivity, or a smaller proven lattice
	// bound (the affine logistic score's L(k)).
	NoiseSensitivity float64
	SensNote         string
	N                int
	Clipped          map[string]int // curator only
	Filled           map[string]int // curator only
	PureBetter       bool           // laplace-approx is worse than pure Laplace here
	MarkerErr        float64        // mean sup-norm error at the current setting (learner units)
	// Error95 is the error at 95 % at the current setting
	// (study.Model.QuantileError, the target search's measure: the
	// sup-norm error in learner units, a classifier's disagreement with
	// the non-private classifier as a share of the records), from the same
	// simulated releases as MarkerErr; Error95Text writes it.
	Error95  study.TargetPoint
	Approx   float64 // noiseless approximation error at the current h, k (learner units)
	Warnings []string
	// Units converts the errors to the function plot's units (UnitName)
	// and shares of the public range (RangeText, in plot units): ErrorText.
	Units     study.Units
	UnitName  string
	RangeText string
	// ZeroErr is the error of publishing zero, max |F_D| on the grid
	// (learner units; private).
	ZeroErr float64
	// Classifier: Agreement is the mean share of the records on which the
	// simulated releases at the current setting agree with the non-private
	// classifier, Accuracy their mean accuracy on the records and
	// NonPrivateAccuracy the non-private classifier's (curator only; NaN
	// for other learners). RMSE is a regression's mean RMSE of the
	// released vs the non-private fit on the grid (learner units; NaN for
	// other learners). All from the same simulated releases as MarkerErr.
	// Records is how many records they are scored on (at most
	// previewMaxPoints, evenly spaced by row number).
	Classifier                              bool
	Agreement, Accuracy, NonPrivateAccuracy float64
	Records                                 int
	RMSE                                    float64
	// SweepBestK and SweepBestErr are the least mean sup-norm error of the
	// error-vs-k curve and its k; NoBetterThanZero says that every k is no
	// better than publishing zero (study.AllNoBetterThanZero).
	SweepBestK       int
	SweepBestErr     float64
	NoBetterThanZero bool
	// Peers are the peer curves (input Peers set); PeerCaption explains
	// peers that do not apply ("No published peer applies to …").
	Peers       []study.PeerCurve
	PeerCaption string
	// Recommendation is the mechanism with the least mean simulated error
	// at the current (ε, δ) (input Recommend set; recommend.go).
	Recommendation *Recommendation

	Tradeoff *plotting.Tradeoff
	Function *plotting.Function1D // ℓ = 1
	Heatmaps *plotting.Heatmaps   // ℓ ≥ 2
	// Sweep is the error (a classifier: the agreement) against k at the
	// current ε and h; nil when k differs between axes.
	Sweep *plotting.Tradeoff
}

// tradeoffGrid returns the per-axis evaluation grid of the preview for
// dimension dim: the sup-norm is taken over this tensor grid. It is
// study.TargetGrid (about 10⁴ points in total, 100×100 for ℓ = 2, at least
// 4 per axis), so the target search takes the same sup-norm.
func tradeoffGrid(dim int) [][]float64 { return study.TargetGrid(dim) }

// epsilonGrid returns the 7 ε values of the tradeoff plot around eps: half
// decades from 10^(c−1.5) to 10^(c+1.5) with c = round(log10 ε). The grid
// only changes when ε crosses a half-decade boundary, so moving the ε
// slider usually just moves the marker.
func epsilonGrid(eps float64) []float64 {
	c := math.Round(math.Log10(eps))
	out := make([]float64, 7)
	for i := range out {
		out[i] = math.Pow(10, c-1.5+0.5*float64(i))
	}
	return out
}

// Engine holds the caches. Its methods are safe for concurrent use;
// Compute calls are serialised (a new one waits for the previous to notice
// its cancellation).
type Engine struct {
	run sync.Mutex // serialises compute

	mu       sync.Mutex
	FitKey   string
	prep     *release.Prepared
	lattices map[string][]float64
	truth    []float64 // F_D on tradeoffGrid(dim)
	models   map[string]*study.Model
	curves   map[string]*study.Result
	// peerSims (per k) and peerCurves (per curve key) cache the overlay.
	peerSims   map[string]*peerBuild
	peerCurves map[string][]study.PeerCurve
	autoK      map[string]*autoKCurve // automatic-k curves (preview_autok.go)
	sliceKey   string
	slice      []float64
	// points are the records with F_D at each (classifiers), modelPoints
	// them bound to the model of each k, sweeps the error-vs-k curves per
	// ε, h, noise and δ (measures.go).
	points      *study.PointData
	modelPoints map[string]*study.Points
	sweeps      map[string]*study.KSweep
}

// NewEngine returns an engine with empty caches.
func NewEngine() *Engine {
	return &Engine{}
}

// resetLocked drops every cache (a new fit).
func (e *Engine) resetLocked() {
	e.FitKey, e.prep, e.truth, e.sliceKey, e.slice, e.points = "", nil, nil, "", nil, nil
	e.lattices = map[string][]float64{}
	e.models = map[string]*study.Model{}
	e.curves = map[string]*study.Result{}
	e.peerSims = map[string]*peerBuild{}
	e.peerCurves = map[string][]study.PeerCurve{}
	e.autoK = map[string]*autoKCurve{}
	e.modelPoints = map[string]*study.Points{}
	e.sweeps = map[string]*study.KSweep{}
}

// peerBuild is the peers prepared for one fit and k.
type peerBuild struct {
	sims    []*study.Peer
	caption string
}

// FitKey identifies everything the fit depends on.
func FitKey(r release.Request) string {
	var b strings.Builder
	if r.Dataset != nil {
		fmt.Fprintf(&b, "data=%s|%s|%d|", r.Dataset.Hash, r.Dataset.Path, r.Dataset.Rows)
	}
	if a := r.Aggregates; a != nil {
		// The table or records file by path and, so that a file rewritten
		// in place is read again, its size and modification time.
		fmt.Fprintf(&b, "agg=%q|%s|%q|%s|%d|%q|%d|%q|dialect=%s|", a.Path, fileStamp(a.Path), a.Records, fileStamp(a.Records), a.Bins, a.Table, a.N, a.Dataset, a.Dialect)
	}
	fmt.Fprintf(&b, "f=%q|l=%q|classes=%v|fillclass=%q|ack=%v|learner=%s|", r.Features, r.Label, r.Classes, r.FillClass, r.AcknowledgedDataBounds, r.Learner)
	// The units are part of the fit: they name the plots' axes and the
	// errors' units (prep.Domain).
	units := make([]string, 0, len(r.Units))
	for c, u := range r.Units {
		units = append(units, fmt.Sprintf("%q=%q", c, u))
	}
	sort.Strings(units)
	fmt.Fprintf(&b, "units=%s|", strings.Join(units, ","))
	cols := make([]string, 0, len(r.Bounds))
	for c := range r.Bounds {
		cols = append(cols, c)
	}
	for c := range r.BoundsFromData {
		if _, ok := r.Bounds[c]; !ok {
			cols = append(cols, c)
		}
	}
	sort.Strings(cols)
	for _, c := range cols {
		bd := r.Bounds[c]
		fill, ok := r.Fill[c]
		fmt.Fprintf(&b, "b[%q]=%v:%v:%v:fill=%v,%v|", c, bd.Lo, bd.Hi, r.BoundsFromData[c], fill, ok)
	}
	names := make([]string, 0, len(r.Params))
	for n := range r.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "p[%s]=%v|", n, r.Params[n])
	}
	return b.String()
}

// fileStamp is a file's size and modification time ("" for no path, "?"
// for one that cannot be read): part of FitKey for files read by path.
func fileStamp(path string) string {
	if path == "" {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%d@%d", fi.Size(), fi.ModTime().UnixNano())
}

func kKey(k []int) string {
	s := make([]string, len(k))
	for i, v := range k {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, "x")
}

// Compute returns the preview for in. It returns ctx.Err() when cancelled
// and request errors (missing bounds, invalid parameters, …) as they come
// from release.Prepare or mechanism validation.
func (e *Engine) Compute(ctx context.Context, in Input, progress Progress) (*Result, error) {
	e.run.Lock()
	defer e.run.Unlock()
	if progress == nil {
		progress = func(Stage, int, int) {}
	}
	st, err := e.simulate(ctx, in.Request, progress)
	if err != nil {
		return nil, err
	}
	res := st.result()
	if in.Peers {
		if err := e.addPeers(ctx, res, st.peerData(),
			st.kk, st.ckey, st.epsGrid, st.repeats, progress); err != nil {
			return nil, err
		}
	}
	res.Tradeoff = tradeoffPlot(st, res, in.Peers)
	if in.Request.KAuto {
		if err := e.addAutoKCurve(ctx, in.Request, st, res); err != nil {
			return nil, err
		}
	}
	if in.Peers {
		n := len(res.Tradeoff.Curves)
		if err := e.addApproxDPCurves(ctx, in.Request, st, res); err != nil { // likewise.go
			return nil, err
		}
		scaleCurves(res.Tradeoff.Curves[n:], st.units) // learner units → plot units
	}
	if in.Recommend {
		if err := e.recommend(ctx, st, res, progress); err != nil { // recommend.go
			return nil, err
		}
	}
	if err := e.addSweep(ctx, st, res, progress); err != nil {
		return nil, err
	}
	if err := e.functionPlots(ctx, st, in.SliceAt, res, progress); err != nil {
		return nil, err
	}
	MarkStandIn(res, in.StandIn)
	return res, nil
}

// previewState is what one compute works from: the fit, the resolved
// parameters, F_D on the lattice and on the preview grid, the study model
// and its simulated curves, and the cache keys they are stored under.
type previewState struct {
	prep   *release.Prepared
	params mechanism.Params
	// sens is the sensitivity the release calibrates its noise to at
	// params (Fitted.NoiseSensitivity: S, or the affine logistic score's
	// lattice bound L(k) ≤ S), so the simulated releases have its noise.
	sens    float64
	scale   float64
	kk      string // kKey(params.K)
	grid    [][]float64
	exact   []float64 // F_D on the lattice of params.K
	truth   []float64 // F_D on grid
	model   *study.Model
	epsGrid []float64
	repeats int
	ckey    string // the curves' cache key
	curves  *study.Result
	marker  *study.Result     // the current setting alone
	q95     study.TargetPoint // its error at 95 % (the same releases)
	// What is measured (measures.go): the kind, a classifier's threshold,
	// the measures beside the sup-norm error, the error units, and the
	// records (classifiers), also bound to model.
	kind      measureKind
	threshold float64
	also      []study.Measure
	units     study.Units
	pts       *study.PointData
	points    *study.Points
}

// cached returns what load finds under mu or, when it finds nothing,
// computes the value without holding mu (it may take seconds) and stores
// it under mu. Callers hold e.run, so two computes never race on a key.
func cached[T any](mu *sync.Mutex, load func() (T, bool), compute func() (T, error), store func(T)) (T, error) {
	mu.Lock()
	v, ok := load()
	mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	mu.Lock()
	store(v)
	mu.Unlock()
	return v, nil
}

// simulate fits (or reuses the fit), resolves k, evaluates F_D on the
// lattice and the preview grid, and runs the study's simulated releases,
// each step cached per fit (and per k, noise and ε grid).
func (e *Engine) simulate(ctx context.Context, req release.Request, progress Progress) (*previewState, error) {
	key := FitKey(req)
	e.mu.Lock()
	if e.lattices == nil || e.FitKey != key {
		e.resetLocked()
	}
	e.mu.Unlock()
	st := &previewState{}
	var err error
	st.prep, err = cached(&e.mu, func() (*release.Prepared, bool) { return e.prep, e.prep != nil },
		func() (*release.Prepared, error) {
			return release.Prepare(ctx, req, func(done, total int) { progress(StageFit, done, total) })
		},
		func(p *release.Prepared) {
			e.FitKey, e.prep = key, p
			e.lattices[kKey(p.Params.K)] = p.Exact
		})
	if err != nil {
		return nil, err
	}
	fit := st.prep.Fitted
	dim := len(req.Features)
	if st.params, err = mechanism.ResolveK(req.Privacy, dim, req.KAuto, req.Beta, fit.Sensitivity, fit.StandIn); err != nil {
		return nil, err
	}
	st.sens = fit.NoiseSensitivity(st.params.K, st.params.Noise)
	if st.scale, err = mechanism.NoiseScale(st.sens, st.params); err != nil {
		return nil, err
	}
	st.kk = kKey(st.params.K)
	st.exact, err = cached(&e.mu, func() ([]float64, bool) { v := e.lattices[st.kk]; return v, v != nil },
		func() ([]float64, error) {
			lat, err := mechanism.NewLattice(st.params.K)
			if err != nil {
				return nil, err
			}
			return mechanism.EvaluateLattice(ctx, fit.Oracle, lat, func(d, t int) { progress(StageLattice, d, t) })
		},
		func(v []float64) { e.lattices[st.kk] = v })
	if err != nil {
		return nil, err
	}
	st.grid = tradeoffGrid(dim)
	st.truth, err = cached(&e.mu, func() ([]float64, bool) { return e.truth, e.truth != nil },
		func() ([]float64, error) {
			return study.EvalGrid(ctx, fit.Oracle, st.grid, func(d, t int) { progress(StageGrid, d, t) })
		},
		func(v []float64) { e.truth = v })
	if err != nil {
		return nil, err
	}
	orders := slices.Clone(previewOrders)
	if !slices.Contains(orders, st.params.H) {
		orders = append(orders, st.params.H)
	}
	st.model, err = cached(&e.mu,
		func() (*study.Model, bool) {
			md := e.models[st.kk]
			return md, md != nil && slices.Contains(md.Orders(), st.params.H)
		},
		func() (*study.Model, error) { return study.NewModel(st.params.K, st.exact, st.grid, st.truth, orders) },
		func(md *study.Model) { e.models[st.kk] = md })
	if err != nil {
		return nil, err
	}
	if err := e.prepareMeasures(ctx, st); err != nil {
		return nil, err
	}
	return st, e.runCurves(ctx, st, progress)
}

// runCurves simulates the error-vs-ε curves (cached per k, noise, δ, ε
// grid, repeats and S) and the error at the current setting.
func (e *Engine) runCurves(ctx context.Context, st *previewState, progress Progress) error {
	p, sens := st.params, st.sens
	st.repeats = Repeats(len(p.K))
	st.epsGrid = epsilonGrid(p.Epsilon)
	st.ckey = fmt.Sprintf("%s|%s|%v|%v|%d|%v", st.kk, p.Noise, p.Delta, st.epsGrid, st.repeats, sens)
	var err error
	st.curves, err = cached(&e.mu, func() (*study.Result, bool) { v := e.curves[st.ckey]; return v, v != nil },
		func() (*study.Result, error) {
			return st.model.Run(ctx, st.spec(st.epsGrid, previewOrders, true), func(d, t int) { progress(StageSimulate, d, t) })
		},
		func(v *study.Result) { e.curves[st.ckey] = v })
	if err != nil {
		return err
	}
	if st.marker, err = st.model.Run(ctx, st.spec([]float64{p.Epsilon}, []int{p.H}, false), nil); err != nil {
		return err
	}
	st.q95, err = st.model.QuantileError(ctx, study.SettingSpec{Sensitivity: sens, Params: p, Points: st.points,
		Threshold: st.threshold, Repeats: st.repeats, Seed: previewSeed})
	return err
}

// result is the preview's numbers and warnings for st (plots come later).
func (st *previewState) result() *Result {
	fit, params := st.prep.Fitted, st.params
	res := &Result{
		Dim: len(params.K), K: params.K, H: params.H, Epsilon: params.Epsilon, Noise: params.Noise, Scale: st.scale,
		Sensitivity: fit.Sensitivity, NoiseSensitivity: st.sens, SensNote: fit.SensitivityNote, N: fit.N,
		Clipped: st.prep.Clipped, Filled: st.prep.Filled,
		MarkerErr: st.marker.Mean[0][0], Error95: st.q95, Approx: st.model.Approx(params.H),
	}
	st.markerMeasures(res)
	if line := binningBiasLine(st.prep, res); line != "" {
		res.Warnings = append(res.Warnings, line)
	}
	if params.Noise == mechanism.NoiseLaplaceApprox {
		res.PureBetter = mechanism.PureIsBetter(params)
		if res.PureBetter {
			res.Warnings = append(res.Warnings, "With these settings (ε, δ)-Laplace adds more noise than pure ε-Laplace: choose the pure Laplace noise.")
		}
	}
	for i, err := range st.curves.Errors {
		if err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("ε = %s is not shown: %v", fmtEps(st.curves.Epsilons[i]), err))
		}
	}
	return res
}

// binningBiasLine is the error budget's line for a KDE released from binned
// aggregates (issue 20): the binned KDE differs from the KDE of the records
// by at most learners.KDEBinningBound (the kernel's Lipschitz constant
// times half a bin, docs/sensitivity.md), on top of the errors the preview
// simulates from the binned function. "" for any other release.
func binningBiasLine(prep *release.Prepared, res *Result) string {
	src := prep.Source
	if src == nil || src.Bins < 1 || prep.Spec.Kind != learners.KindKDE {
		return ""
	}
	bw := prep.Resolved["bandwidth"]
	if len(bw) == 1 {
		bw = slices.Repeat(bw, res.Dim)
	}
	return fmt.Sprintf("Binned records (B = %d per axis): the released KDE is that of the bin centres, within %s of the KDE of the records (binning bias: the kernel's Lipschitz constant × half a bin), on top of the errors shown.",
		src.Bins, res.ErrorText(learners.KDEBinningBound(bw, src.Bins)))
}

// functionPlots draws one simulated release at the current setting beside
// F_D: a curve in one dimension, heat maps in two, and in more a slice
// through sliceAt (F_D on the slice cached per slice).
func (e *Engine) functionPlots(ctx context.Context, st *previewState, sliceAt []float64, res *Result, progress Progress) error {
	fit := st.prep.Fitted
	sim, err := mechanism.Simulate(st.exact, st.sens, st.params, mechanism.NewSimulationNoise(previewSeed))
	if err != nil {
		return err
	}
	aff := outputAffine(st.prep)
	dim := len(st.params.K)
	if dim == 1 {
		res.Function, err = functionPlot1D(sim, st.grid[0], st.truth, st.prep, aff, res)
		if err == nil && st.kind == measureRegression {
			// The released curve over the data (curator only).
			res.Function.ScatterX, res.Function.ScatterY = scatter(st.prep, aff)
			res.Function.ScatterLabel = "data (curator only, never published)"
		}
		return err
	}
	axes, sliceTruth := st.grid, st.truth
	if dim > 2 {
		axes = sliceAxes(dim, sliceAt)
		skey := fmt.Sprint(axes[2:])
		sliceTruth, err = cached(&e.mu,
			func() ([]float64, bool) { return e.slice, e.sliceKey == skey && e.slice != nil },
			func() ([]float64, error) {
				return study.EvalGrid(ctx, fit.Oracle, axes, func(d, t int) { progress(StageGrid, d, t) })
			},
			func(v []float64) { e.sliceKey, e.slice = skey, v })
		if err != nil {
			return err
		}
	}
	res.Heatmaps, err = heatmapPlot(sim, axes, sliceTruth, st.prep, aff, res)
	return err
}

// addPeers fills res.Peers and res.PeerCaption from the caches, simulating
// what is missing with the same ε grid, repeats and seed as the Bernstein
// curves (study.RunPeers).
func (e *Engine) addPeers(ctx context.Context, res *Result, pc study.PeerData, kk, ckey string,
	epsGrid []float64, repeats int, progress Progress) error {
	pb, err := e.peerBuild(pc, kk)
	if err != nil {
		return err
	}
	e.mu.Lock()
	curves, cached := e.peerCurves[ckey]
	e.mu.Unlock()
	if !cached {
		curves, err = study.RunPeers(ctx, pb.sims, epsGrid, repeats, study.PerRepeat{Seed: previewSeed}, func(d, t int) { progress(StagePeers, d, t) })
		if err != nil {
			return err
		}
		e.mu.Lock()
		e.peerCurves[ckey] = curves
		e.mu.Unlock()
	}
	res.Peers, res.PeerCaption = curves, pb.caption
	return nil
}

// peerBuild returns the peers prepared for pc and the lattice key kk,
// building them on first use (cached per k and δ).
func (e *Engine) peerBuild(pc study.PeerData, kk string) (*peerBuild, error) {
	skey := fmt.Sprintf("%s|δ=%v", kk, pc.Delta)
	e.mu.Lock()
	pb := e.peerSims[skey]
	e.mu.Unlock()
	if pb == nil {
		sims, caption, err := study.BuildPeers(pc)
		if err != nil {
			return nil, err
		}
		pb = &peerBuild{sims: sims, caption: caption}
		e.mu.Lock()
		e.peerSims[skey] = pb
		e.mu.Unlock()
	}
	return pb, nil
}

// peerData is what the published peers of the overlay may use: the
// prepared fit, the preview grid and F_D on it, the lattice k of the
// Bernstein curves and the curator's δ.
func peerData(prep *release.Prepared, grid [][]float64, truth []float64, k []int, delta float64) study.PeerData {
	return study.PeerData{Kind: prep.Spec.Kind, Title: prep.Spec.Title, Data: prep.LearnerData(), Fitted: prep.Fitted,
		Values: learners.Values(prep.Resolved), Grid: grid, Truth: truth, K: k, Delta: delta}
}

// peerData is st's: with a classifier's records and threshold, so the
// peers' error at 95 % is their disagreement (study.Peer.QuantileError).
func (st *previewState) peerData() study.PeerData {
	pd := peerData(st.prep, st.grid, st.truth, st.params.K, st.params.Delta)
	pd.Points, pd.Threshold = st.pts, st.threshold
	return pd
}

// sliceAxes returns the axes of the ℓ ≥ 3 slice: a 60×60 grid over the
// first two axes and the single value SliceAt[j−2] (default ½) on the rest.
func sliceAxes(dim int, at []float64) [][]float64 {
	axes := make([][]float64, dim)
	axes[0], axes[1] = study.Linspace01(60), study.Linspace01(60)
	for j := 2; j < dim; j++ {
		v := 0.5
		if j-2 < len(at) && at[j-2] >= 0 && at[j-2] <= 1 {
			v = at[j-2]
		}
		axes[j] = []float64{v}
	}
	return axes
}

// affine maps the learner's output units to data units: offset + scale·v.
type affine struct{ offset, scale float64 }

func (a affine) apply(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = a.offset + a.scale*x
	}
	return out
}

// outputAffine is project's (*SynopsisFile).OutputAffine for the prepared
// release's domain and output kind (the same map the analyst's viewer uses).
func outputAffine(p *release.Prepared) affine {
	f := &synopsis.File{Domain: p.Domain}
	f.Output.Kind = string(p.Spec.Output.Kind)
	o, s := f.OutputAffine()
	return affine{o, s}
}

// axisData maps [0,1] grid values to the feature's data units.
func axisData(b synopsis.Bound, ys []float64) []float64 {
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = b.Lo + (b.Hi-b.Lo)*y
	}
	return out
}

// axisLabel is "name (unit)" or the name.
func axisLabel(b synopsis.Bound) string {
	if b.Unit != "" {
		return b.Name + " (" + b.Unit + ")"
	}
	return b.Name
}

// outputLabel names the output axis of the function plot.
func outputLabel(p *release.Prepared) string {
	o := p.Spec.Output
	switch o.Kind {
	case learners.OutputDensity:
		return o.Name + " (per unit of the features)"
	case learners.OutputRegression:
		if p.Domain.Label != nil {
			return axisLabel(*p.Domain.Label)
		}
	}
	return o.Name
}

func fmtEps(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// tradeoffPlot assembles the tradeoff figure: a classifier's agreement
// (classifierPlot) unless the published peers are compared (they are
// scored by sup-norm error), else the sup-norm error in the function
// plot's units (with a regression's RMSE).
func tradeoffPlot(st *previewState, res *Result, peers bool) *plotting.Tradeoff {
	if st.kind == measureClassifier && !peers {
		return classifierPlot(st, res)
	}
	c, md, params, sens := st.curves, st.model, st.params, st.prep.Fitted.Sensitivity
	t := &plotting.Tradeoff{
		Title:    fmt.Sprintf("Error vs privacy: k = %s, mean of %d simulated releases", KLabel(params.K), Repeats(len(params.K))),
		Epsilons: c.Epsilons, MarkerEps: params.Epsilon, MarkerErr: res.MarkerErr,
		MarkerLabel: fmt.Sprintf("your setting (ε = %s, h = %d)", fmtEps(params.Epsilon), params.H),
	}
	for o, h := range c.Orders {
		w := 1.5
		if h == params.H {
			w = 2.5
		}
		t.Curves = append(t.Curves, plotting.Curve{Label: fmt.Sprintf("Bernstein, h = %d", h), Y: c.Mean[o], Colour: o, Width: w})
	}
	t.Curves = append(t.Curves, plotting.Curve{Label: "nearest lattice point (baseline)", Y: c.Baseline, Colour: 5, Dashed: true, Width: 1.8})
	// The proven 95% bound on the sup error: noiseless approximation error
	// plus the uniform tail bound of the noise (Laplace or Gaussian).
	tail := mechanism.UniformNoiseTailBound
	if params.Noise == mechanism.NoiseGaussian {
		tail = mechanism.UniformGaussianNoiseTailBound
	}
	bound := make([]float64, len(c.Epsilons))
	for i, s := range c.Scales {
		bound[i] = math.NaN()
		if !math.IsNaN(s) {
			bound[i] = md.Approx(params.H) + tail(s, params.H, params.K, release.DefaultBeta)
		}
	}
	t.Curves = append(t.Curves, plotting.Curve{Label: fmt.Sprintf("95%% bound (h = %d)", params.H), Y: bound, Colour: -1, Dashed: true, Width: 1.2})
	lower := make([]float64, len(c.Epsilons))
	for i, eps := range c.Epsilons {
		lower[i] = mechanism.LowerBound(sens, eps)
	}
	t.Curves = append(t.Curves, plotting.Curve{Label: "lower bound S/ε (up to constants)", Y: lower, Colour: -1, Dashed: true, Width: 0.8})
	for i, pc := range res.Peers {
		t.Curves = append(t.Curves, plotting.Curve{Label: pc.Label, Y: pc.Mean, Colour: 6 + i, Dashed: true, Width: 2, Group: study.GuaranteeGroup(pc.Delta)})
	}
	scaleCurves(t.Curves, st.units)
	t.MarkerErr = st.units.Plot(t.MarkerErr)
	t.YLabel = errorLabel("sup-norm error", res.UnitName)
	addRMSECurve(t, st)
	return t
}

// KLabel writes a cover size k for people: "20" when every axis has the
// same k, else "20x10".
func KLabel(k []int) string {
	if len(k) > 0 && slices.Equal(k, slices.Repeat(k[:1], len(k))) {
		return strconv.Itoa(k[0])
	}
	return kKey(k)
}

// functionPlot1D assembles the ℓ = 1 figure in data units.
func functionPlot1D(sim *mechanism.SimulatedRelease, ys, truth []float64, prep *release.Prepared, aff affine, res *Result) (*plotting.Function1D, error) {
	rel, err := sim.EvalGrid([][]float64{ys})
	if err != nil {
		return nil, err
	}
	band := make([]float64, len(ys))
	for i, y := range ys {
		s, err := sim.NoiseStdAt([]float64{y})
		if err != nil {
			return nil, err
		}
		band[i] = 2 * s * math.Abs(aff.scale)
	}
	fb := prep.Domain.Features[0]
	return &plotting.Function1D{
		Title:  fmt.Sprintf("F_D and one simulated release (ε = %s, h = %d, k = %d)", fmtEps(res.Epsilon), res.H, res.K[0]),
		XLabel: axisLabel(fb), YLabel: outputLabel(prep),
		X: axisData(fb, ys), True: aff.apply(truth), Release: aff.apply(rel), Band: band,
		BandLabel: "±2 noise std (public)",
	}, nil
}

// heatmapPlot assembles the ℓ ≥ 2 figure (a slice for ℓ ≥ 3).
func heatmapPlot(sim *mechanism.SimulatedRelease, axes [][]float64, truth []float64, prep *release.Prepared, aff affine, res *Result) (*plotting.Heatmaps, error) {
	rel, err := sim.EvalGrid(axes)
	if err != nil {
		return nil, err
	}
	fx, fy := prep.Domain.Features[0], prep.Domain.Features[1]
	tv := aff.apply(truth)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range tv {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	h := &plotting.Heatmaps{
		XLabel: axisLabel(fx), YLabel: axisLabel(fy),
		X: axisData(fx, axes[0]), Y: axisData(fy, axes[1]),
		Maps: []plotting.Heatmap{
			{Title: "true F_D (private)", Values: tv},
			{Title: fmt.Sprintf("simulated release (ε = %s, h = %d)", fmtEps(res.Epsilon), res.H), Values: aff.apply(rel)},
		},
		Min: lo, Max: hi, ColourLabel: prep.Spec.Output.Name,
	}
	switch prep.Spec.Output.Kind {
	case learners.OutputClassScore:
		h.Boundary, h.BoundaryLevel, h.Diverging, h.Center = true, 0, true, 0
	case learners.OutputProbability:
		h.Boundary, h.BoundaryLevel, h.Diverging, h.Center = true, 0.5, true, 0.5
	}
	if h.Diverging {
		// A classifier's colours span its public output range, the same
		// for F_D and the release at any setting (walkthrough: the scale
		// was F_D's own range, so a faint score looked as strong as a
		// sure one).
		if r := prep.Fitted.OutputRange; !math.IsInf(r[0], 0) && !math.IsInf(r[1], 0) && r[1] > r[0] {
			lo, hi = aff.offset+aff.scale*r[0], aff.offset+aff.scale*r[1]
			h.Min, h.Max = math.Min(lo, hi), math.Max(lo, hi)
		}
	}
	if len(axes) > 2 {
		var parts []string
		for j := 2; j < len(axes); j++ {
			b := prep.Domain.Features[j]
			parts = append(parts, fmt.Sprintf("%s = %.4g", b.Name, b.Lo+(b.Hi-b.Lo)*axes[j][0]))
		}
		h.Maps[0].Title += " at " + strings.Join(parts, ", ")
	}
	return h, nil
}

// MarkStandIn labels the plots of a preview computed on a stand-in.
func MarkStandIn(res *Result, label string) {
	if label == "" || res == nil {
		return
	}
	suffix := " — " + label
	if res.Tradeoff != nil {
		res.Tradeoff.Title += suffix
	}
	if res.Function != nil {
		res.Function.Title += suffix
	}
	if res.Sweep != nil {
		res.Sweep.Title += suffix
	}
	if res.Heatmaps != nil {
		for i := range res.Heatmaps.Maps {
			res.Heatmaps.Maps[i].Title = strings.Replace(res.Heatmaps.Maps[i].Title, "(private)", "(stand-in)", 1)
		}
		if len(res.Heatmaps.Maps) > 0 {
			res.Heatmaps.Maps[0].Title += suffix
		}
	}
	res.Warnings = append(res.Warnings, "Preview on a "+label+", not on the private data.")
}

// Render draws both plots of a result.
func Render(res *Result, th plotting.Theme, ts, fs plotting.Size) (timg, fimg image.Image, err error) {
	timg, err = plotting.RenderTradeoff(res.Tradeoff, th, ts)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case res.Function != nil:
		fimg, err = plotting.RenderFunction1D(res.Function, th, fs)
	case res.Heatmaps != nil:
		fimg, err = plotting.RenderHeatmaps(res.Heatmaps, th, fs)
	}
	return timg, fimg, err
}
