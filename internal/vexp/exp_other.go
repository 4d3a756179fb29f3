//go:build !amd64 || purego

package vexp

const useAsm = false

func expAVX2(dst, x *float64, n4 int) {
	panic("vexp: no assembly kernel on this platform")
}
