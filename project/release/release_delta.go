package release

import "github.com/bernsteinrelease/bernstein/project/ledger"

// CheckDeltaForN refuses a single release's δ unless δ < 1/n, where n is
// the (public) number of data rows: a δ of 1/n or more allows a mechanism
// that publishes one person's record outright with probability δ (Dwork &
// Roth 2014, Section 2.3), so the standard ceiling is δ ≪ 1/n. δ = 0 (pure
// ε-DP) always passes.
func CheckDeltaForN(delta float64, n int) error {
	if delta == 0 {
		return nil
	}
	if n < 1 || delta*float64(n) >= 1 {
		return reqErr("delta", "δ = %g is not below 1/n = %.3g (n = %d data rows): with δ ≥ 1/n one person's record could be published outright with probability δ; choose δ far below 1/n, e.g. %g",
			delta, 1/float64(max(n, 1)), n, suggestDelta(n))
	}
	return nil
}

// suggestDelta is a δ to suggest for n rows: the default δ budget, or
// 1/(100 n) if that is smaller.
func suggestDelta(n int) float64 {
	return min(ledger.DefaultDeltaBudget, 1/(100*float64(max(n, 1))))
}
