//go:build amd64 && !purego

#include "textflag.h"

DATA basisOne<>+0(SB)/8, $1.0
GLOBL basisOne<>(SB), RODATA|NOPTR, $8
DATA basisHalf<>+0(SB)/8, $0.5
GLOBL basisHalf<>(SB), RODATA|NOPTR, $8

// func basisBlockAVX2(ys *float64, cols, k int, up *float64, out *float64, ldo int)
//
// 12 lanes (3 YMM) per group. Per lane v (registers Y0+v, Y3+v, Y6+v, Y9+v):
//   q = 1 − y; mask = y > ½; base = mask ? y : q; num = mask ? q : y;
//   r = num/base; w = base^k (binary powering, as powInt);
//   row 0 = w; row i+1 = (w ← w·(up[i]·r)); then rows ν and k−ν are
//   swapped in the lanes where mask is set.
// GP registers: SI = ys, DI = out at the group, R8 = ldo·8, CX = lanes
// left, DX = k, BX = up, R9 = row pointer, R10 = counter, R11 = high row
// pointer.
TEXT ·basisBlockAVX2(SB), NOSPLIT, $0-48
	MOVQ ys+0(FP), SI
	MOVQ cols+8(FP), CX
	MOVQ k+16(FP), DX
	MOVQ up+24(FP), BX
	MOVQ out+32(FP), DI
	MOVQ ldo+40(FP), R8
	SHLQ $3, R8
	VBROADCASTSD basisOne<>(SB), Y15
	VBROADCASTSD basisHalf<>(SB), Y14

group:
	VMOVUPD (SI), Y0
	VMOVUPD 32(SI), Y1
	VMOVUPD 64(SI), Y2
	VSUBPD  Y0, Y15, Y3
	VSUBPD  Y1, Y15, Y4
	VSUBPD  Y2, Y15, Y5
	VCMPPD  $0x1e, Y14, Y0, Y6 // y > ½ (GT_OQ)
	VCMPPD  $0x1e, Y14, Y1, Y7
	VCMPPD  $0x1e, Y14, Y2, Y8
	VBLENDVPD Y6, Y0, Y3, Y9   // base = mask ? y : q
	VBLENDVPD Y7, Y1, Y4, Y10
	VBLENDVPD Y8, Y2, Y5, Y11
	VBLENDVPD Y6, Y3, Y0, Y0   // num = mask ? q : y
	VBLENDVPD Y7, Y4, Y1, Y1
	VBLENDVPD Y8, Y5, Y2, Y2
	VDIVPD  Y9, Y0, Y0         // r = num/base
	VDIVPD  Y10, Y1, Y1
	VDIVPD  Y11, Y2, Y2

	// w = base^k: r ← 1; while n > 0 { if n&1 { r ← r·x }; x ← x·x; n >>= 1 }.
	VMOVAPD Y15, Y3
	VMOVAPD Y15, Y4
	VMOVAPD Y15, Y5
	MOVQ DX, R10

pow:
	TESTQ $1, R10
	JZ    square
	VMULPD Y9, Y3, Y3
	VMULPD Y10, Y4, Y4
	VMULPD Y11, Y5, Y5

square:
	VMULPD Y9, Y9, Y9
	VMULPD Y10, Y10, Y10
	VMULPD Y11, Y11, Y11
	SHRQ   $1, R10
	JNZ    pow

	// Row 0, then the recurrence.
	VMOVUPD Y3, (DI)
	VMOVUPD Y4, 32(DI)
	VMOVUPD Y5, 64(DI)
	MOVQ DI, R9
	MOVQ BX, R11
	MOVQ DX, R10

step:
	ADDQ R8, R9
	VBROADCASTSD (R11), Y12
	VMULPD Y12, Y0, Y9         // up[i]·r
	VMULPD Y12, Y1, Y10
	VMULPD Y12, Y2, Y11
	VMULPD Y9, Y3, Y3          // w ← w·(up[i]·r)
	VMULPD Y10, Y4, Y4
	VMULPD Y11, Y5, Y5
	VMOVUPD Y3, (R9)
	VMOVUPD Y4, 32(R9)
	VMOVUPD Y5, 64(R9)
	ADDQ $8, R11
	DECQ R10
	JNZ  step

	// Mirror: swap rows ν and k−ν in the lanes with y > ½. R9 is row k.
	MOVQ DI, R10

mirror:
	CMPQ R10, R9
	JAE  next
	VMOVUPD (R10), Y9
	VMOVUPD (R9), Y10
	VBLENDVPD Y6, Y10, Y9, Y11
	VBLENDVPD Y6, Y9, Y10, Y12
	VMOVUPD Y11, (R10)
	VMOVUPD Y12, (R9)
	VMOVUPD 32(R10), Y9
	VMOVUPD 32(R9), Y10
	VBLENDVPD Y7, Y10, Y9, Y11
	VBLENDVPD Y7, Y9, Y10, Y12
	VMOVUPD Y11, 32(R10)
	VMOVUPD Y12, 32(R9)
	VMOVUPD 64(R10), Y9
	VMOVUPD 64(R9), Y10
	VBLENDVPD Y8, Y10, Y9, Y11
	VBLENDVPD Y8, Y9, Y10, Y12
	VMOVUPD Y11, 64(R10)
	VMOVUPD Y12, 64(R9)
	ADDQ R8, R10
	SUBQ R8, R9
	JMP  mirror

next:
	ADDQ $96, SI
	ADDQ $96, DI
	SUBQ $12, CX
	JNZ  group

	VZEROUPPER
	RET
