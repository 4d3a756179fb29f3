package learners

import (
	"fmt"
	"testing"
)

// TestNaiveBayesAudit searches replace-one neighbours, including class
// changes, empty and singleton classes and stacked points, for a violation
// of the naive Bayes bound.
func TestNaiveBayesAudit(t *testing.T) {
	for _, c := range []struct {
		dim int
		bw  []float64
		min float64 // smallest acceptable largest ratio (the bound is attained for ℓ ≤ 2)
	}{
		{1, []float64{0.05}, 0.99}, {2, []float64{0.05}, 0.99}, {3, []float64{0.05}, 0.5}, {4, []float64{0.05}, 0.5},
		{1, []float64{0.4}, 0.9}, {2, []float64{0.3, 0.1}, 0.9}, {3, []float64{0.2}, 0.5}, {4, []float64{0.5}, 0.5},
	} {
		t.Run(fmt.Sprintf("dim=%d/b=%v", c.dim, c.bw), func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{Name: fmt.Sprintf("ℓ=%d b=%v", c.dim, c.bw), Dim: c.dim, Values: Values{"bandwidth": c.bw}, Seed: uint64(200 + c.dim)}
			cfg.Pairs = auditPairsPerCase(8)
			r := auditSensitivity(t, NewNaiveBayes(), cfg)
			if r < c.min {
				t.Errorf("largest ratio %.4f < %.2f: the search misses the worst case", r, c.min)
			}
		})
	}
}
