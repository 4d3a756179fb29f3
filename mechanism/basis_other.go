//go:build !amd64 || purego

package mechanism

const haveBasisBlockAsm = false

func basisBlockAVX2(ys *float64, cols, k int, up *float64, out *float64, ldo int) {
	panic("mechanism: no assembly basis kernel on this platform")
}
