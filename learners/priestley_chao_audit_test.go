package learners

import (
	"fmt"
	"math"
	rand "math/rand/v2"
	"testing"
)

// pcSorted returns n−1 sorted records starting at 0, consecutive gaps drawn
// by gap.
func pcSorted(n int, gap func() float64) []float64 {
	e := make([]float64, n-1)
	for i := 1; i < len(e); i++ {
		e[i] = e[i-1] + gap()
	}
	return e
}

// pcWithRecord returns the dataset of the records e in a random order plus
// p at a random index pos (returned as the preferred record to replace),
// labels mostly ±1.
func pcWithRecord(r *rand.Rand, e []float64, p float64) (Dataset, int) {
	n := len(e) + 1
	pos := r.IntN(n)
	d := Dataset{Dim: 1, X: make([]float64, 0, n), Labels: make([]float64, 0, n)}
	perm := r.Perm(len(e))
	for i := range n {
		if i == pos {
			d.X = append(d.X, p)
		} else {
			d.X = append(d.X, e[perm[0]])
			perm = perm[1:]
		}
		l := float64(2*r.IntN(2) - 1)
		if r.IntN(4) == 0 {
			l = 2*r.Float64() - 1
		}
		d.Labels = append(d.Labels, l)
	}
	return d, pos
}

// pcDenseGen returns a generator of densely spaced Priestley–Chao datasets
// (sorted gaps ≤ c/n, where the cap is inactive): n−1 records E with gaps
// drawn from {0, c/n, uniform in [0.6, 1]·c/n} (exact c/n gaps make the
// bound nearly attainable), plus one record inserted into a random gap of E
// (or within c/n beyond its ends), which is the preferred record to
// replace: removing it leaves E, whose gaps are all ≤ c/n.
func pcDenseGen(c float64) func(r *rand.Rand, n, dim int) (Dataset, int) {
	return func(r *rand.Rand, n, dim int) (Dataset, int) {
		g := c / float64(n)
		e := pcSorted(n, func() float64 {
			switch r.IntN(4) {
			case 0:
				return 0
			case 1, 2:
				return g
			default:
				return g * (0.6 + 0.4*r.Float64())
			}
		})
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
		return pcWithRecord(r, e, p)
	}
}

// pcSparseGen returns a generator of datasets that break the old spacing
// promise (sorted gaps ≤ c/n), on which the cap min(gap, c/n) is active:
// n−1 records E with gaps drawn from {0, c/n, [0.6, 1]·c/n, [1, 4]·c/n,
// [4, 40]·c/n} (clipped to [0, 1]), so that dense runs, where the bound is
// nearly attained, sit next to wide gaps; plus one record, the preferred one
// to replace, uniform, on a record of E or inside a gap next to one.
func pcSparseGen(c float64) func(r *rand.Rand, n, dim int) (Dataset, int) {
	return func(r *rand.Rand, n, dim int) (Dataset, int) {
		g := c / float64(n)
		e := pcSorted(n, func() float64 {
			switch r.IntN(6) {
			case 0:
				return 0
			case 1, 2:
				return g
			case 3:
				return g * (0.6 + 0.4*r.Float64())
			case 4:
				return g * (1 + 3*r.Float64())
			default:
				return g * (4 + 36*r.Float64())
			}
		})
		shift := r.Float64() * math.Max(0, 1-e[len(e)-1])
		for i := range e {
			e[i] = clamp01(e[i] + shift)
		}
		var p float64
		switch k := r.IntN(len(e)); r.IntN(3) {
		case 0:
			p = r.Float64()
		case 1:
			p = e[k]
		default:
			p = clamp01(e[k] + g*(2*r.Float64()-1))
		}
		return pcWithRecord(r, e, p)
	}
}

// TestPriestleyChaoAudit searches replace-one neighbours for a violation of
// S = 2κ·min(2c/n, 1) of the capped estimator: on uniform data, on dense
// data (gaps ≤ c/n, where the cap is inactive and the bound nearly
// attained) and on sparse data (wide gaps, the cap active). Fit must accept
// every dataset: a skipped pair (Fit failed) is an error here.
func TestPriestleyChaoAudit(t *testing.T) {
	for _, c := range []struct {
		name string
		b, c float64
		ns   []int
		gen  func(c float64) func(r *rand.Rand, n, dim int) (Dataset, int) // nil: uniform data
		min  float64                                                       // smallest acceptable largest ratio
	}{
		// c/n ≥ 1/2 for every n ≤ 50: S = 2κ.
		{"unconstrained/b=0.1", 0.1, 25, nil, nil, 0.95},
		{"unconstrained/b=0.5", 0.5, 25, nil, nil, 0.8},
		// Dense data with c/n = 1/n ≪ b: the bound is nearly attained.
		{"dense/c=1/b=0.2", 0.2, 1, []int{20, 30, 50}, pcDenseGen, 0.95},
		{"dense/c=1/b=0.05", 0.05, 1, []int{20, 30, 50}, pcDenseGen, 0.7},
		{"dense/c=0.5/b=0.02", 0.02, 0.5, []int{10, 50}, pcDenseGen, 0.5},
		// Tiny n with c/n < 1/2.
		{"tiny/c=0.5", 0.1, 0.5, []int{2, 3, 4, 5}, pcDenseGen, 0.3},
		// Uniform data with c/n < 1/2: most gaps are capped.
		{"uniform/c=1/b=0.1", 0.1, 1, nil, nil, 0.5},
		// Sparse data: dense runs next to gaps up to 40·c/n.
		{"sparse/c=1/b=0.2", 0.2, 1, []int{10, 20, 50}, pcSparseGen, 0.85},
		{"sparse/c=0.5/b=0.05", 0.05, 0.5, []int{5, 20, 50}, pcSparseGen, 0.5},
		{"sparse/c=2/b=0.1", 0.1, 2, []int{8, 21, 50}, pcSparseGen, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{Name: c.name, Values: Values{"bandwidth": {c.b}, "spacing": {c.c}}, Ns: c.ns, Seed: 300}
			if c.gen != nil {
				cfg.Gen = c.gen(c.c)
			}
			cfg.Pairs = auditPairsPerCase(10)
			res := runAudit(NewPriestleyChao(), cfg)
			r := auditReport(t, NewPriestleyChao(), cfg, res)
			if res.Skipped > 0 {
				t.Errorf("Fit failed on %d pairs: Priestley–Chao must accept every dataset in [0,1]×[−1,1]", res.Skipped)
			}
			if r < c.min {
				t.Errorf("largest ratio %.4f < %.2f: the search misses the worst case", r, c.min)
			}
		})
	}
}
