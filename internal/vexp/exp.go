package vexp

import "math"

// RelErr is the relative error bound of Exp on [−708, 0], and Tiny the
// absolute term that covers arguments below −708 (doc.go states and proves
// |Exp(x) − e^x| ≤ RelErr·e^x + Tiny for every x ≤ 0).
const (
	RelErr = 0x1p-51
	Tiny   = 0x1p-1021
)

// Constants of the algorithm (doc.go, steps 1–7).
const (
	expMin     = -708
	expShifter = 0x1.8p52
	expLn2Hi   = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	expLn2Lo   = 1.90821492927058770002e-10 // 0x3dea39ef35793c76
)

// expCoef holds fl(1/i!) for i = 13, 12, …, 2 (Horner order).
var expCoef = [...]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24,
	1.0 / 6, 0.5,
}

// Fast reports whether Exp runs the AVX2 assembly (amd64 with AVX2 and
// FMA); otherwise it calls math.Exp per value.
func Fast() bool { return useAsm }

// Exp sets dst[i] to e^{x[i]} within RelErr·e^{x[i]} + Tiny for every
// i < len(x), x[i] ≤ 0 (the contract and proof are in doc.go). dst may be
// x itself; a dst shorter than x panics.
func Exp(dst, x []float64) {
	if len(dst) < len(x) {
		panic("vexp: Exp with len(dst) < len(x)") // programmer error
	}
	dst = dst[:len(x)]
	if !useAsm {
		for i, v := range x {
			dst[i] = math.Exp(v)
		}
		return
	}
	n4 := len(x) &^ 3
	if n4 > 0 {
		expAVX2(&dst[0], &x[0], n4)
	}
	for i := n4; i < len(x); i++ {
		dst[i] = expGo(x[i])
	}
}

// expGo is the algorithm of doc.go, one IEEE operation per step, as the
// assembly performs it (math.FMA is a hardware instruction wherever the
// assembly runs).
func expGo(x float64) float64 {
	if !(x >= expMin) { // NaN too, as VMAXPD does with the bound second
		x = expMin
	}
	kb := math.FMA(x, math.Log2E, expShifter)
	k := kb - expShifter
	r := math.FMA(k, -expLn2Hi, x)
	r = math.FMA(k, -expLn2Lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	p = math.FMA(p, r, 1)
	p = math.FMA(p, r, 1)
	return p * math.Float64frombits((math.Float64bits(kb)+1023)<<52)
}

// GaussRow2 sets dst[j] = Exp(−g·((a0 − p[2j])² + (a1 − p[2j+1])²)) for
// every j < len(dst): a row of the Gaussian kernel between (a0, a1) and the
// two-dimensional points p (x and y interleaved, len(p) ≥ 2·len(dst);
// shorter panics), with the argument rounded as gaussArg2 does and the
// error of Exp (g ≥ 0 and finite points, so the argument is ≤ 0). With
// Fast() the argument and the exponential run in the assembly, four points
// at a time.
func GaussRow2(dst, p []float64, a0, a1, g float64) {
	if len(p) < 2*len(dst) {
		panic("vexp: GaussRow2 with len(p) < 2·len(dst)") // programmer error
	}
	p = p[:2*len(dst)]
	if !useAsm {
		for j := range dst {
			dst[j] = math.Exp(gaussArg2(p, j, a0, a1, g))
		}
		return
	}
	n4 := len(dst) &^ 3
	if n4 > 0 {
		gaussRow2AVX2(&dst[0], &p[0], n4, a0, a1, -g)
	}
	for j := n4; j < len(dst); j++ {
		dst[j] = expGo(gaussArg2(p, j, a0, a1, g))
	}
}

// gaussArg2 is −g·((a0 − x)² + (a1 − y)²) for point j of p, each square
// rounded on its own (the conversions forbid fusing them into a
// multiply-add), as the assembly computes it.
func gaussArg2(p []float64, j int, a0, a1, g float64) float64 {
	t0, t1 := a0-p[2*j], a1-p[2*j+1]
	return -g * (float64(t0*t0) + float64(t1*t1))
}
