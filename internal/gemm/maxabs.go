package gemm

import (
	"fmt"
	"math"
)

// MaxAbsDiff returns max_i |e[i] − s·n[i]| over i < len(e) (0 for an empty
// e), each term computed as the scalar expression math.Abs(e[i] − s*n[i])
// — the product rounded, then the difference, no fused multiply-add — so
// the result is the same bits on every path (a maximum does not depend on
// the order). It is the sup-norm error of a simulated release, E − s·N,
// of the study engine (issue 19 item 4). Assumptions: e, n and s finite
// (a NaN term would be skipped by the scalar loop but not by every vector
// path). It panics if len(n) < len(e).
func MaxAbsDiff(e, n []float64, s float64) float64 {
	if len(n) < len(e) {
		panic(fmt.Sprintf("gemm.MaxAbsDiff: len(n) = %d < len(e) = %d", len(n), len(e)))
	}
	m, i := 0.0, 0
	if n8 := len(e) &^ 7; useAsm && n8 > 0 {
		m, i = maxAbsDiffAVX2(&e[0], &n[0], n8, s), n8
	}
	for ; i < len(e); i++ {
		if d := math.Abs(e[i] - s*n[i]); d > m {
			m = d
		}
	}
	return m
}
