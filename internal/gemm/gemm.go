package gemm

import (
	"fmt"
	"math"
)

// RowBlock and ColBlock are the tile of the kernel: rows of T must come in
// multiples of RowBlock, columns in multiples of ColBlock.
const (
	RowBlock = 3
	ColBlock = 12
)

// Fast reports whether MulAdd runs the vectorised kernel (amd64 with AVX2
// and FMA). Callers use it to choose between the blocked evaluation and
// their scalar paths.
func Fast() bool { return useAsm }

// MulAdd adds A·B to T as described in the package documentation:
// T[r][c] = t[r·ldt + c], A[r][i] = a[r·rs + i·cs], B[i][c] = b[i·ldb + c]
// for r < rows, i < k, c < cols. rows % RowBlock == 0, cols % ColBlock ==
// 0, strides ≥ 0; it panics if a slice is too short for the shape.
func MulAdd(t []float64, ldt int, a []float64, rs, cs int, b []float64, ldb int, rows, k, cols int) {
	if rows == 0 || cols == 0 || k == 0 {
		return
	}
	if rows%RowBlock != 0 || cols%ColBlock != 0 || rows < 0 || cols < 0 || k < 0 || rs < 0 || cs < 0 || ldb < cols || ldt < cols {
		panic(fmt.Sprintf("gemm.MulAdd: shape rows=%d k=%d cols=%d rs=%d cs=%d ldb=%d ldt=%d: rows must be a multiple of %d, cols of %d, leading dimensions ≥ cols",
			rows, k, cols, rs, cs, ldb, ldt, RowBlock, ColBlock))
	}
	if need := (rows-1)*ldt + cols; len(t) < need {
		panic(fmt.Sprintf("gemm.MulAdd: len(t) = %d, need %d", len(t), need))
	}
	if need := (rows-1)*rs + (k-1)*cs + 1; len(a) < need {
		panic(fmt.Sprintf("gemm.MulAdd: len(a) = %d, need %d", len(a), need))
	}
	if need := (k-1)*ldb + cols; len(b) < need {
		panic(fmt.Sprintf("gemm.MulAdd: len(b) = %d, need %d", len(b), need))
	}
	if useAsm {
		mulAddAVX2(&t[0], ldt, &a[0], rs, cs, &b[0], ldb, rows, k, cols)
		return
	}
	mulAddGo(t, ldt, a, rs, cs, b, ldb, rows, k, cols)
}

// mulAddGo is the portable kernel: the same fused multiply-adds in the same
// order as the assembly.
func mulAddGo(t []float64, ldt int, a []float64, rs, cs int, b []float64, ldb int, rows, k, cols int) {
	for r := range rows {
		trow := t[r*ldt : r*ldt+cols]
		for i := range k {
			x := a[r*rs+i*cs]
			brow := b[i*ldb : i*ldb+cols]
			for c, v := range brow {
				trow[c] = math.FMA(x, v, trow[c])
			}
		}
	}
}

// ColumnDots sets dst[c] = Σ_i T[i][c]·B[i][c] for c < cols (T[i][c] =
// t[i·ldt + c], B[i][c] = b[i·ldb + c], i < n) as the chain
// fma(T[n−1][c], B[n−1][c], … fma(T[0][c], B[0][c], +0)): the same bits as
// a scalar loop with math.FMA in that order. cols % ColBlock == 0. dst may
// be row 0 of t (each column is read before it is written).
func ColumnDots(dst, t []float64, ldt int, b []float64, ldb int, n, cols int) {
	if cols == 0 {
		return
	}
	if n < 1 || cols%ColBlock != 0 || cols < 0 || ldt < cols || ldb < cols {
		panic(fmt.Sprintf("gemm.ColumnDots: n=%d cols=%d ldt=%d ldb=%d: need n ≥ 1, cols a multiple of %d, leading dimensions ≥ cols", n, cols, ldt, ldb, ColBlock))
	}
	if len(dst) < cols || len(t) < (n-1)*ldt+cols || len(b) < (n-1)*ldb+cols {
		panic(fmt.Sprintf("gemm.ColumnDots: slices too short for n=%d cols=%d", n, cols))
	}
	if useAsm {
		columnDotsAVX2(&dst[0], &t[0], ldt, &b[0], ldb, n, cols)
		return
	}
	columnDotsGo(dst, t, ldt, b, ldb, n, cols)
}

func columnDotsGo(dst, t []float64, ldt int, b []float64, ldb int, n, cols int) {
	for c := range cols {
		var v float64
		for i := range n {
			v = math.FMA(t[i*ldt+c], b[i*ldb+c], v)
		}
		dst[c] = v
	}
}
