package release

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestCheckDeltaForN is the table of the per-release ceiling δ < 1/n.
func TestCheckDeltaForN(t *testing.T) {
	tests := []struct {
		delta float64
		n     int
		ok    bool
	}{
		{0, 1, true}, {1e-6, 1000, true}, {0.999, 200, false}, {1.0 / 200, 200, false},
		{0.9 / 200, 200, true}, {1e-3, 1000, false}, {1e-3, 999, true}, {1e-3, 1001, false}, {1e-6, 0, false},
	}
	for _, tc := range tests {
		err := CheckDeltaForN(tc.delta, tc.n)
		if (err == nil) != tc.ok {
			t.Errorf("δ = %g, n = %d: err = %v, want ok %v", tc.delta, tc.n, err, tc.ok)
		}
		var re *RequestError
		if err != nil && (!errors.As(err, &re) || !strings.Contains(err.Error(), "1/n")) {
			t.Errorf("δ = %g, n = %d: %v is not a *RequestError naming 1/n", tc.delta, tc.n, err)
		}
	}
}

// TestPrepareRefusesDeltaForN: issue 13 item 1's reproduction at the
// release level — Gaussian at ε = 1e-9, δ = 0.999 is refused before any
// spend, with an error naming δ and 1/n.
func TestPrepareRefusesDeltaForN(t *testing.T) {
	ds := releaseTestDataset(t, 200)
	req := kdeRequest(ds)
	req.Privacy = mechanism.Params{Epsilon: 1e-9, Noise: mechanism.NoiseGaussian, Delta: 0.999, K: []int{5}, H: 1}
	_, err := Prepare(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "δ = 0.999 is not below 1/n = 0.005") || !strings.Contains(err.Error(), "n = 200") {
		t.Fatalf("err = %v", err)
	}
	req.Privacy.Delta = 1e-6
	if _, err := Prepare(context.Background(), req, nil); err != nil {
		t.Errorf("δ = 1e-6, n = 200: %v", err)
	}
}
