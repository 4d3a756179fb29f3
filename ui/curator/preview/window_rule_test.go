package preview

import (
	"errors"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/release"
)

// TestWindowRule: a release's refusal is shown in the window without its
// field name and without command-line advice: the known advice in the
// window's words, any other fragment naming a flag left out.
func TestWindowRule(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&release.RequestError{Field: "delta", Rule: "δ = 0: the GP release is (ε, δ)-DP and needs δ in (0, 1) (--noise gaussian --delta …)"},
			"δ = 0: the GP release is (ε, δ)-DP and needs δ in (0, 1) (choose Gaussian noise and a δ under Privacy)"},
		{&release.RequestError{Field: "delta", Rule: "δ = 1e-06: wang-trig is pure ε-DP; release it with --noise laplace (δ = 0)"},
			"δ = 1e-06: wang-trig is pure ε-DP; choose the pure ε-DP Laplace noise under Privacy"},
		{&release.RequestError{Field: "mechanism", Rule: "x needs y (set --k 4); try --h 2"}, "x needs y"},
		{errors.New("plain error"), "plain error"},
	} {
		if got := WindowRule(c.err); got != c.want {
			t.Errorf("WindowRule(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
