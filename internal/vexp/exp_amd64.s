//go:build amd64 && !purego

#include "textflag.h"

// The steps of expGo (exp.go) on four values per YMM register, one
// instruction per IEEE operation of expGo, in the same order, so the
// results are bit-identical (TestAsmMatchesGo, TestGaussRow2).

// Constants, each replicated four times (32 bytes): the clamp −708, log₂e,
// 1.5·2⁵², −H, −L (doc.go, steps 1–4), fl(1/i!) for i = 13 … 2, 1, and the
// exponent bias 1023 (int64).
// xmin at 0
DATA expc<>+0(SB)/8, $0xc086200000000000
DATA expc<>+8(SB)/8, $0xc086200000000000
DATA expc<>+16(SB)/8, $0xc086200000000000
DATA expc<>+24(SB)/8, $0xc086200000000000
// log2e at 32
DATA expc<>+32(SB)/8, $0x3ff71547652b82fe
DATA expc<>+40(SB)/8, $0x3ff71547652b82fe
DATA expc<>+48(SB)/8, $0x3ff71547652b82fe
DATA expc<>+56(SB)/8, $0x3ff71547652b82fe
// shifter at 64
DATA expc<>+64(SB)/8, $0x4338000000000000
DATA expc<>+72(SB)/8, $0x4338000000000000
DATA expc<>+80(SB)/8, $0x4338000000000000
DATA expc<>+88(SB)/8, $0x4338000000000000
// negln2hi at 96
DATA expc<>+96(SB)/8, $0xbfe62e42fee00000
DATA expc<>+104(SB)/8, $0xbfe62e42fee00000
DATA expc<>+112(SB)/8, $0xbfe62e42fee00000
DATA expc<>+120(SB)/8, $0xbfe62e42fee00000
// negln2lo at 128
DATA expc<>+128(SB)/8, $0xbdea39ef35793c76
DATA expc<>+136(SB)/8, $0xbdea39ef35793c76
DATA expc<>+144(SB)/8, $0xbdea39ef35793c76
DATA expc<>+152(SB)/8, $0xbdea39ef35793c76
// c13 at 160
DATA expc<>+160(SB)/8, $0x3de6124613a86d09
DATA expc<>+168(SB)/8, $0x3de6124613a86d09
DATA expc<>+176(SB)/8, $0x3de6124613a86d09
DATA expc<>+184(SB)/8, $0x3de6124613a86d09
// c12 at 192
DATA expc<>+192(SB)/8, $0x3e21eed8eff8d898
DATA expc<>+200(SB)/8, $0x3e21eed8eff8d898
DATA expc<>+208(SB)/8, $0x3e21eed8eff8d898
DATA expc<>+216(SB)/8, $0x3e21eed8eff8d898
// c11 at 224
DATA expc<>+224(SB)/8, $0x3e5ae64567f544e4
DATA expc<>+232(SB)/8, $0x3e5ae64567f544e4
DATA expc<>+240(SB)/8, $0x3e5ae64567f544e4
DATA expc<>+248(SB)/8, $0x3e5ae64567f544e4
// c10 at 256
DATA expc<>+256(SB)/8, $0x3e927e4fb7789f5c
DATA expc<>+264(SB)/8, $0x3e927e4fb7789f5c
DATA expc<>+272(SB)/8, $0x3e927e4fb7789f5c
DATA expc<>+280(SB)/8, $0x3e927e4fb7789f5c
// c9 at 288
DATA expc<>+288(SB)/8, $0x3ec71de3a556c734
DATA expc<>+296(SB)/8, $0x3ec71de3a556c734
DATA expc<>+304(SB)/8, $0x3ec71de3a556c734
DATA expc<>+312(SB)/8, $0x3ec71de3a556c734
// c8 at 320
DATA expc<>+320(SB)/8, $0x3efa01a01a01a01a
DATA expc<>+328(SB)/8, $0x3efa01a01a01a01a
DATA expc<>+336(SB)/8, $0x3efa01a01a01a01a
DATA expc<>+344(SB)/8, $0x3efa01a01a01a01a
// c7 at 352
DATA expc<>+352(SB)/8, $0x3f2a01a01a01a01a
DATA expc<>+360(SB)/8, $0x3f2a01a01a01a01a
DATA expc<>+368(SB)/8, $0x3f2a01a01a01a01a
DATA expc<>+376(SB)/8, $0x3f2a01a01a01a01a
// c6 at 384
DATA expc<>+384(SB)/8, $0x3f56c16c16c16c17
DATA expc<>+392(SB)/8, $0x3f56c16c16c16c17
DATA expc<>+400(SB)/8, $0x3f56c16c16c16c17
DATA expc<>+408(SB)/8, $0x3f56c16c16c16c17
// c5 at 416
DATA expc<>+416(SB)/8, $0x3f81111111111111
DATA expc<>+424(SB)/8, $0x3f81111111111111
DATA expc<>+432(SB)/8, $0x3f81111111111111
DATA expc<>+440(SB)/8, $0x3f81111111111111
// c4 at 448
DATA expc<>+448(SB)/8, $0x3fa5555555555555
DATA expc<>+456(SB)/8, $0x3fa5555555555555
DATA expc<>+464(SB)/8, $0x3fa5555555555555
DATA expc<>+472(SB)/8, $0x3fa5555555555555
// c3 at 480
DATA expc<>+480(SB)/8, $0x3fc5555555555555
DATA expc<>+488(SB)/8, $0x3fc5555555555555
DATA expc<>+496(SB)/8, $0x3fc5555555555555
DATA expc<>+504(SB)/8, $0x3fc5555555555555
// c2 at 512
DATA expc<>+512(SB)/8, $0x3fe0000000000000
DATA expc<>+520(SB)/8, $0x3fe0000000000000
DATA expc<>+528(SB)/8, $0x3fe0000000000000
DATA expc<>+536(SB)/8, $0x3fe0000000000000
// one at 544
DATA expc<>+544(SB)/8, $0x3ff0000000000000
DATA expc<>+552(SB)/8, $0x3ff0000000000000
DATA expc<>+560(SB)/8, $0x3ff0000000000000
DATA expc<>+568(SB)/8, $0x3ff0000000000000
// bias at 576
DATA expc<>+576(SB)/8, $0x00000000000003ff
DATA expc<>+584(SB)/8, $0x00000000000003ff
DATA expc<>+592(SB)/8, $0x00000000000003ff
DATA expc<>+600(SB)/8, $0x00000000000003ff
GLOBL expc<>(SB), RODATA|NOPTR, $608

// EXPV sets P = Exp(X) for the four values of X (X is clobbered; KB and K
// are temporaries): the clamp, k by the shifter (KB = x·log₂e + 1.5·2⁵²,
// K = KB − 1.5·2⁵²), r = x − k·H − k·L by two fused multiply-adds, the
// Horner steps p ← p·r + c from c₁₃ down to the two 1s, and 2^k from the
// low bits of KB ((k + 1023) << 52).
#define EXPV(X, KB, P, K) \
	VMAXPD expc<>+0(SB), X, X; \
	VMOVUPD expc<>+32(SB), KB; \
	VFMADD213PD expc<>+64(SB), X, KB; \
	VSUBPD expc<>+64(SB), KB, K; \
	VFMADD231PD expc<>+96(SB), K, X; \
	VFMADD231PD expc<>+128(SB), K, X; \
	VMOVUPD expc<>+160(SB), P; \
	VFMADD213PD expc<>+192(SB), X, P; \
	VFMADD213PD expc<>+224(SB), X, P; \
	VFMADD213PD expc<>+256(SB), X, P; \
	VFMADD213PD expc<>+288(SB), X, P; \
	VFMADD213PD expc<>+320(SB), X, P; \
	VFMADD213PD expc<>+352(SB), X, P; \
	VFMADD213PD expc<>+384(SB), X, P; \
	VFMADD213PD expc<>+416(SB), X, P; \
	VFMADD213PD expc<>+448(SB), X, P; \
	VFMADD213PD expc<>+480(SB), X, P; \
	VFMADD213PD expc<>+512(SB), X, P; \
	VFMADD213PD expc<>+544(SB), X, P; \
	VFMADD213PD expc<>+544(SB), X, P; \
	VPADDQ expc<>+576(SB), KB, KB; \
	VPSLLQ $52, KB, KB; \
	VMULPD KB, P, P

// GAUSSARG sets X = −g·((a0 − x)² + (a1 − y)²) for the four points at
// LO(SI) and HI(SI) = LO+32(SI) (x and y interleaved), as gaussArg2 does:
// the differences with Y14 = (a0, a1, a0, a1), their squares, VHADDPD
// adding each point's two squares (x² + y²) into the lane order 0 2 1 3,
// VPERMPD restoring 0 1 2 3, and the product with Y15 = −g. A and B are
// temporaries.
#define GAUSSARG(LO, HI, X, A, B) \
	VMOVUPD LO(SI), A; \
	VMOVUPD HI(SI), B; \
	VSUBPD A, Y14, A; \
	VSUBPD B, Y14, B; \
	VMULPD A, A, A; \
	VMULPD B, B, B; \
	VHADDPD B, A, X; \
	VPERMPD $0xD8, X, X; \
	VMULPD Y15, X, X

// func expAVX2(dst, x *float64, n4 int)
//
// dst[i] = expGo(x[i]) for i < n4 (a positive multiple of 4), 16 values per
// iteration (four independent registers) while at least 16 remain, then 4.
// Registers: SI = x, DI = dst, CX = values left.
TEXT ·expAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n4+16(FP), CX

loop16:
	CMPQ CX, $16
	JLT loop4
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VMOVUPD 96(SI), Y3
	EXPV(Y0, Y4, Y8, Y12)
	EXPV(Y1, Y5, Y9, Y13)
	EXPV(Y2, Y6, Y10, Y14)
	EXPV(Y3, Y7, Y11, Y15)
	VMOVUPD Y8, 0(DI)
	VMOVUPD Y9, 32(DI)
	VMOVUPD Y10, 64(DI)
	VMOVUPD Y11, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	JMP loop16

loop4:
	CMPQ CX, $4
	JLT done
	VMOVUPD (SI), Y0
	EXPV(Y0, Y4, Y8, Y12)
	VMOVUPD Y8, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP loop4

done:
	VZEROUPPER
	RET

// func gaussRow2AVX2(dst, p *float64, n4 int, a0, a1, negG float64)
//
// dst[j] = expGo(gaussArg2(p, j, a0, a1, g)) for j < n4 (a positive
// multiple of 4), with negG = −g: 8 points per iteration while at least 8
// remain, then 4. Registers: SI = p, DI = dst, CX = points left,
// Y14 = (a0, a1, a0, a1), Y15 = −g.
TEXT ·gaussRow2AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ n4+16(FP), CX
	VBROADCASTF128 a0+24(FP), Y14
	VBROADCASTSD negG+40(FP), Y15

gloop8:
	CMPQ CX, $8
	JLT gloop4
	GAUSSARG(0, 32, Y0, Y2, Y3)
	GAUSSARG(64, 96, Y1, Y6, Y7)
	EXPV(Y0, Y4, Y8, Y12)
	EXPV(Y1, Y5, Y9, Y13)
	VMOVUPD Y8, 0(DI)
	VMOVUPD Y9, 32(DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $8, CX
	JMP gloop8

gloop4:
	CMPQ CX, $4
	JLT gdone
	GAUSSARG(0, 32, Y0, Y2, Y3)
	EXPV(Y0, Y4, Y8, Y12)
	VMOVUPD Y8, (DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP gloop4

gdone:
	VZEROUPPER
	RET
