//go:build !amd64 || purego

package vexp

const useAsm = false

func expAVX2(dst, x *float64, n4 int) {
	panic("vexp: no assembly kernel on this platform")
}

func gaussRow2AVX2(dst, p *float64, n4 int, a0, a1, negG float64) {
	panic("vexp: no assembly kernel on this platform")
}
