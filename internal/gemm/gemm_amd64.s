//go:build amd64 && !purego

#include "textflag.h"

// func mulAddAVX2(t *float64, ldt int, a *float64, rs, cs int, b *float64, ldb int, rows, k, cols int)
//
// T[r][c] += Σ_i A[r][i]·B[i][c], one VFMADD231PD per term in increasing i,
// on tiles of 3 rows × 12 columns (9 YMM accumulators). rows % 3 == 0,
// cols % 12 == 0, k ≥ 1 (checked by MulAdd).
//
// Registers: SI = A at the tile's first row, DI = T at the tile's first row,
// R8 = rs·8, R9 = cs·8, R10 = ldb·8, R11 = ldt·8, R12 = rows left,
// CX = columns left, BX = B at the tile's first column, AX = T at the tile,
// DX = A at row r0, term i; R14 = B at term i; R13 = terms left.
TEXT ·mulAddAVX2(SB), NOSPLIT, $0-80
	MOVQ t+0(FP), DI
	MOVQ ldt+8(FP), R11
	SHLQ $3, R11
	MOVQ a+16(FP), SI
	MOVQ rs+24(FP), R8
	SHLQ $3, R8
	MOVQ cs+32(FP), R9
	SHLQ $3, R9
	MOVQ ldb+48(FP), R10
	SHLQ $3, R10
	MOVQ rows+56(FP), R12

rowtile:
	MOVQ cols+72(FP), CX
	MOVQ b+40(FP), BX
	MOVQ DI, AX

coltile:
	// Load the 3×12 tile of T.
	VMOVUPD (AX), Y0
	VMOVUPD 32(AX), Y1
	VMOVUPD 64(AX), Y2
	VMOVUPD (AX)(R11*1), Y3
	VMOVUPD 32(AX)(R11*1), Y4
	VMOVUPD 64(AX)(R11*1), Y5
	VMOVUPD (AX)(R11*2), Y6
	VMOVUPD 32(AX)(R11*2), Y7
	VMOVUPD 64(AX)(R11*2), Y8

	MOVQ SI, DX
	MOVQ BX, R14
	MOVQ k+64(FP), R13

term:
	VMOVUPD (R14), Y9
	VMOVUPD 32(R14), Y10
	VMOVUPD 64(R14), Y11
	VBROADCASTSD (DX), Y12
	VFMADD231PD Y9, Y12, Y0
	VFMADD231PD Y10, Y12, Y1
	VFMADD231PD Y11, Y12, Y2
	VBROADCASTSD (DX)(R8*1), Y13
	VFMADD231PD Y9, Y13, Y3
	VFMADD231PD Y10, Y13, Y4
	VFMADD231PD Y11, Y13, Y5
	VBROADCASTSD (DX)(R8*2), Y14
	VFMADD231PD Y9, Y14, Y6
	VFMADD231PD Y10, Y14, Y7
	VFMADD231PD Y11, Y14, Y8
	ADDQ R9, DX
	ADDQ R10, R14
	DECQ R13
	JNZ  term

	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, (AX)(R11*1)
	VMOVUPD Y4, 32(AX)(R11*1)
	VMOVUPD Y5, 64(AX)(R11*1)
	VMOVUPD Y6, (AX)(R11*2)
	VMOVUPD Y7, 32(AX)(R11*2)
	VMOVUPD Y8, 64(AX)(R11*2)

	ADDQ $96, BX
	ADDQ $96, AX
	SUBQ $12, CX
	JNZ  coltile

	// Next row tile: A and T advance by 3 rows.
	LEAQ (SI)(R8*2), SI
	ADDQ R8, SI
	LEAQ (DI)(R11*2), DI
	ADDQ R11, DI
	SUBQ $3, R12
	JNZ  rowtile

	VZEROUPPER
	RET

// func columnDotsAVX2(dst, t *float64, ldt int, b *float64, ldb int, n, cols int)
//
// dst[c] = fma chain over i of T[i][c]·B[i][c], 12 columns (3 YMM) at a time.
// Registers: DI = dst, SI = T at the column group, DX = B at the column
// group, R8 = ldt·8, R9 = ldb·8, CX = columns left, R10 = T at term i,
// R11 = B at term i, R12 = terms left.
TEXT ·columnDotsAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ t+8(FP), SI
	MOVQ ldt+16(FP), R8
	SHLQ $3, R8
	MOVQ b+24(FP), DX
	MOVQ ldb+32(FP), R9
	SHLQ $3, R9
	MOVQ cols+48(FP), CX

group:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	MOVQ SI, R10
	MOVQ DX, R11
	MOVQ n+40(FP), R12

cterm:
	VMOVUPD (R10), Y3
	VMOVUPD 32(R10), Y4
	VMOVUPD 64(R10), Y5
	VFMADD231PD (R11), Y3, Y0
	VFMADD231PD 32(R11), Y4, Y1
	VFMADD231PD 64(R11), Y5, Y2
	ADDQ R8, R10
	ADDQ R9, R11
	DECQ R12
	JNZ  cterm

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	ADDQ $96, DI
	ADDQ $96, SI
	ADDQ $96, DX
	SUBQ $12, CX
	JNZ  group

	VZEROUPPER
	RET

// func maxAbsDiffAVX2(e, n *float64, n8 int, s float64) float64
//
// max over i < n8 of |e[i] − s·n[i]| (product rounded, then difference,
// as the scalar loop), 8 values (2 YMM) at a time; n8 % 8 == 0, n8 ≥ 8.
// Registers: SI = e, DI = n, CX = values left, Y0 = s, Y1 = abs mask,
// Y2, Y3 = running maxima.
TEXT ·maxAbsDiffAVX2(SB), NOSPLIT, $0-40
	MOVQ         e+0(FP), SI
	MOVQ         n+8(FP), DI
	MOVQ         n8+16(FP), CX
	VBROADCASTSD s+24(FP), Y0
	MOVQ         $0x7fffffffffffffff, AX
	MOVQ         AX, X1
	VPBROADCASTQ X1, Y1
	VXORPD       Y2, Y2, Y2
	VXORPD       Y3, Y3, Y3

mloop:
	VMULPD  (DI), Y0, Y4
	VMULPD  32(DI), Y0, Y5
	VMOVUPD (SI), Y6
	VMOVUPD 32(SI), Y7
	VSUBPD  Y4, Y6, Y6
	VSUBPD  Y5, Y7, Y7
	VANDPD  Y1, Y6, Y6
	VANDPD  Y1, Y7, Y7
	VMAXPD  Y6, Y2, Y2
	VMAXPD  Y7, Y3, Y3
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX
	JNZ     mloop

	VMAXPD       Y3, Y2, Y2
	VEXTRACTF128 $1, Y2, X3
	VMAXPD       X3, X2, X2
	VPERMILPD    $1, X2, X3
	VMAXSD       X3, X2, X2
	VZEROUPPER
	MOVSD        X2, ret+32(FP)
	RET
