//go:build !amd64 || purego

package gemm

const useAsm = false

func mulAddAVX2(t *float64, ldt int, a *float64, rs, cs int, b *float64, ldb int, rows, k, cols int) {
	panic("gemm: no assembly kernel on this platform")
}

func columnDotsAVX2(dst, t *float64, ldt int, b *float64, ldb int, n, cols int) {
	panic("gemm: no assembly kernel on this platform")
}

func maxAbsDiffAVX2(e, n *float64, n8 int, s float64) float64 {
	panic("gemm: no assembly kernel on this platform")
}
