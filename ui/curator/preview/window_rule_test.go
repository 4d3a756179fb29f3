package preview

import (
	"errors"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/release"
)

// TestWindowRule: a release's refusal is shown in the window without its
// field name and without any fragment naming a command-line flag.
func TestWindowRule(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&release.RequestError{Field: "delta", Rule: "δ = 0: the GP release is (ε, δ)-DP and needs δ in (0, 1) (--noise gaussian --delta …)"},
			"δ = 0: the GP release is (ε, δ)-DP and needs δ in (0, 1)"},
		{&release.RequestError{Field: "delta", Rule: "δ = 1e-06: wang-trig is pure ε-DP; release it with pure ε-DP Laplace noise (δ = 0)"},
			"δ = 1e-06: wang-trig is pure ε-DP; release it with pure ε-DP Laplace noise (δ = 0)"},
		{&release.RequestError{Field: "mechanism", Rule: "x needs y (set --k 4); try --h 2"}, "x needs y"},
		{errors.New("plain error"), "plain error"},
	} {
		if got := WindowRule(c.err); got != c.want {
			t.Errorf("WindowRule(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
