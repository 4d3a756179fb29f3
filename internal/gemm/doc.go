// Package gemm holds the one dense matrix kernel that the evaluation hot
// paths share (mechanism's batch evaluation of a polynomial, the KDE's
// lattice): T += A·B for small blocks, with fused multiply-adds.
//
// Contract: MulAdd computes, for every r < rows and c < cols,
//
//	T[r][c] ← fma(A[r][k−1], B[k−1][c], … fma(A[r][1], B[1][c], fma(A[r][0], B[0][c], T[r][c])) …)
//
// that is, one fused multiply-add per term, in increasing order of the
// summation index, starting from the value already in T. The result of each
// element is therefore the same whichever code path computes it: the AVX2
// assembly on amd64 (when the processor has AVX2 and FMA, Fast() == true)
// and the portable Go loop (math.FMA) give bit-identical values, and so does
// a scalar loop written with math.FMA in the same order (which is how
// callers evaluate a single query bit-identically to a batch).
//
// A is addressed with two strides, A[r][i] = a[r·rs + i·cs], so the same
// kernel multiplies by A or by Aᵀ. B and T are row-major with leading
// dimensions ldb and ldt. rows must be a multiple of RowBlock and cols a
// multiple of ColBlock (callers pad with zeros); MulAdd panics on shapes
// that do not fit the slices (programmer error).
//
// MaxAbsDiff, max_i |e[i] − s·n[i]|, is the reduction the simulations
// score a release's sup-norm error with (study; issue 19 item 4): AVX2 on
// amd64, the same bits as its scalar loop everywhere (a maximum does not
// depend on the order).
//
// Without Fast() the Go loop is correct but slow where math.FMA is emulated
// in software (amd64 without FMA); callers then keep their own scalar paths.
package gemm
