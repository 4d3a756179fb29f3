package study

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// Accuracy first (issue 19, item 3): a curator types the error it can
// accept and FindEpsilon proposes the smallest ε, with the noise kind, h
// and k, whose simulated releases reach it. The error is a quantile over
// simulated releases (TargetQuantile: "with 95 % probability the release's
// error is at most …"): the sup-norm error on the grid for a density or a
// regression, the share of the points where the released classifier
// disagrees with the non-private one for a classifier. Every release is
// simulated with seeded simulation noise (Model.worker, the draws of
// PerRepeat): nothing here is a release.

// TargetQuantile is the quantile of the error over simulated releases the
// target is compared with: 95 %.
const TargetQuantile = 0.95

// Search range of ε by default: the curator's ε slider, 0.001 to 100.
const (
	DefaultTargetEpsMin = 1e-3
	DefaultTargetEpsMax = 100
)

// targetStepsPerDecade is the density of the coarse log grid of ε;
// targetBisections the halvings (in log ε) of the bracket found on it: the
// proposal is within a factor 10^(1/(3·2^6)) ≈ 1.012 of the grid's
// smallest passing ε before rounding.
const (
	targetStepsPerDecade = 3
	targetBisections     = 6
)

// TargetRepeats is the number of simulated releases per (ε, noise, h, k)
// of the search in dim dimensions: 400 for ℓ ≤ 2 (the 95 % quantile is
// then the 380th of 400, with a 95 % confidence interval of ±9 ranks), 200
// for ℓ = 3, 100 beyond, where each release costs more.
func TargetRepeats(dim int) int {
	switch {
	case dim <= 2:
		return 400
	case dim == 3:
		return 200
	}
	return 100
}

// TargetProblem is what the search simulates: F_D (on the lattice of any
// k, on the grid and, for a classifier, at the points) and the public
// rules of the release. It is the preview's data — the private data
// (curator only) or a public stand-in.
type TargetProblem struct {
	// Lattice returns F_D on the lattice of cover sizes k.
	Lattice LatticeFunc
	// Grid and Truth: F_D on the tensor grid (lattice order), where a
	// density's or a regression's sup-norm error is taken.
	Grid  [][]float64
	Truth []float64
	// Points, when not nil, makes the problem a classifier's: the error of
	// a release is the share of the points where it disagrees with the
	// non-private classifier (class +1 where the value is ≥ Threshold).
	Points    *PointData
	Threshold float64
	// Sensitivity S, the learner's public stand-in and β: what the
	// automatic k rule reads (mechanism.AutoCoverSize; Beta 0 means
	// mechanism.DefaultBeta).
	Sensitivity float64
	StandIn     mechanism.StandIn
	Beta        float64
	// NoiseSensitivity, if not nil, is what a release calibrates its noise
	// to at cover size k and noise kind (learners.Fitted.NoiseSensitivity:
	// S, or a smaller proven lattice bound); nil means Sensitivity.
	NoiseSensitivity func(k []int, noise mechanism.NoiseKind) float64
	// Delta is the curator's δ: 0 searches the pure ε-DP Laplace
	// mechanism only; in (0, 1) also the (ε, δ) variants at this δ
	// (Gaussian noise and Section 4.2's Laplace).
	Delta float64
	// Orders are the candidate h (nil: 1 to 5, the preview's orders).
	Orders []int
	// K, when > 0, is the cover size of every axis (the curator's manual
	// k); 0 applies the automatic k rule at every ε, h and noise kind.
	K int
	// Repeats per point (0: TargetRepeats) and Seed of the draws
	// (PerRepeat; the re-check uses RepeatSeed(Seed, −1), independent).
	Repeats int
	Seed    uint64
	// EpsMin and EpsMax bound the search (0: the defaults).
	EpsMin, EpsMax float64
	// Peers are the published peers searched beside the Bernstein
	// settings (AddPeers): those with a synopsis kind, the pure ε-DP ones
	// at any δ and Hall et al. only at the curator's δ > 0; each peer's
	// own theorem bounds its ε (an ε it refuses does not reach any
	// target). After AddPeers they are built for the caller's k, and the
	// search rebuilds them at the k of every ε it tries (peers); without
	// AddPeers (peers set by hand) they are searched at their own k.
	Peers []*Peer
	// peers is the fit AddPeers builds the peers from, nil without it.
	peers *PeerData
}

// TargetPoint is one setting of the search with its simulated error.
type TargetPoint struct {
	Epsilon float64
	Noise   mechanism.NoiseKind
	Delta   float64 // 0 for NoiseLaplace
	H       int
	K       []int
	// KAuto says K is the automatic k at Epsilon (mechanism.AutoCoverSize
	// for this noise kind and h): a release with "k automatic" uses it.
	// Another k the search simulated (KNeighbours on the grid, the k
	// minimising the error, minimiseK), a peer's and the curator's manual
	// k are not.
	KAuto bool
	// Mechanism is the synopsis kind of a published peer (Peer.Kind) and
	// Label its legend name; "" for the Bernstein mechanism (then H and K
	// are its settings; a peer has H = 0 and the lattice k it was built
	// for).
	Mechanism, Label string
	// Error is the TargetQuantile quantile of the error over the
	// simulated releases (learner units; a classifier's disagreement as a
	// share), and [Low, High] its distribution-free 95 % confidence
	// interval (order statistics): MCError = (High − Low)/2 is the
	// Monte-Carlo error of the quantile. Mean is the mean error.
	Error, Low, High, Mean float64
}

// MCError is the half-width of the quantile's 95 % confidence interval.
func (p TargetPoint) MCError() float64 { return (p.High - p.Low) / 2 }

// TargetResult is the outcome of FindEpsilon.
type TargetResult struct {
	Target  float64
	Reached bool
	// Proposal is the smallest ε found with its setting (its k the one
	// minimising the simulated error there) and its error from the
	// re-check (fresh, independent draws) when Reached; otherwise the
	// setting with the least error over the grid ε simulated, at its k
	// minimising the error.
	Proposal TargetPoint
	// Search is the proposal's error as the search saw it (the draws of
	// Seed), before the re-check: the least over k.
	Search TargetPoint
	// Curve holds, at every ε of the coarse grid the search simulated
	// (increasing ε), the least error over the candidates simulated there;
	// above a mechanism's start that is the first candidate found to reach
	// the target (FindEpsilon's method).
	Curve []TargetPoint
	// Repeats is the simulated releases per point; Classifier says the
	// error is a disagreement share; EpsMax the top of the search range.
	Repeats    int
	Classifier bool
	EpsMax     float64
}

// FindEpsilon returns the smallest ε in [EpsMin, EpsMax] at which some
// candidate setting — noise kind (pure Laplace; with δ > 0 also Gaussian
// and Section 4.2's Laplace), order h and k of the Bernstein mechanism, or
// a published peer of pr.Peers (built at the k of that ε, peerK) — has a
// TargetQuantile error of its simulated releases at most target
// (Model.QuantileError, Peer.QuantileError), and the proposal's k is the
// one minimising that error for its mechanism, noise kind and h at its ε
// (minimiseK over every k from 1 to twice the automatic k there; not with
// the curator's manual k or peers set by hand). The proposal's Mechanism
// names a peer's synopsis kind ("" for Bernstein).
//
// Method: every mechanism — the Bernstein mechanism (its least error over
// noise kind and h at the automatic k and, for the best of them, its
// neighbours KNeighbours; or the manual k) and each peer (at peerK and its
// neighbours) — is simulated on a log grid of ε (targetStepsPerDecade per
// decade, EpsMin and EpsMax included) from EpsMax down. For each
// mechanism, the grid's smallest ε from which on every larger grid ε it
// applies at reaches the target (monotone-safe: a non-monotone dip below
// the target does not count; ε a peer's theorem refuses, as Hall et al.'s
// ε > 1, end its range rather than miss) is its start; each mechanism is
// simulated down to the first grid ε it misses, and above its start only
// until one candidate reaches the target (the one that reached it at the
// grid ε above first) — the starts are those of simulating every
// candidate everywhere. The mechanisms are taken by start, smallest first
// (ties: Bernstein, then the peers in legend order). At the start every
// candidate is simulated and the least-error one chooses the setting
// (mechanism, noise kind, h); from there on that setting is simulated at
// the k minimising its error (refined), and only CONFIRMED points count:
// those that reach the target with the search's draws and, RE-CHECKED,
// with independent draws of that setting and k. From the start up, the
// first grid ε whose point is confirmed (above the start, with the best
// setting there) begins the descent: down the grid while confirmed (the
// minimising k can reach it where the grid's k did not), then
// targetBisections bisections in log ε at three significant digits
// between the grid ε not confirmed and the smallest confirmed; a point
// not at three digits is rounded up, its k minimised and confirmed again.
// When none is confirmed, the next mechanism. The proposal's Error is the
// re-check's. When no
// mechanism reaches it on the grid, the least-error grid point has its k
// minimised: if that reaches the target and every larger grid ε of its
// mechanism does too (with the grid's or the minimising k), it is that
// mechanism's start; else Reached is false and Proposal is it (or, when
// every re-check missed, the last re-check).
//
// Guarantee: the result depends only on the problem and target, never on
// scheduling. Assumptions: Lattice, Grid and Truth describe the same F_D
// (as for NewModel). Errors: a target that is not positive and finite
// (below 1 for a classifier), an ε range that mechanism.ValidateEpsilon
// refuses or is empty, repeats outside [20, MaxRepeats], a δ outside [0, 1),
// an order outside [1, mechanism.MaxH], or a failing model; ctx.Err() when
// cancelled. progress (may be nil) gets the simulated points.
func FindEpsilon(ctx context.Context, pr TargetProblem, target float64, progress func(done, total int)) (res *TargetResult, err error) {
	s, err := newTargetSearch(pr, target)
	if err != nil {
		return nil, err
	}
	s.progress = progress
	grid := targetEpsGrid(s.epsMin, s.epsMax)
	fams := 1 + len(s.peers)
	s.total = len(grid) + targetBisections + 4
	// Per mechanism and grid ε (unsimulated: an infinite error), and the
	// least over the mechanisms where one was simulated.
	inf := math.Inf(1)
	curves := make([][]TargetPoint, fams)
	for f := range curves {
		curves[f] = make([]TargetPoint, len(grid))
		for i, eps := range grid {
			curves[f][i] = TargetPoint{Epsilon: eps, Error: inf, Low: inf, High: inf, Mean: inf}
		}
	}
	curve := slices.Clone(curves[0])
	simulated := make([]bool, len(grid))
	// note keeps, at grid ε j, the least error over the candidates
	// simulated there (the refined ones included).
	note := func(f, j int, p TargetPoint) {
		if p.Error < curves[f][j].Error {
			curves[f][j] = p
		}
		if !simulated[j] || p.Error < curve[j].Error {
			curve[j] = p
		}
		simulated[j] = true
	}
	// The grid from the largest ε down, each mechanism until the first
	// grid ε it misses the target at (infinite errors at the top, ε its
	// theorem refuses, do not count): below it nothing of it can start
	// (passingFrom), so nothing below is simulated. Above that ε only
	// whether some candidate reaches the target matters: they are
	// simulated lazily (family), the setting that reached it at the grid
	// ε above first; at the start every candidate is (the setting there is
	// the least-error one, as with every candidate simulated everywhere).
	active := slices.Repeat([]bool{true}, fams)
	passed := make([]bool, fams)
	hints := make([]TargetPoint, fams)
	for i := len(grid) - 1; i >= 0; i-- {
		if !slices.Contains(active, true) {
			s.done += i + 1 // the grid ε not simulated
			break
		}
		if err := s.prefetchAutoK(ctx, s.firstAutoKeys(grid[i], active, hints)); err != nil {
			return nil, err
		}
		for f := range fams {
			if !active[f] {
				continue
			}
			p, ok, err := s.family(ctx, f, grid[i], true, hints[f])
			if err != nil {
				return nil, err
			}
			note(f, i, p)
			switch {
			case ok:
				passed[f], hints[f] = true, p
			case math.IsInf(p.Error, 1) && !passed[f]:
			default:
				active[f] = false
			}
		}
		s.tick()
	}
	for f, c := range curves {
		first := passingFrom(c, target)
		if first == len(c) {
			continue
		}
		full, _, err := s.family(ctx, f, grid[first], false, TargetPoint{})
		if err != nil {
			return nil, err
		}
		c[first] = full
		curve[first] = full
		for _, d := range curves {
			if d[first].Error < curve[first].Error {
				curve[first] = d[first]
			}
		}
	}
	res = &TargetResult{Target: target, Repeats: s.repeats, Classifier: pr.Points != nil, EpsMax: s.epsMax}
	defer func() {
		for i, c := range curve {
			if simulated[i] && res != nil {
				res.Curve = append(res.Curve, c)
			}
		}
	}()
	type start struct{ f, first int }
	var starts []start
	for f, c := range curves {
		if first := passingFrom(c, target); first < len(c) {
			starts = append(starts, start{f, first})
		}
	}
	if len(starts) == 0 {
		// No grid setting reaches the target: the least error on the grid,
		// at the k minimising it; if that k reaches the target, its
		// mechanism starts there when every larger grid ε it applies at
		// reaches it too.
		bi := -1
		for i, c := range curve {
			if simulated[i] && (bi < 0 || c.Error < curve[bi].Error) {
				bi = i
			}
		}
		best := curve[bi]
		if !math.IsInf(best.Error, 1) {
			if best, err = s.refined(ctx, best.Epsilon, best); err != nil {
				return nil, err
			}
		}
		res.Proposal, res.Search = best, best
		if !(best.Error <= target) {
			return res, nil
		}
		f := s.familyOf(best)
		note(f, bi, best)
		for j := bi + 1; j < len(grid); j++ {
			if c := curves[f][j]; math.IsInf(c.Error, 1) || c.Error <= target {
				continue
			}
			r, err := s.refined(ctx, grid[j], best)
			if err != nil {
				return nil, err
			}
			note(f, j, r)
			if r.Error > target {
				return res, nil
			}
		}
		starts = append(starts, start{f, bi})
	}
	sort.SliceStable(starts, func(a, b int) bool { return starts[a].first < starts[b].first })
	var missed, missedAt TargetPoint
	for _, st := range starts {
		c := curves[st.f]
		// The grid chose the setting (mechanism, noise kind, h) at each of
		// this mechanism's passing grid ε. From the start up, the first
		// one whose minimising k is confirmed (it reaches the target with
		// the search's draws and with the re-check's independent ones) is
		// where the descent begins: down the grid while confirmed, then
		// bisections in log ε at three significant digits.
		for idx := st.first; idx < len(c); idx++ {
			if math.IsInf(c[idx].Error, 1) {
				continue // beyond the peer's theorem
			}
			at := c[idx]
			if idx > st.first {
				// Above the start the grid kept the first setting that
				// reached the target; a fallback takes the best there.
				var err error
				if at, _, err = s.family(ctx, st.f, grid[idx], false, TargetPoint{}); err != nil {
					return nil, err
				}
			}
			pass, err := s.refined(ctx, grid[idx], at)
			if err != nil {
				return nil, err
			}
			note(st.f, idx, pass)
			check, ok, err := s.confirmed(ctx, pass)
			if err != nil {
				return nil, err
			}
			if !ok {
				missed, missedAt = check, pass
				continue
			}
			if pass, check, err = s.descend(ctx, grid, func(j int, p TargetPoint) { note(st.f, j, p) }, pass, check); err != nil {
				return nil, err
			}
			// Round up to three significant digits (what the curator
			// types; the bisections' points already are and are
			// confirmed), minimise k there and re-check.
			at = pass
			if eps := math.Min(roundUpSig(pass.Epsilon, 3), s.epsMax); eps != pass.Epsilon {
				if at, err = s.refined(ctx, eps, pass); err != nil {
					return nil, err
				}
				if check, ok, err = s.confirmed(ctx, at); err != nil {
					return nil, err
				}
			}
			if ok {
				res.Reached, res.Proposal, res.Search = true, check, at
				return res, nil
			}
			missed, missedAt = check, at
		}
	}
	// Every re-check missed: not reachable with confidence; the proposal
	// is the last re-check, above the target.
	res.Proposal, res.Search = missed, missedAt
	return res, nil
}

// passingFrom returns the smallest index of c from which on every larger
// ε the mechanism applies at (finite error) reaches target, with at least
// one such ε; len(c) when there is none. Infinite errors at the top (ε a
// peer's theorem refuses) end the range; below a passing ε they stop it.
func passingFrom(c []TargetPoint, target float64) int {
	first := len(c)
	for i := len(c) - 1; i >= 0; i-- {
		switch {
		case math.IsInf(c[i].Error, 1) && first == len(c):
			continue
		case c[i].Error <= target:
			first = i
			continue
		}
		break
	}
	return first
}

// targetSearch is one FindEpsilon call: the validated problem and the
// models per k (cached: the lattice of a k is evaluated once).
type targetSearch struct {
	pr             TargetProblem
	target         float64
	orders         []int
	noises         []mechanism.NoiseKind
	repeats        int
	seed           uint64
	epsMin, epsMax float64
	dim            int
	peers          []*Peer         // the candidate peers of pr.Peers: one family each
	peersAt        map[int][]*Peer // with pr.peers: the families' peers built at k (nil where one does not apply)
	lattices       map[int][]float64
	models         map[int]*targetModel
	autoK          map[autoKKey]int // the automatic k per (ε, noise, h): it costs more than a setting's simulation
	progress       func(done, total int)
	done, total    int
}

type autoKKey struct {
	eps   float64
	noise mechanism.NoiseKind
	h     int
}

type targetModel struct {
	md  *Model
	pts *Points
}

func newTargetSearch(pr TargetProblem, target float64) (*targetSearch, error) {
	if !(target > 0) || math.IsInf(target, 0) {
		return nil, fmt.Errorf("study: target error %g: must be > 0 and finite", target)
	}
	if pr.Points != nil && target >= 1 {
		return nil, fmt.Errorf("study: target disagreement %g: must be below 1 (a share of the records)", target)
	}
	s := &targetSearch{pr: pr, target: target, orders: pr.Orders, repeats: pr.Repeats, seed: pr.Seed,
		epsMin: pr.EpsMin, epsMax: pr.EpsMax, dim: len(pr.Grid), models: map[int]*targetModel{}, autoK: map[autoKKey]int{},
		peersAt: map[int][]*Peer{}, lattices: map[int][]float64{}}
	if s.dim == 0 || pr.Lattice == nil {
		return nil, errors.New("study: the target search needs a grid and F_D on the lattice")
	}
	if s.orders == nil {
		s.orders = []int{1, 2, 3, 4, 5}
	}
	for _, h := range s.orders {
		if h < 1 || h > mechanism.MaxH {
			return nil, fmt.Errorf("study: order h = %d: must be between 1 and %d", h, mechanism.MaxH)
		}
	}
	if s.repeats == 0 {
		s.repeats = TargetRepeats(s.dim)
	}
	if s.repeats < 20 || s.repeats > MaxRepeats {
		return nil, fmt.Errorf("study: %d repeats: a 95%% quantile needs between 20 and %d", s.repeats, MaxRepeats)
	}
	if s.epsMin == 0 {
		s.epsMin = DefaultTargetEpsMin
	}
	if s.epsMax == 0 {
		s.epsMax = DefaultTargetEpsMax
	}
	for _, e := range []float64{s.epsMin, s.epsMax} {
		if err := mechanism.ValidateEpsilon(e); err != nil {
			return nil, fmt.Errorf("study: search range: %w", err)
		}
	}
	if !(s.epsMin < s.epsMax) {
		return nil, fmt.Errorf("study: search range ε from %g to %g: the lower end must be below the upper", s.epsMin, s.epsMax)
	}
	s.noises = []mechanism.NoiseKind{mechanism.NoiseLaplace}
	switch {
	case pr.Delta == 0:
	case pr.Delta > 0 && pr.Delta < 1:
		s.noises = append(s.noises, mechanism.NoiseGaussian, mechanism.NoiseLaplaceApprox)
	default:
		return nil, fmt.Errorf("study: δ = %g: must be 0 (pure ε only) or in (0, 1)", pr.Delta)
	}
	if err := mechanism.ValidateSensitivity(pr.Sensitivity); err != nil {
		return nil, err
	}
	for _, p := range pr.Peers {
		if p.Kind != "" && (p.Delta == 0 || p.Delta == pr.Delta) {
			s.peers = append(s.peers, p)
		}
	}
	if pr.K < 0 {
		return nil, fmt.Errorf("study: k = %d: must be ≥ 1 (or 0 for the automatic k)", pr.K)
	}
	return s, nil
}

func (s *targetSearch) tick() {
	s.done++
	if s.progress != nil {
		s.progress(s.done, max(s.total, s.done))
	}
}

// params returns the release parameters of a candidate at eps: δ and k
// resolved by the public rules (the automatic k of ResolveK) unless k > 0
// is given.
func (s *targetSearch) params(eps float64, noise mechanism.NoiseKind, h, k int) mechanism.Params {
	p := mechanism.Params{Epsilon: eps, Noise: noise, H: h}
	if noise != mechanism.NoiseLaplace {
		p.Delta = s.pr.Delta
	}
	if k == 0 {
		k = s.pr.K
	}
	if k == 0 {
		key := autoKKey{eps, noise, h}
		var ok bool
		if k, ok = s.autoK[key]; !ok {
			k = s.autoCoverSize(key)
			s.autoK[key] = k
		}
	}
	p.K = slices.Repeat([]int{k}, s.dim)
	return p
}

// model returns the model of cover size k (every order of the search).
func (s *targetSearch) model(ctx context.Context, k int) (*targetModel, error) {
	if m, ok := s.models[k]; ok {
		return m, nil
	}
	K := slices.Repeat([]int{k}, s.dim)
	exact, err := s.lattice(ctx, k)
	if err != nil {
		return nil, err
	}
	md, err := NewModel(K, exact, s.pr.Grid, s.pr.Truth, s.orders)
	if err != nil {
		return nil, err
	}
	m := &targetModel{md: md}
	if s.pr.Points != nil {
		if m.pts, err = md.AtPoints(*s.pr.Points); err != nil {
			return nil, err
		}
	}
	s.models[k] = m
	return m, nil
}

// lattice returns F_D on the lattice of cover size k (cached).
func (s *targetSearch) lattice(ctx context.Context, k int) ([]float64, error) {
	if v, ok := s.lattices[k]; ok {
		return v, nil
	}
	v, err := s.pr.Lattice(ctx, slices.Repeat([]int{k}, s.dim))
	if err != nil {
		return nil, err
	}
	s.lattices[k] = v
	return v, nil
}

// KNeighbours are the cover sizes the target search's grid tries beside
// the automatic k (for the best noise kind and h at an ε; the proposal's
// k is then minimised over every k, minimiseK): k/2 (rounded down, when
// ≥ 1) and 2k. They depend on the public k only.
func KNeighbours(k int) []int {
	var out []int
	if k/2 >= 1 && k/2 < k {
		out = append(out, k/2)
	}
	return append(out, 2*k)
}

// family returns the least error at eps of mechanism f with the search's
// draws, and whether it reaches the target: 0 the Bernstein settings (every
// noise kind and h at the search's k — ties: the first in noise, then h
// order — and, with the automatic k, the neighbours KNeighbours of the best
// one's k), else the peer of family f (peerFamily). With lazy it stops at
// the first candidate that reaches the target and returns it, simulating
// the candidate of hint's noise kind and h first (hint's mechanism must be
// f's; a zero hint is none); when no candidate reaches it the result is the
// same as without lazy. The automatic k of the candidates are computed on
// all cores (prefetchAutoK), lazily only when hint's misses.
func (s *targetSearch) family(ctx context.Context, f int, eps float64, lazy bool, hint TargetPoint) (TargetPoint, bool, error) {
	if f > 0 {
		return s.peerFamily(ctx, f, eps, lazy)
	}
	type nh struct {
		noise mechanism.NoiseKind
		h     int
	}
	var order []nh
	for _, noise := range s.noises {
		for _, h := range s.orders {
			order = append(order, nh{noise, h})
		}
	}
	if i := slices.Index(order, nh{hint.Noise, hint.H}); lazy && i > 0 {
		order = append(append([]nh{order[i]}, order[:i]...), order[i+1:]...)
	}
	keys := make([]autoKKey, len(order))
	for i, o := range order {
		keys[i] = autoKKey{eps, o.noise, o.h}
	}
	got := map[nh]TargetPoint{}
	for i, o := range order {
		if i == 0 && !lazy || i == 1 && lazy {
			if err := s.prefetchAutoK(ctx, keys[i:]); err != nil {
				return TargetPoint{}, false, err
			}
		}
		c, err := s.setting(ctx, eps, o.noise, o.h, 0, s.seed)
		if err != nil {
			return c, false, err
		}
		if lazy && c.Error <= s.target {
			return c, true, nil
		}
		got[o] = c
	}
	best := TargetPoint{Epsilon: eps, Error: math.Inf(1)}
	for _, noise := range s.noises {
		for _, h := range s.orders {
			if c := got[nh{noise, h}]; c.Error < best.Error {
				best = c
			}
		}
	}
	if s.pr.K == 0 && best.KAuto {
		for _, k := range KNeighbours(best.K[0]) {
			if mechanism.ValidateK(slices.Repeat([]int{k}, s.dim)) != nil {
				continue
			}
			c, err := s.setting(ctx, eps, best.Noise, best.H, k, s.seed)
			if err != nil {
				return best, false, err
			}
			if lazy && c.Error <= s.target {
				return c, true, nil
			}
			if c.Error < best.Error {
				best = c
			}
		}
	}
	return best, best.Error <= s.target, nil
}

// peerFamily returns the least error at eps of the peer of family f over
// its k (peerK) and, with the automatic k, its neighbours (ties: peerK
// first), and whether it reaches the target; a peer that applies at none
// of them has an infinite error. With lazy it stops at the first k that
// reaches the target.
func (s *targetSearch) peerFamily(ctx context.Context, f int, eps float64, lazy bool) (TargetPoint, bool, error) {
	c := s.peers[f-1]
	best := TargetPoint{Epsilon: eps, Mechanism: c.Kind, Label: c.Label, K: c.k,
		Error: math.Inf(1), Low: math.Inf(1), High: math.Inf(1), Mean: math.Inf(1)}
	ks := []int{0}
	if s.pr.peers != nil {
		ks[0] = s.peerK(eps, c)
		if s.pr.K == 0 {
			ks = append(ks, KNeighbours(ks[0])...)
		}
	}
	for _, k := range ks {
		if k > 0 && mechanism.ValidateK(slices.Repeat([]int{k}, s.dim)) != nil {
			continue
		}
		p, _, err := s.peer(ctx, f, eps, k)
		if err != nil {
			return best, false, err
		}
		if p == nil {
			continue
		}
		q, err := p.QuantileError(ctx, eps, s.repeats, s.seed)
		if err != nil {
			return best, false, err
		}
		if lazy && q.Error <= s.target {
			return q, true, nil
		}
		if q.Error < best.Error {
			best = q
		}
	}
	return best, best.Error <= s.target, nil
}

// peer returns the peer of family f built at cover size k, or when k is
// 0 at peerK(eps) (nil when it does not apply at that k), with the k.
func (s *targetSearch) peer(ctx context.Context, f int, eps float64, k int) (*Peer, int, error) {
	fixed := s.peers[f-1]
	if s.pr.peers == nil {
		return fixed, k, nil
	}
	if k == 0 {
		k = s.peerK(eps, fixed)
	}
	built, ok := s.peersAt[k]
	if !ok {
		pd := *s.pr.peers
		pd.K = slices.Repeat([]int{k}, s.dim)
		var err error
		if pd.Lattice, err = s.lattice(ctx, k); err != nil {
			return nil, k, err
		}
		sims, _, err := BuildPeers(pd)
		if err != nil {
			return nil, k, err
		}
		built = make([]*Peer, len(s.peers))
		for i, c := range s.peers {
			for _, p := range sims {
				if p.Kind == c.Kind {
					built[i] = p
				}
			}
		}
		s.peersAt[k] = built
	}
	return built[f-1], k, nil
}

// peerK is the cover size a peer is built at for ε (the one home of that
// rule, for the curator and choose --target-error alike): the curator's
// manual k, else the automatic k at ε of the peer's noise kind (and δ)
// with h = 1 — the k of a release at ε with k automatic and h = 1.
func (s *targetSearch) peerK(eps float64, p *Peer) int {
	if s.pr.K > 0 {
		return s.pr.K
	}
	return s.params(eps, p.noise, 1, 0).K[0]
}

// candidate simulates the candidate of at (its mechanism, noise, h and k:
// the automatic k at eps when at.KAuto) at eps with the draws of seed.
func (s *targetSearch) candidate(ctx context.Context, eps float64, at TargetPoint, seed uint64) (TargetPoint, error) {
	if at.Mechanism == "" {
		k := 0
		if !at.KAuto {
			k = at.K[0]
		}
		return s.setting(ctx, eps, at.Noise, at.H, k, seed)
	}
	for f, p := range s.peers {
		if p.Kind == at.Mechanism {
			k := 0
			if len(at.K) > 0 {
				k = at.K[0]
			}
			q, _, err := s.peer(ctx, f+1, eps, k)
			if err != nil {
				return at, err
			}
			if q == nil {
				return at, fmt.Errorf("study: peer %s does not apply at k = %d", p.Label, k)
			}
			return q.QuantileError(ctx, eps, s.repeats, seed)
		}
	}
	return at, errNoPeer(at.Mechanism)
}

// errNoPeer says the search has no peer of kind.
func errNoPeer(kind string) error {
	return fmt.Errorf("study: no peer of kind %q in the search", kind)
}

// familyOf returns the family of p's mechanism: 0 for the Bernstein
// settings, 1 + the index of its peer in the search.
func (s *targetSearch) familyOf(p TargetPoint) int {
	return slices.IndexFunc(s.peers, func(c *Peer) bool { return c.Kind == p.Mechanism }) + 1
}

// setting simulates the releases of one candidate at eps with the draws of
// seed (Model.QuantileError; an ε the noise kind refuses gives an infinite
// error), at cover size k, or when k is 0 at the search's k (the manual
// or the automatic one).
func (s *targetSearch) setting(ctx context.Context, eps float64, noise mechanism.NoiseKind, h, k int, seed uint64) (TargetPoint, error) {
	p := s.params(eps, noise, h, k)
	auto := k == 0 && s.pr.K == 0
	m, err := s.model(ctx, p.K[0])
	if err != nil {
		return TargetPoint{Epsilon: eps, Noise: noise, Delta: p.Delta, H: h, K: p.K, KAuto: auto, Error: math.Inf(1)}, err
	}
	sens := s.pr.Sensitivity
	if s.pr.NoiseSensitivity != nil {
		sens = s.pr.NoiseSensitivity(p.K, p.Noise)
	}
	q, err := m.md.QuantileError(ctx, SettingSpec{Sensitivity: sens, Params: p, Points: m.pts,
		Threshold: s.pr.Threshold, Repeats: s.repeats, Seed: seed})
	q.KAuto = auto
	return q, err
}

// quantileCI returns the q-quantile of xs (the ⌈q·n⌉-th smallest) and the
// distribution-free 95 % confidence interval of the population quantile
// from order statistics (normal approximation of the binomial count:
// ranks n·q ∓ 1.96·√(n·q·(1−q)), clamped to the sample). xs is sorted in
// place.
func quantileCI(xs []float64, q float64) (est, lo, hi float64) {
	sort.Float64s(xs)
	n := float64(len(xs))
	at := func(rank float64) float64 { // 1-based rank, clamped
		i := int(math.Min(math.Max(rank, 1), n)) - 1
		return xs[i]
	}
	half := 1.96 * math.Sqrt(n*q*(1-q))
	return at(math.Ceil(q * n)), at(math.Floor(q*n - half)), at(math.Ceil(q*n + half))
}

// targetEpsGrid is the coarse log grid of ε from lo to hi: every
// 10^(j/targetStepsPerDecade) strictly inside, and both ends.
func targetEpsGrid(lo, hi float64) []float64 {
	out := []float64{lo}
	for j := math.Floor(math.Log10(lo)*targetStepsPerDecade) + 1; ; j++ {
		e := math.Pow(10, j/targetStepsPerDecade)
		if e >= hi*(1-1e-12) {
			break
		}
		if e > lo*(1+1e-12) {
			out = append(out, e)
		}
	}
	return append(out, hi)
}

// roundUpSig rounds x > 0 up to n significant digits.
func roundUpSig(x float64, n int) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x))-float64(n-1))
	v := math.Ceil(x/p-1e-9) * p
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if r < x {
		return v
	}
	return r
}
