package gemm

import (
	"math"
	rand "math/rand/v2" // seeded: test data only
	"testing"
)

// TestMulAddMatchesGoBitForBit: the kernel (assembly where Fast) gives the
// same bits as the portable loop, on shapes with several tiles, both A
// layouts (A and Aᵀ), padded leading dimensions, accumulation onto non-zero
// T, and a slice-end exactly at the last element.
func TestMulAddMatchesGoBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []struct{ rows, k, cols, padT, padB int }{
		{3, 1, 12, 0, 0}, {3, 21, 12, 0, 0}, {21, 21, 96, 0, 0}, {24, 7, 24, 5, 3},
		{6, 1000, 36, 1, 0}, {9, 3, 12, 0, 12},
	} {
		for _, transposed := range []bool{false, true} {
			rs, cs := s.k, 1
			if transposed {
				rs, cs = 1, s.rows
			}
			a := randSlice(r, s.rows*s.k)
			ldb, ldt := s.cols+s.padB, s.cols+s.padT
			b := randSlice(r, (s.k-1)*ldb+s.cols)
			t0 := randSlice(r, (s.rows-1)*ldt+s.cols)
			got := append([]float64(nil), t0...)
			want := append([]float64(nil), t0...)
			MulAdd(got, ldt, a, rs, cs, b, ldb, s.rows, s.k, s.cols)
			mulAddGo(want, ldt, a, rs, cs, b, ldb, s.rows, s.k, s.cols)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("shape %+v transposed=%v: t[%d] = %.17g, Go loop %.17g (Fast=%v)", s, transposed, i, got[i], want[i], Fast())
				}
			}
			// And against a plain float64 sum, to rounding: Σ|terms|·k·2⁻⁵³.
			for row := range s.rows {
				for c := range s.cols {
					sum, abs := t0[row*ldt+c], math.Abs(t0[row*ldt+c])
					for i := range s.k {
						p := a[row*rs+i*cs] * b[i*ldb+c]
						sum += p
						abs += math.Abs(p)
					}
					if d := math.Abs(got[row*ldt+c] - sum); d > float64(s.k+1)*0x1p-52*abs {
						t.Fatalf("shape %+v: t[%d][%d] = %.17g, sum %.17g", s, row, c, got[row*ldt+c], sum)
					}
				}
			}
			// Padding of T is untouched.
			for row := range s.rows - 1 {
				for c := s.cols; c < ldt; c++ {
					if got[row*ldt+c] != t0[row*ldt+c] {
						t.Fatalf("shape %+v: padding t[%d][%d] changed", s, row, c)
					}
				}
			}
		}
	}
}

func TestMulAddRejectsBadShapes(t *testing.T) {
	for name, f := range map[string]func(){
		"rows":  func() { MulAdd(make([]float64, 24), 12, make([]float64, 2), 1, 1, make([]float64, 12), 12, 2, 1, 12) },
		"cols":  func() { MulAdd(make([]float64, 30), 10, make([]float64, 3), 1, 1, make([]float64, 10), 10, 3, 1, 10) },
		"short": func() { MulAdd(make([]float64, 35), 12, make([]float64, 3), 1, 1, make([]float64, 12), 12, 3, 1, 12) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: MulAdd did not panic", name)
				}
			}()
			f()
		}()
	}
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*r.Float64() - 1
	}
	return s
}

func BenchmarkMulAdd21x21x96(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	a, bb, t := randSlice(r, 21*21), randSlice(r, 21*96), make([]float64, 21*96)
	for b.Loop() {
		MulAdd(t, 96, a, 21, 1, bb, 96, 21, 21, 96)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*96), "ns/column")
	b.ReportMetric(float64(2*21*21*96*b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func TestColumnDotsMatchesGoBitForBit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range []struct{ n, cols, pad int }{{1, 12, 0}, {21, 96, 0}, {5, 24, 7}, {1001, 36, 1}} {
		ld := s.cols + s.pad
		tm, b := randSlice(r, (s.n-1)*ld+s.cols), randSlice(r, (s.n-1)*ld+s.cols)
		got, want := make([]float64, s.cols), make([]float64, s.cols)
		ColumnDots(got, tm, ld, b, ld, s.n, s.cols)
		columnDotsGo(want, tm, ld, b, ld, s.n, s.cols)
		for c := range got {
			if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
				t.Fatalf("shape %+v: dst[%d] = %.17g, Go loop %.17g", s, c, got[c], want[c])
			}
		}
		// In place: dst = row 0 of t.
		in := append([]float64(nil), tm...)
		ColumnDots(in, in, ld, b, ld, s.n, s.cols)
		for c := range s.cols {
			if in[c] != want[c] {
				t.Fatalf("shape %+v in place: dst[%d] = %.17g, want %.17g", s, c, in[c], want[c])
			}
		}
	}
}
