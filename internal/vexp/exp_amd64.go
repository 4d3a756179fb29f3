//go:build amd64 && !purego

package vexp

import "golang.org/x/sys/cpu"

// useAsm: AVX2 and FMA, with the operating system saving the YMM state
// (x/sys/cpu checks XGETBV for HasAVX2).
var useAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expAVX2 sets dst[i] = expGo(x[i]) for i < n4, n4 > 0 a multiple of 4
// (exp_amd64.s).
//
//go:noescape
func expAVX2(dst, x *float64, n4 int)

// gaussRow2AVX2 sets dst[j] = expGo(gaussArg2(p, j, a0, a1, −negG)) for
// j < n4, n4 > 0 a multiple of 4 (exp_amd64.s).
//
//go:noescape
func gaussRow2AVX2(dst, p *float64, n4 int, a0, a1, negG float64)
