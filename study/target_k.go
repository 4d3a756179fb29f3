package study

import (
	"context"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The target search's k (issue 19 item 3): the proposal's k is the
// minimiser of the simulated error over k for the proposal's mechanism,
// noise kind and h at the proposal's ε — not only the automatic k and its
// neighbours KNeighbours, which the coarse grid of ε tries. Every k is
// simulated with the search's seed (common random numbers: repeat r draws
// from RepeatSeed(Seed, r) at every k), so the error-vs-k curve is
// comparable point by point.

// minimiseK returns the least-error point of errAt over the cover sizes
// k = 1 … C, every one simulated: C is twice k0 (the setting's automatic k
// at that ε), doubled again while the best k lies in the upper half of
// 1 … C, at most kmax (k0 ≤ kmax). Ties go to k0, then to the smaller k;
// an infinite error (a setting that does not apply at that k) never wins
// over a finite one, and one at k0 is returned without a search. Every k is simulated rather than bracketed: the
// error-vs-k curves of the peers are saw-toothed (the trig peer's t = k + 1
// moments with its Jackson order) or flat with wobbles (the GP's grid,
// whose noise does not grow with k), where a bracket search settles on a
// local dip (TestFindEpsilonMinimisesK). Errors are errAt's.
func minimiseK(k0, kmax int, errAt func(k int) (TargetPoint, error)) (TargetPoint, error) {
	best, err := errAt(k0)
	if err != nil || math.IsInf(best.Error, 1) {
		return best, err
	}
	bestK := k0
	scan := func(from, to int) error {
		for k := from; k <= to; k++ {
			if k == k0 {
				continue
			}
			p, err := errAt(k)
			if err != nil {
				return err
			}
			if p.Error < best.Error || (p.Error == best.Error && bestK != k0 && k < bestK) {
				best, bestK = p, k
			}
		}
		return nil
	}
	c := min(kmax, 2*k0)
	if err := scan(1, c); err != nil {
		return best, err
	}
	for 2*bestK > c && c < kmax {
		next := min(kmax, 2*bestK)
		if err := scan(c+1, next); err != nil {
			return best, err
		}
		c = next
	}
	return best, nil
}

// searchesK says whether the search minimises the k of at's mechanism:
// with the automatic k (no manual k), for the Bernstein settings and for
// the peers AddPeers built (rebuilt at any k); not for peers set by hand.
func (s *targetSearch) searchesK(at TargetPoint) bool {
	return s.pr.K == 0 && (at.Mechanism == "" || s.pr.peers != nil)
}

// refined simulates the setting of at (its mechanism, noise kind and h) at
// eps with the search's draws at the k minimising its error: minimiseK
// from k0, the automatic k at eps of that setting (a Bernstein setting's
// noise kind and h; a peer's peerK), up to the larger of k0 and
// mechanism.MaxAutoCoverSize — so the result depends on eps and the
// setting only, and the k the grid tries there (k0 and its neighbours
// KNeighbours) are among those simulated. A setting that does not apply at
// k0 (an infinite error) is returned as is. Without a k search
// (searchesK) it is the setting at its own k. A Bernstein result at k0 is
// marked KAuto. It ticks the progress once.
func (s *targetSearch) refined(ctx context.Context, eps float64, at TargetPoint) (TargetPoint, error) {
	defer s.tick()
	if !s.searchesK(at) {
		return s.candidate(ctx, eps, at, s.seed)
	}
	var k0 int
	if at.Mechanism == "" {
		k0 = s.params(eps, at.Noise, at.H, 0).K[0]
	} else {
		f := s.familyOf(at)
		if f == 0 {
			return at, errNoPeer(at.Mechanism)
		}
		k0 = s.peerK(eps, s.peers[f-1])
	}
	best, err := minimiseK(k0, max(k0, mechanism.MaxAutoCoverSize(s.dim)), func(k int) (TargetPoint, error) {
		return s.atK(ctx, eps, at, k)
	})
	if err != nil {
		return best, err
	}
	if best.Mechanism == "" {
		best.KAuto = best.K[0] == k0
	}
	return best, nil
}

// atK simulates the setting of at (mechanism, noise kind, h) at eps and
// cover size k with the search's draws; a peer that does not apply at k
// has an infinite error.
func (s *targetSearch) atK(ctx context.Context, eps float64, at TargetPoint, k int) (TargetPoint, error) {
	if at.Mechanism == "" {
		return s.setting(ctx, eps, at.Noise, at.H, k, s.seed)
	}
	f := s.familyOf(at)
	if f == 0 {
		return at, errNoPeer(at.Mechanism)
	}
	p, _, err := s.peer(ctx, f, eps, k)
	if err != nil {
		return at, err
	}
	if p == nil {
		inf := math.Inf(1)
		return TargetPoint{Epsilon: eps, Noise: at.Noise, Delta: at.Delta, K: slices.Repeat([]int{k}, s.dim),
			Mechanism: at.Mechanism, Label: at.Label, Error: inf, Low: inf, High: inf, Mean: inf}, nil
	}
	return p.QuantileError(ctx, eps, s.repeats, s.seed)
}

// descend returns the smallest ε at which the refined rule of pass's
// setting (its mechanism, noise kind and h at the k minimising the error,
// refined) is confirmed (confirmed), below pass (confirmed, its re-check
// check), with that point's re-check: the coarse grid is walked down from
// the largest grid ε below pass while the setting is confirmed there, then
// the bracket between the grid ε where it is not and the smallest where it
// is is halved targetBisections times in log ε, at three significant
// digits. Every grid point simulated is passed to note (the search's
// curves keep the least error over the candidates there).
func (s *targetSearch) descend(ctx context.Context, grid []float64, note func(j int, p TargetPoint), pass, check TargetPoint) (TargetPoint, TargetPoint, error) {
	j := len(grid) - 1
	for j >= 0 && grid[j] >= pass.Epsilon*(1-1e-12) {
		j--
	}
	for ; j >= 0; j-- {
		r, err := s.refined(ctx, grid[j], pass)
		if err != nil {
			return pass, check, err
		}
		note(j, r)
		c, ok, err := s.confirmed(ctx, r)
		if err != nil {
			return pass, check, err
		}
		if !ok {
			break
		}
		pass, check = r, c
	}
	if j < 0 {
		return pass, check, nil // every grid ε down to EpsMin
	}
	lo, hi := grid[j], pass.Epsilon
	for range targetBisections {
		// Midpoints at three significant digits (what the curator types
		// and the proposal is rounded to), so the last confirmed one needs
		// no rounding that could miss the target again.
		mid := roundUpSig(math.Sqrt(lo*hi), 3)
		if !(mid < hi) {
			break
		}
		m, err := s.refined(ctx, mid, pass)
		if err != nil {
			return pass, check, err
		}
		c, ok, err := s.confirmed(ctx, m)
		if err != nil {
			return pass, check, err
		}
		if ok {
			hi, pass, check = mid, m, c
		} else {
			lo = mid
		}
	}
	return pass, check, nil
}

// confirmed reports whether r — a setting at its k, simulated with the
// search's draws — reaches the target with those draws AND with the
// re-check's independent draws (RepeatSeed(Seed, −1)) at the same ε and
// k, and returns the re-check (r itself when r misses). The search steps
// only through confirmed points, so a proposal is never sent back up to a
// grid ε far above the target's by a re-check that misses by Monte-Carlo
// noise (a looser target then cost more ε than a stricter one: 0.216 for
// 0.44 against 0.125 for 0.40 on a curator's walk).
func (s *targetSearch) confirmed(ctx context.Context, r TargetPoint) (TargetPoint, bool, error) {
	if !(r.Error <= s.target) {
		return r, false, nil
	}
	check, err := s.candidate(ctx, r.Epsilon, r, RepeatSeed(s.seed, -1))
	if err != nil {
		return r, false, err
	}
	s.tick()
	return check, check.Error <= s.target, nil
}
