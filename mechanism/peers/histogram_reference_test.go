package peers

import (
	"math"
	"strings"
	"testing"
)

// TestHistogramReferenceSupError: the per-bin shortcut equals the sup over
// the grid computed point by point, including a bin without grid points
// (skipped) and the top edge y = 1 (last bin).
func TestHistogramReferenceSupError(t *testing.T) {
	grid := []float64{0, 0.1, 0.2, 0.3, 0.8, 0.9, 1}
	truth := []float64{1, 3, 2, 0.5, 4, 1.5, 2.5}
	const bins = 4 // bin 2 = [0.5, 0.75) holds no grid point
	ref, err := NewHistogramReference(grid, truth, bins)
	if err != nil {
		t.Fatal(err)
	}
	for _, dens := range [][]float64{{1, 1, 1, 1}, {2, 0.5, 100, 3}, {0, 0, 0, 4}, {1.7, 0.2, 0, 2.2}} {
		want := 0.0
		for i, y := range grid {
			want = math.Max(want, math.Abs(dens[HistogramBin(y, bins)]-truth[i]))
		}
		if got := ref.SupError(dens); got != want {
			t.Errorf("density %v: SupError = %v, want %v", dens, got, want)
		}
	}
}

func TestHistogramReferenceErrors(t *testing.T) {
	tests := []struct {
		name        string
		grid, truth []float64
		bins        int
		want        string
	}{
		{"no bins", []float64{0.5}, []float64{1}, 0, "0 bins"},
		{"too many bins", []float64{0.5}, []float64{1}, MaxBins + 1, "must be between 1"},
		{"length mismatch", []float64{0.5, 0.6}, []float64{1}, 2, "1 reference values for 2 grid points"},
		{"grid point outside", []float64{0.5, 1.5}, []float64{1, 2}, 2, "grid point 1 = 1.5"},
		{"NaN grid point", []float64{math.NaN()}, []float64{1}, 2, "grid point 0 = NaN"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewHistogramReference(tc.grid, tc.truth, tc.bins)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
