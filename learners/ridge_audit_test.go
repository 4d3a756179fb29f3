package learners

import (
	"fmt"
	"testing"
)

// TestRidgeAudit searches replace-one neighbours for a violation of
// S = (2C(1 + √C)/n)(1 + 0.01), plus the floating-point term. As C → 0,
// w* ≈ (C/n) Σ l_i x̃_i, so flipping a ±1 label at a corner record and
// querying there changes F by about 2C/n·‖x̃‖² = 2C/n: the bound is nearly
// attained for small C, and the search must find that.
func TestRidgeAudit(t *testing.T) {
	cases := []struct {
		dim int
		c   float64
	}{
		{1, 1e-4}, {2, 1e-4}, {2, 0.01}, {1, 1}, {2, 1}, {3, 10}, {4, 0.1}, {6, 100}, {2, 1e4},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("dim=%d/C=%g", c.dim, c.c), func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{
				Name:   fmt.Sprintf("ℓ=%d C=%g", c.dim, c.c),
				Dim:    c.dim,
				Values: Values{"C": {c.c}},
				Seed:   uint64(400 + i),
				Pairs:  auditPairsPerCase(len(cases)),
			}
			r := auditSensitivity(t, NewRidge(), cfg)
			if c.c <= 1e-4 && r < 0.95 {
				t.Errorf("largest ratio %.4f < 0.9: for C = 1e-4 the bound is attained up to the factor 1/((1 + √C)(1 + 0.01)) ≈ 0.98", r)
			}
		})
	}
}
