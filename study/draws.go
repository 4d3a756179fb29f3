package study

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// Source is where one simulated release draws its unit noise:
// a *mechanism.SimulationNoise, or a replay of values drawn in advance
// (Interleaved). It is never a release's noise source: Sanitize takes none.
type Source = peers.NoiseSource

// Draws says where the unit noise of every simulated release comes from
// and which releases share it. The three plans are PerRepeat (the curator's
// preview), Interleaved (Figure 1) and Stream (Figure 2, and Figure 1's
// Gaussian-process series). All of them are seeded simulation noise
// (mechanism.SimulationNoise): nothing here is a release.
type Draws interface {
	start() drawRun
}

// drawRun is one run of a plan: it hands out the sources of the repeats,
// batch by batch, in repeat order, from the calling goroutine.
type drawRun interface {
	// common reports whether one repeat's draws serve every ε (common
	// random numbers across ε) rather than fresh draws per ε.
	common() bool
	// workers is how many goroutines may simulate repeats at once.
	workers() int
	// batch is the largest number of repeats per fill.
	batch() int
	// fill sets srcs[i] to the source of repeat r0+i.
	fill(srcs []Source, r0 int)
}

// PerRepeat gives repeat r its own stream,
// mechanism.NewSimulationNoise(RepeatSeed(Seed, r)), shared by every ε, so
// the result does not depend on how repeats are scheduled on the cores.
// The curator's preview uses it.
type PerRepeat struct{ Seed uint64 }

func (d PerRepeat) start() drawRun { return d }
func (PerRepeat) common() bool     { return true }
func (PerRepeat) workers() int     { return runtime.GOMAXPROCS(0) }
func (PerRepeat) batch() int       { return 1 << 12 }
func (d PerRepeat) fill(srcs []Source, r0 int) {
	for i := range srcs {
		srcs[i] = mechanism.NewSimulationNoise(RepeatSeed(d.Seed, r0+i))
	}
}

// Interleaved is Figure 1's plan: one stream mechanism.NewSimulationNoise(Seed)
// gives fresh draws for each ε in turn; within an ε, batches of Batch
// repeats take Units unit Laplace draws each, interleaved (the first draw
// of every repeat of the batch, then the second, …). A repeat's source
// replays its Units draws (Laplace only; drawing more panics: programmer
// misuse). Repeats of a batch run on all cores.
type Interleaved struct {
	Seed         uint64
	Units, Batch int
}

func (d Interleaved) start() drawRun {
	return &interleavedRun{d: d, src: mechanism.NewSimulationNoise(d.Seed), buf: make([]float64, d.Units*d.Batch)}
}

type interleavedRun struct {
	d   Interleaved
	src *mechanism.SimulationNoise
	buf []float64
}

func (*interleavedRun) common() bool { return false }
func (*interleavedRun) workers() int { return runtime.GOMAXPROCS(0) }
func (r *interleavedRun) batch() int { return r.d.Batch }
func (r *interleavedRun) fill(srcs []Source, _ int) {
	u, b := r.d.Units, len(srcs)
	for i := range u {
		for k := range b {
			r.buf[k*u+i] = r.src.Laplace(1)
		}
	}
	for k := range srcs {
		srcs[k] = &replay{vals: r.buf[k*u : (k+1)*u]}
	}
}

// replay is a Source that returns values drawn in advance, scaled.
type replay struct {
	vals []float64
	next int
}

func (r *replay) Laplace(scale float64) float64 {
	if r.next >= len(r.vals) {
		panic(fmt.Sprintf("study: Interleaved: more than %d draws in one repeat", len(r.vals)))
	}
	r.next++
	return r.vals[r.next-1] * scale
}

func (r *replay) Gaussian(float64) float64 {
	panic("study: Interleaved draws are Laplace only")
}

// Stream draws every repeat from Src in order, one repeat after the other
// (on one core), so consecutive runs continue the same stream: Figure 2's
// plan (fresh draws per ε) and Figure 1's Gaussian-process series (Common:
// one draw per repeat serves every ε).
type Stream struct {
	Src    *mechanism.SimulationNoise
	Common bool
}

func (d Stream) start() drawRun { return d }
func (d Stream) common() bool   { return d.Common }
func (Stream) workers() int     { return 1 }
func (Stream) batch() int       { return 1 << 12 }
func (d Stream) fill(srcs []Source, _ int) {
	for i := range srcs {
		srcs[i] = d.Src
	}
}

// RepeatSeed derives the seed of repeat r from the base seed (SplitMix64
// finaliser), so repeats are independent streams and results do not depend
// on how repeats are scheduled on workers.
func RepeatSeed(base uint64, r int) uint64 {
	z := base + uint64(r+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// MaxRepeats caps the simulated releases of one computation.
const MaxRepeats = 1_000_000

// repeatFunc simulates repeat r from src for the ε indices eps (their
// scales in scales) and writes series·len(scales) numbers into out, series
// major: out[s·len(scales)+i].
type repeatFunc func(r int, src Source, eps []int, scales, out []float64) error

// chunkFunc simulates the consecutive repeats r0, r0+1, … (repeat r0+i
// draws from srcs[i], the repeats one after the other in that order, so a
// shared stream is read as by repeatFunc) and writes repeat r0+i's
// numbers, as repeatFunc, into out[i·stride : (i+1)·stride], stride =
// len(out)/len(srcs). Workers that batch their arithmetic over the
// repeats of a chunk (one matrix product instead of one per repeat)
// implement it directly; perRepeat adapts the others.
type chunkFunc func(r0 int, srcs []Source, eps []int, scales, out []float64) error

// perRepeat adapts a repeatFunc to a chunkFunc.
func perRepeat(f repeatFunc) chunkFunc {
	return func(r0 int, srcs []Source, eps []int, scales, out []float64) error {
		stride := len(out) / len(srcs)
		for i, src := range srcs {
			if err := f(r0+i, src, eps, scales, out[i*stride:(i+1)*stride]); err != nil {
				return err
			}
		}
		return nil
	}
}

// simChunk is the number of repeats a worker takes at a time: large
// enough for a matrix product over the repeats to reach the kernel's
// speed, small enough that its output (chunk × grid × orders) stays in
// the core's cache and both cores get work.
const simChunk = 16

// simulate runs newWorker's function for every repeat (and every ε group
// the plan asks for), simChunk consecutive repeats at a time (chunk for
// simulateChunks), and returns
// the sums over repeats, series major (sums[s·len(scales)+e]), added in
// repeat order whatever the scheduling. progress (may be nil) gets the
// finished repeats, serialised and monotone. It returns ctx.Err() when
// cancelled and the first error of a repeat.
func simulate(ctx context.Context, d Draws, scales []float64, repeats, series int,
	newWorker func() chunkFunc, progress func(done, total int)) ([]float64, error) {
	return simulateChunks(ctx, d, scales, repeats, series, simChunk, newWorker, progress)
}

// simulateChunks is simulate with chunks of chunk repeats.
func simulateChunks(ctx context.Context, d Draws, scales []float64, repeats, series, simChunk int,
	newWorker func() chunkFunc, progress func(done, total int)) ([]float64, error) {
	if repeats < 1 || repeats > MaxRepeats {
		return nil, fmt.Errorf("study: %d repeats: must be between 1 and %d", repeats, MaxRepeats)
	}
	run := d.start()
	var groups [][]int
	if run.common() {
		all := make([]int, len(scales))
		for i := range all {
			all[i] = i
		}
		groups = [][]int{all}
	} else {
		for i := range scales {
			groups = append(groups, []int{i})
		}
	}
	nE := len(scales)
	sums := make([]float64, series*nE)
	total := repeats * len(groups)
	var (
		progressMu sync.Mutex
		done       int
	)
	srcs := make([]Source, run.batch())
	for _, eps := range groups {
		gs := make([]float64, len(eps))
		for i, e := range eps {
			gs[i] = scales[e]
		}
		stride := series * len(eps)
		perRepeat := make([]float64, min(run.batch(), repeats)*stride)
		for r0 := 0; r0 < repeats; r0 += run.batch() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			b := min(run.batch(), repeats-r0)
			run.fill(srcs[:b], r0)
			chunks := (b + simChunk - 1) / simChunk
			var next atomic.Int64
			var firstErr error
			var errOnce sync.Once
			var wg sync.WaitGroup
			for range min(run.workers(), chunks) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					work := newWorker()
					for {
						c := int(next.Add(1)) - 1
						if c >= chunks || ctx.Err() != nil {
							return
						}
						k0, k1 := c*simChunk, min((c+1)*simChunk, b)
						if err := work(r0+k0, srcs[k0:k1], eps, gs, perRepeat[k0*stride:k1*stride]); err != nil {
							errOnce.Do(func() { firstErr = err })
							return
						}
						progressMu.Lock()
						done += k1 - k0
						if progress != nil {
							progress(done, total)
						}
						progressMu.Unlock()
					}
				}()
			}
			wg.Wait()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if firstErr != nil {
				return nil, firstErr
			}
			for k := range b {
				out := perRepeat[k*stride : (k+1)*stride]
				for s := range series {
					for i, e := range eps {
						sums[s*nE+e] += out[s*len(eps)+i]
					}
				}
			}
		}
	}
	return sums, nil
}
