package peers

import (
	"fmt"
	"math"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// choleskyLowerRowByRow is the factorisation as written before the
// four-row blocks (every row by choleskyRows from column 0): the reference
// the blocked one must match bit for bit.
func choleskyLowerRowByRow(k []float64, shift float64, m int, l []float64) bool {
	clear(l)
	return choleskyRows(k, shift, m, l, 0, m, 0)
}

// TestCholeskyBlockedSameBits: the four-row blocked factor equals the
// row-by-row one bit for bit, for sizes around the block (remainder rows)
// and for a matrix that fails (both report it).
func TestCholeskyBlockedSameBits(t *testing.T) {
	for _, m := range []int{1, 3, 4, 5, 7, 8, 21, 102, 1001} {
		a := unitAxis(m)
		k := make([]float64, m*m)
		for p := range m {
			for q := range m {
				d := (a[p] - a[q]) / 0.05
				k[p*m+q] = math.Exp(-d * d / 2)
			}
		}
		for _, shift := range []float64{gpAllowance(m, 0), -2} {
			got, want := make([]float64, m*m), make([]float64, m*m)
			okGot, okWant := choleskyLower(k, shift, m, got), choleskyLowerRowByRow(k, shift, m, want)
			if okGot != okWant {
				t.Fatalf("m = %d, shift %g: blocked ok = %v, row by row %v", m, shift, okGot, okWant)
			}
			if !okWant {
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("m = %d: entry (%d, %d) = %v, row by row %v", m, i/m, i%m, got[i], want[i])
				}
			}
		}
	}
}

// TestGPSampleRows: SampleRows draws what the same number of Sample calls
// from the same stream draw, equal up to the rounding of a 1001-term
// product (relative 1e-12 of the path's scale), on one axis (the batched
// product) and on two (draw by draw).
func TestGPSampleRows(t *testing.T) {
	for _, axes := range [][][]float64{{unitAxis(1001)}, {unitAxis(11), unitAxis(13)}} {
		t.Run(fmt.Sprintf("axes=%d", len(axes)), func(t *testing.T) {
			sig := make([]float64, len(axes))
			for j := range sig {
				sig[j] = 0.05
			}
			f, err := NewGPFactor(axes, GPKernel{Amplitude: 2, Sigmas: sig})
			if err != nil {
				t.Fatal(err)
			}
			const rows = 7
			n := f.Size()
			want := make([]float64, rows*n)
			ref := mechanism.NewSimulationNoise(9)
			for i := range rows {
				if err := f.Sample(0.5, ref, want[i*n:(i+1)*n]); err != nil {
					t.Fatal(err)
				}
			}
			src := mechanism.NewSimulationNoise(9)
			srcs := make([]GaussianSource, rows)
			for i := range srcs {
				srcs[i] = src
			}
			got := make([]float64, rows*n)
			if err := f.SampleRows(0.5, srcs, got); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if d := math.Abs(got[i] - want[i]); d > 1e-12 {
					t.Fatalf("value %d: %v, Sample gives %v", i, got[i], want[i])
				}
			}
			if err := f.SampleRows(0.5, srcs, got[:n]); err == nil {
				t.Errorf("SampleRows with %d sources and room for one draw: no error", rows)
			}
		})
	}
}
