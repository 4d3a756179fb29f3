package ledger

import (
	"strconv"
	"testing"
)

// TestFormatLeft: what is left is shown rounded down (a release of the
// amount shown fits), spent and asked amounts to 6 significant digits
// (walkthrough: "at most ε 0.44999999999999996 would fit").
func TestFormatLeft(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{1 - 0.55, "0.45"}, // 0.44999999999999996
		{0.45, "0.45"},
		{0.1 + 0.2, "0.3"}, // 0.30000000000000004: 0.3 < x fits
		{2.0 / 3, "0.666666"},
		{0.9999999, "0.999999"},
		{1e-7 / 3, "3.33333e-08"},
		{0, "0"},
		{-0.2, "0"},
		{5, "5"},
	} {
		got := FormatLeft(c.x)
		if got != c.want {
			t.Errorf("FormatLeft(%v) = %q, want %q", c.x, got, c.want)
		}
		if v, err := strconv.ParseFloat(got, 64); err != nil || v > max(c.x, 0) {
			t.Errorf("FormatLeft(%v) = %q is more than what is left", c.x, got)
		}
	}
	if got := FormatAmount(5.9723883983069985); got != "5.97239" {
		t.Errorf("FormatAmount = %q", got)
	}
}
