package study

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The automatic k of the target search: mechanism.AutoCoverSize at every
// (ε, noise kind, h) the coarse grid tries. It costs far more than a
// setting's simulation (a seeded prediction over the candidate k), reads
// only public inputs (ε, δ, h, ℓ, S, β and the learner's public stand-in)
// and is deterministic, so the search computes those of a grid ε on all
// cores at once when it needs several (prefetchAutoK) and remembers them across searches
// (autoKMemo): a curator who searches again with another target, and the
// searches of one process, reuse them. The values are exactly those a
// sequential call gives.

// autoKMemoMax bounds autoKMemo (entries of a few dozen bytes); it is
// emptied when full.
const autoKMemoMax = 1 << 14

// autoKMemo is the process-wide memo of the automatic k, keyed by every
// input of mechanism.AutoCoverSize.
var autoKMemo struct {
	sync.Mutex
	m map[autoKMemoKey]int
}

type autoKMemoKey struct {
	eps, delta, sens, beta, amplitude float64
	noise                             mechanism.NoiseKind
	h, dim                            int
	shape                             mechanism.StandInShape
	scale                             string // the stand-in's scales, bit for bit
}

// autoCoverSize returns mechanism.AutoCoverSize for the search's problem
// at key (memoised).
func (s *targetSearch) autoCoverSize(key autoKKey) int {
	p := mechanism.Params{Epsilon: key.eps, Noise: key.noise, H: key.h}
	if key.noise != mechanism.NoiseLaplace {
		p.Delta = s.pr.Delta
	}
	beta := s.pr.Beta
	if beta == 0 {
		beta = mechanism.DefaultBeta
	}
	var scale strings.Builder
	for _, v := range s.pr.StandIn.Scale {
		scale.WriteString(strconv.FormatUint(math.Float64bits(v), 16))
		scale.WriteByte(',')
	}
	mk := autoKMemoKey{eps: key.eps, delta: p.Delta, sens: s.pr.Sensitivity, beta: beta, amplitude: s.pr.StandIn.Amplitude,
		noise: key.noise, h: key.h, dim: s.dim, shape: s.pr.StandIn.Shape, scale: scale.String()}
	autoKMemo.Lock()
	k, ok := autoKMemo.m[mk]
	autoKMemo.Unlock()
	if ok {
		return k
	}
	k = mechanism.AutoCoverSize(p, key.h, s.dim, s.pr.Sensitivity, beta, s.pr.StandIn)
	autoKMemo.Lock()
	if autoKMemo.m == nil || len(autoKMemo.m) >= autoKMemoMax {
		autoKMemo.m = map[autoKMemoKey]int{}
	}
	autoKMemo.m[mk] = k
	autoKMemo.Unlock()
	return k
}

// prefetchAutoK computes on all cores the automatic k of keys not known
// yet; nothing with the curator's manual k. It returns ctx.Err() when
// cancelled.
func (s *targetSearch) prefetchAutoK(ctx context.Context, keys []autoKKey) error {
	if s.pr.K > 0 {
		return nil
	}
	var todo []autoKKey
	for _, key := range keys {
		if _, ok := s.autoK[key]; !ok && !slices.Contains(todo, key) {
			todo = append(todo, key)
		}
	}
	ks := make([]int, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(todo) || ctx.Err() != nil {
					return
				}
				ks[i] = s.autoCoverSize(todo[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, key := range todo {
		s.autoK[key] = ks[i]
	}
	return nil
}

// firstAutoKeys are the automatic k the grid reads first at eps for the
// active mechanisms (family with lazy): the Bernstein setting of its hint
// (else the first noise kind and order), and each active peer's peerK.
func (s *targetSearch) firstAutoKeys(eps float64, active []bool, hints []TargetPoint) []autoKKey {
	var keys []autoKKey
	if active[0] {
		key := autoKKey{eps, s.noises[0], s.orders[0]}
		if h := hints[0]; slices.Contains(s.noises, h.Noise) && slices.Contains(s.orders, h.H) {
			key.noise, key.h = h.Noise, h.H
		}
		keys = append(keys, key)
	}
	if s.pr.peers != nil {
		for f, p := range s.peers {
			if active[f+1] {
				keys = append(keys, autoKKey{eps, p.noise, 1})
			}
		}
	}
	return keys
}
