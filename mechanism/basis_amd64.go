//go:build amd64 && !purego

package mechanism

// basisBlockAVX2 writes the plain Bernstein bases of degree k of cols
// values ys (cols a multiple of 12) as columns of out: out[ν·ldo + q] =
// b_{ν,k}(ys[q]), with the same operations as bernstein (hence the same
// bits): start (1−y)^k or y^k by binary powering, ratio y/(1−y) or
// (1−y)/y, the recurrence b ← b·(up[ν]·r), the y > ½ columns mirrored.
// up = ratioTable.up. Only called when gemm.Fast() (AVX2).
//
//go:noescape
func basisBlockAVX2(ys *float64, cols, k int, up *float64, out *float64, ldo int)

const haveBasisBlockAsm = true
