package learners

import (
	"fmt"
	rand "math/rand/v2"
	"testing"
)

// pcDenseGen returns a generator of Priestley–Chao datasets inside the
// universe "sorted gaps ≤ c/n": n−1 records E with gaps drawn from
// {0, c/n, uniform in [0.6, 1]·c/n} (exact c/n gaps make the bound nearly
// attainable), labels mostly ±1, plus one record inserted into a random gap
// of E (or within c/n beyond its ends), which is the preferred record to
// replace: removing it leaves E, whose gaps are all ≤ c/n.
func pcDenseGen(c float64) func(r *rand.Rand, n, dim int) (Dataset, int) {
	return func(r *rand.Rand, n, dim int) (Dataset, int) {
		g := c / float64(n)
		e := make([]float64, n-1)
		for i := 1; i < len(e); i++ {
			var gap float64
			switch r.IntN(4) {
			case 0:
				gap = 0
			case 1, 2:
				gap = g
			default:
				gap = g * (0.6 + 0.4*r.Float64())
			}
			e[i] = e[i-1] + gap
		}
		span := e[len(e)-1]
		if span > 1 {
			panic(fmt.Sprintf("pcDenseGen: c = %g too large for n = %d", c, n))
		}
		shift := r.Float64() * (1 - span)
		for i := range e {
			e[i] += shift
		}
		// The inserted record: inside a gap, on a record, or beyond an end.
		var p float64
		switch k := r.IntN(len(e)); r.IntN(4) {
		case 0:
			p = e[k]
		case 1:
			p = clamp01(e[0] - g*r.Float64())
		case 2:
			p = clamp01(e[len(e)-1] + g*r.Float64())
		default:
			if k == len(e)-1 {
				k--
			}
			if k < 0 {
				p = e[0]
			} else {
				p = e[k] + (e[k+1]-e[k])*r.Float64()
			}
		}
		pos := r.IntN(n)
		d := Dataset{Dim: 1, X: make([]float64, 0, n), Labels: make([]float64, 0, n)}
		lab := func() float64 {
			if r.IntN(4) == 0 {
				return 2*r.Float64() - 1
			}
			return float64(2*r.IntN(2) - 1)
		}
		// E in a random order, p at index pos.
		perm := r.Perm(len(e))
		for i := range n {
			if i == pos {
				d.X = append(d.X, p)
			} else {
				d.X = append(d.X, e[perm[0]])
				perm = perm[1:]
			}
			d.Labels = append(d.Labels, lab())
		}
		return d, pos
	}
}

// TestPriestleyChaoAudit searches replace-one neighbours inside the data
// universe for a violation of S = 2κ·min(2c/n, 1).
func TestPriestleyChaoAudit(t *testing.T) {
	for _, c := range []struct {
		name string
		b, c float64
		ns   []int
		gen  bool    // use pcDenseGen
		min  float64 // smallest acceptable largest ratio
	}{
		// c/n ≥ 1/2 for every n ≤ 50: S = 2κ, nearly any data allowed.
		{"unconstrained/b=0.1", 0.1, 25, nil, false, 0.95},
		{"unconstrained/b=0.5", 0.5, 25, nil, false, 0.8},
		// Dense data with c/n = 1/n ≪ b: the bound is nearly attained.
		{"dense/c=1/b=0.2", 0.2, 1, []int{20, 30, 50}, true, 0.95},
		{"dense/c=1/b=0.05", 0.05, 1, []int{20, 30, 50}, true, 0.7},
		{"dense/c=0.5/b=0.02", 0.02, 0.5, []int{10, 50}, true, 0.5},
		// Tiny n with c/n < 1/2.
		{"tiny/c=0.5", 0.1, 0.5, []int{2, 3, 4, 5}, true, 0.3},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{Name: c.name, Values: Values{"bandwidth": {c.b}, "spacing": {c.c}}, Ns: c.ns, Seed: 300}
			if c.gen {
				cfg.Gen = pcDenseGen(c.c)
			}
			cfg.Pairs = auditPairsPerCase(6)
			r := auditSensitivity(t, NewPriestleyChao(), cfg)
			if r < c.min {
				t.Errorf("largest ratio %.4f < %.2f: the search misses the worst case", r, c.min)
			}
		})
	}
}
