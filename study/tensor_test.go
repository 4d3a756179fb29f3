package study

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveContract is the literal sum Σ_ν c[ν]·∏_j B_j[g_j][ν_j].
func naiveContract(coeffs []float64, mats []axisMatrix) []float64 {
	l := len(mats)
	gsize, csize := 1, 1
	for _, m := range mats {
		gsize *= m.rows
		csize *= m.cols
	}
	out := make([]float64, gsize)
	g := make([]int, l)
	nu := make([]int, l)
	for gi := 0; gi < gsize; gi++ {
		r := gi
		for j := l - 1; j >= 0; j-- {
			g[j] = r % mats[j].rows
			r /= mats[j].rows
		}
		s := 0.0
		for ci := 0; ci < csize; ci++ {
			r := ci
			for j := l - 1; j >= 0; j-- {
				nu[j] = r % mats[j].cols
				r /= mats[j].cols
			}
			p := coeffs[ci]
			for j := range l {
				p *= mats[j].at(g[j], nu[j])
			}
			s += p
		}
		out[gi] = s
	}
	return out
}

func randMatrix(r *rand.Rand, rows, cols int) axisMatrix {
	m := axisMatrix{rows: rows, cols: cols, data: make([]float64, rows*cols)}
	for i := range m.data {
		m.data[i] = r.NormFloat64()
	}
	return m
}

func TestContractorMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2)) // seeded: test data
	tests := []struct {
		name  string
		shape [][2]int // (grid rows, lattice cols) per axis
	}{
		{"1-D", [][2]int{{7, 4}}},
		{"2-D square", [][2]int{{5, 5}, {5, 5}}},
		{"2-D rectangular", [][2]int{{9, 3}, {4, 6}}},
		{"3-D", [][2]int{{3, 4}, {5, 2}, {6, 3}}},
		{"4-D singleton axis", [][2]int{{2, 3}, {1, 2}, {3, 3}, {2, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mats []axisMatrix
			csize := 1
			for _, s := range tt.shape {
				mats = append(mats, randMatrix(r, s[0], s[1]))
				csize *= s[1]
			}
			coeffs := make([]float64, csize)
			for i := range coeffs {
				coeffs[i] = r.NormFloat64()
			}
			want := naiveContract(coeffs, mats)
			c := newContractor(mats)
			for rep := 0; rep < 2; rep++ { // buffers are reused correctly
				got := c.apply(coeffs)
				if len(got) != len(want) {
					t.Fatalf("len %d, want %d", len(got), len(want))
				}
				for i := range want {
					if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
						t.Fatalf("rep %d: out[%d] = %v, want %v", rep, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// at returns B[g][ν] (the naive reference of the tests).
func (m axisMatrix) at(g, nu int) float64 { return m.data[g*m.cols+nu] }
