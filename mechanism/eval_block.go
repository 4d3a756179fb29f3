package mechanism

import (
	"math"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
)

// Blocked evaluation (issue 19 item 4). For a block of Q queries the plain
// Bernstein bases of axis j form a (k_j+1) × Q matrix B_j (one query per
// column). With C′ viewed as an R × (k_ℓ+1) matrix A (R = m/(k_ℓ+1), lattice
// order), the last axis is one matrix product T = A·B_ℓ (internal/gemm,
// fused multiply-adds, vectorised), and each remaining axis j = ℓ−1, …, 1 is
// a column-wise contraction of consecutive groups of k_j+1 rows of T with
// B_j. Every value is the chain of fused multiply-adds
//
//	T[r] = fma(A[r][k_ℓ], b_ℓ[k_ℓ], … fma(A[r][0], b_ℓ[0], +0))
//	T′[r′] = fma(T[r′·n+n−1], b_j[n−1], … fma(T[r′·n], b_j[0], +0))
//
// so a single query evaluated by evalFMA with math.FMA in the same order
// gets the same bits as in a batch. The plan exists only where the kernel is
// vectorised (gemm.Fast); elsewhere Eval and EvalBatch both use evalWith.

// blockMaxFloats bounds T (rows × Q values) per worker: 2 MiB.
const blockMaxFloats = 1 << 18

// blockQueries is the preferred number of queries per block.
const blockQueries = 96

type blockPlan struct {
	q       int       // queries per block, a multiple of gemm.ColBlock
	rows    int       // R = m/(k_ℓ+1)
	full    int       // rows handled straight from C′: R rounded down to gemm.RowBlock
	tail    []float64 // the last R − full rows of C′, zero-padded to gemm.RowBlock rows
	rowsPad int       // R rounded up to gemm.RowBlock
}

// newBlockPlan returns the plan for p, or nil when blocked evaluation is not
// used (no vectorised kernel, or R too large for a block of gemm.ColBlock
// queries within blockMaxFloats).
func newBlockPlan(k []int, prime []float64) *blockPlan {
	if !gemm.Fast() {
		return nil
	}
	n := k[len(k)-1] + 1
	rows := len(prime) / n
	rowsPad := (rows + gemm.RowBlock - 1) / gemm.RowBlock * gemm.RowBlock
	q := min(blockQueries, blockMaxFloats/rowsPad/gemm.ColBlock*gemm.ColBlock)
	if q < gemm.ColBlock {
		return nil
	}
	full := rows / gemm.RowBlock * gemm.RowBlock
	plan := &blockPlan{q: q, rows: rows, full: full, rowsPad: rowsPad}
	if full < rows {
		plan.tail = make([]float64, gemm.RowBlock*n)
		copy(plan.tail, prime[full*n:])
	}
	return plan
}

// blockScratch is one worker's memory for blocked evaluation.
type blockScratch struct {
	bases [][]float64 // per axis, (k_j+1) × q
	t     []float64   // rowsPad × q
	ys    []float64   // one axis' coordinates of the block, q
}

func (p *Polynomial) newBlockScratch() *blockScratch {
	b := p.block
	s := &blockScratch{bases: make([][]float64, len(p.k)), t: make([]float64, b.rowsPad*b.q), ys: make([]float64, b.q)}
	for j, kj := range p.k {
		s.bases[j] = make([]float64, (kj+1)*b.q)
	}
	return s
}

// evalBlock evaluates nq ≤ p.block.q validated queries (points holds nq·ℓ
// values) into out[:nq].
func (p *Polynomial) evalBlock(points []float64, out []float64, s *blockScratch) {
	b := p.block
	l := len(p.k)
	nq := len(out)
	Q := b.q
	cols := (nq + gemm.ColBlock - 1) / gemm.ColBlock * gemm.ColBlock
	ys := s.ys[:cols]
	for j, kj := range p.k {
		for q := range nq {
			ys[q] = points[q*l+j]
		}
		clear(ys[nq:]) // padding columns: the bases of 0, ignored results
		basisBlock(kj, ys, p.bases[j].ratios, s.bases[j], Q)
	}
	last := l - 1
	n := p.k[last] + 1
	t := s.t
	for r := range b.rowsPad {
		clear(t[r*Q : r*Q+cols])
	}
	bl := s.bases[last]
	gemm.MulAdd(t, Q, p.prime, n, 1, bl, Q, b.full, n, cols)
	if b.tail != nil {
		gemm.MulAdd(t[b.full*Q:], Q, b.tail, n, 1, bl, Q, gemm.RowBlock, n, cols)
	}
	rows := b.rows
	for j := last - 1; j >= 0; j-- {
		n := p.k[j] + 1
		rows /= n
		for r := range rows {
			// Row r ← rows r·n … r·n+n−1 (in place: row r ≤ r·n is read first).
			gemm.ColumnDots(t[r*Q:], t[r*n*Q:], Q, s.bases[j], Q, n, cols)
		}
	}
	copy(out, t[:nq])
}

// evalFMA is Eval on the blocked plan's arithmetic for one query: the same
// fused multiply-adds in the same order as evalBlock, hence the same bits.
func (p *Polynomial) evalFMA(y []float64, s *evalScratch) float64 {
	for j, kj := range p.k {
		bernstein(kj, y[j], s.basis[j], p.bases[j].ratios)
	}
	last := len(p.k) - 1
	bl := s.basis[last]
	n := len(bl)
	c := p.prime
	rows := p.block.rows
	tmp := s.tmp[:rows]
	for r := range rows {
		crow := c[r*n : (r+1)*n]
		var v float64
		for nu, x := range crow {
			v = math.FMA(x, bl[nu], v)
		}
		tmp[r] = v
	}
	for j := last - 1; j >= 0; j-- {
		bj := s.basis[j]
		n := len(bj)
		rows /= n
		for r := range rows {
			var v float64
			for nu, w := range bj {
				v = math.FMA(tmp[r*n+nu], w, v)
			}
			tmp[r] = v // reads indices ≥ r·n ≥ r only
		}
	}
	return tmp[0]
}

// basisBlock writes b_{ν,k}(ys[q]) to out[ν·ldo + q] for q < len(ys)
// (a multiple of gemm.ColBlock), bit-identically to bernstein.
func basisBlock(k int, ys []float64, rt *ratioTable, out []float64, ldo int) {
	if len(ys) == 0 {
		return
	}
	if haveBasisBlockAsm && gemm.Fast() && len(ys)%gemm.ColBlock == 0 && ldo >= len(ys) && len(out) >= k*ldo+len(ys) && len(rt.up) >= k {
		basisBlockAVX2(&ys[0], len(ys), k, &rt.up[0], &out[0], ldo)
		return
	}
	col := make([]float64, k+1)
	for q, y := range ys {
		bernstein(k, y, col, rt)
		for nu, v := range col {
			out[nu*ldo+q] = v
		}
	}
}
