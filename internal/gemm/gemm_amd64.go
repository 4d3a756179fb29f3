//go:build amd64 && !purego

package gemm

import "golang.org/x/sys/cpu"

// useAsm: AVX2 and FMA, with the operating system saving the YMM state
// (x/sys/cpu checks XGETBV for HasAVX2).
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// mulAddAVX2 is MulAdd on validated arguments (gemm_amd64.s).
//
//go:noescape
func mulAddAVX2(t *float64, ldt int, a *float64, rs, cs int, b *float64, ldb int, rows, k, cols int)

// columnDotsAVX2 is ColumnDots on validated arguments (gemm_amd64.s).
//
//go:noescape
func columnDotsAVX2(dst, t *float64, ldt int, b *float64, ldb int, n, cols int)

// maxAbsDiffAVX2 is MaxAbsDiff's vectorised part (gemm_amd64.s): n8 > 0
// values, a multiple of 8.
//
//go:noescape
func maxAbsDiffAVX2(e, n *float64, n8 int, s float64) float64
