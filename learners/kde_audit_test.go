package learners

import (
	"fmt"
	"testing"
)

// TestKDEAudit searches replace-one neighbours for a violation of
// S = K(1 − e^{−Σ 1/(2b_j²)})/n. The bound is attained by moving a record
// from the query point to the opposite corner, so the largest ratio must also
// come close to 1; a ratio far below 1 would mean the search is too weak or
// the bound too loose.
func TestKDEAudit(t *testing.T) {
	for _, c := range []struct {
		dim int
		bw  []float64
	}{
		{1, []float64{0.05}}, {2, []float64{0.05}}, {3, []float64{0.05}}, {4, []float64{0.05}},
		{1, []float64{0.5}}, {2, []float64{0.3, 0.08}}, {3, []float64{0.1, 0.2, 0.4}},
	} {
		t.Run(fmt.Sprintf("dim=%d/b=%v", c.dim, c.bw), func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{Name: fmt.Sprintf("ℓ=%d b=%v", c.dim, c.bw), Dim: c.dim, Values: Values{"bandwidth": c.bw}, Seed: uint64(100 + c.dim)}
			cfg.Pairs = auditPairsPerCase(7)
			r := auditSensitivity(t, NewKDE(), cfg)
			if r < 0.99 {
				t.Errorf("largest ratio %.4f < 0.99: the search misses the attained worst case", r)
			}
		})
	}
}
