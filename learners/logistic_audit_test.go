package learners

import (
	"fmt"
	"testing"
)

// TestLogisticAudit searches replace-one neighbours for a violation of
// S = (2C/n)(1 + 0.01) (score) or ¼ of it (probability), plus the
// floating-point term. The stability bound uses M = 1, but the log-loss
// derivative is ½ at margin 0, so for small C (w* ≈ 0) the largest ratio is
// about ½; it is logged, not asserted, above that.
func TestLogisticAudit(t *testing.T) {
	cases := []struct {
		dim    int
		c, out float64
	}{
		{1, 1, 0}, {1, 1, 1}, {2, 0.1, 0}, {2, 10, 0}, {2, 10, 1}, {3, 100, 0}, {4, 3, 1}, {6, 1000, 0},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("dim=%d/C=%g/output=%g", c.dim, c.c, c.out), func(t *testing.T) {
			t.Parallel()
			cfg := auditConfig{
				Name:   fmt.Sprintf("ℓ=%d C=%g output=%g", c.dim, c.c, c.out),
				Dim:    c.dim,
				Values: Values{"C": {c.c}, "output": {c.out}},
				Seed:   uint64(300 + i),
				Pairs:  auditPairsPerCase(len(cases)),
			}
			r := auditSensitivity(t, NewLogistic(), cfg)
			if c.c <= 1 && r < 0.4 {
				t.Errorf("largest ratio %.4f < 0.4: for small C the search should find about ½ (loss slope ½ at w = 0)", r)
			}
		})
	}
}
