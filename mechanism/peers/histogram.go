package peers

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// MaxBins bounds the number of histogram bins (memory, not privacy).
const MaxBins = 1 << 20

// HistogramCounts returns n_i = #{x_j ∈ I_i}, i = 0..bins−1, for the bins
// I_i = [i/bins, (i+1)/bins) (the last bin also holds 1) of Chaudhuri &
// Vinterbo (2013), Algorithm 5, step 4 (bin size h = 1/bins). Every x must
// lie in [0,1]; 1 ≤ bins ≤ MaxBins. The counts are private.
func HistogramCounts(x []float64, bins int) ([]float64, error) {
	if bins < 1 || bins > MaxBins {
		return nil, fmt.Errorf("peers.HistogramCounts: bins = %d: must be between 1 and %d", bins, MaxBins)
	}
	counts := make([]float64, bins)
	for j, v := range x {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("peers.HistogramCounts: x[%d] = %v: must lie in [0,1]", j, v)
		}
		counts[HistogramBin(v, bins)]++
	}
	return counts, nil
}

// HistogramBin returns the index of the bin [i/bins, (i+1)/bins) holding
// y ∈ [0,1] (1 goes to the last bin). Values outside [0,1] are clamped to
// the first or last bin; bins must be ≥ 1 (it returns 0 otherwise).
func HistogramBin(y float64, bins int) int {
	if bins < 1 || !(y > 0) {
		return 0
	}
	return min(int(math.Floor(y*float64(bins))), bins-1)
}

// HistogramNoiseScale returns the Laplace scale 2/ε of Algorithm 5 step 4
// (ñ_i = n_i + 2R_i/α with R_i standard Laplace, α = ε): replacing one
// record moves one count down and one up, so the count vector has L1
// sensitivity 2 and Laplace(2/ε) noise on every count is ε-DP. ε follows
// mechanism.ValidateEpsilon.
func HistogramNoiseScale(epsilon float64) (float64, error) {
	if err := mechanism.ValidateEpsilon(epsilon); err != nil {
		return 0, fmt.Errorf("peers.HistogramNoiseScale: %w", err)
	}
	return 2 / epsilon, nil
}

// HistogramDensity is the public post-processing of Algorithm 5 steps 4–6:
// given noisy counts n_i + Z_i it returns the density value on each bin,
// f̂_i = ñ_i/(h·ñ) with ñ_i = max(0, n_i + Z_i), ñ = Σ ñ_i and h = 1/bins.
// The paper leaves ñ = 0 (every noisy count ≤ 0) undefined; we return the
// uniform density 1, which depends on nothing private. Noisy counts must be
// finite and at least one given; out may be nil (a new slice is returned)
// or have len(noisy).
func HistogramDensity(noisy, out []float64) ([]float64, error) {
	bins := len(noisy)
	if bins < 1 || bins > MaxBins {
		return nil, fmt.Errorf("peers.HistogramDensity: %d noisy counts: must be between 1 and %d", bins, MaxBins)
	}
	if out == nil {
		out = make([]float64, bins)
	} else if len(out) != bins {
		return nil, fmt.Errorf("peers.HistogramDensity: len(out) = %d: must equal the number of counts %d", len(out), bins)
	}
	total := 0.0
	for i, c := range noisy {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("peers.HistogramDensity: noisy count %d = %v: must be finite", i, c)
		}
		out[i] = max(0, c)
		total += out[i]
	}
	if total == 0 {
		for i := range out {
			out[i] = 1
		}
		return out, nil
	}
	scale := float64(bins) / total // 1/(h·ñ)
	for i := range out {
		out[i] *= scale
	}
	return out, nil
}

// HistogramReference holds, per bin, the extremes of a reference function
// (the non-private F_D) over the grid points in that bin, so that the sup
// error of a histogram density over the grid costs one pass over the bins:
// on bin i the density is the constant f̂_i, and max over the bin's grid
// points of |f̂_i − F(y)| = max(|f̂_i − lo_i|, |f̂_i − hi_i|).
type HistogramReference struct {
	lo, hi []float64 // +Inf/−Inf for a bin without grid points
}

// NewHistogramReference bins the grid points (in [0,1], as HistogramBin)
// with their reference values truth (len(grid)) into bins bins
// (1 ≤ bins ≤ MaxBins).
func NewHistogramReference(grid, truth []float64, bins int) (*HistogramReference, error) {
	if bins < 1 || bins > MaxBins {
		return nil, fmt.Errorf("peers.NewHistogramReference: %d bins: must be between 1 and %d", bins, MaxBins)
	}
	if len(truth) != len(grid) {
		return nil, fmt.Errorf("peers.NewHistogramReference: %d reference values for %d grid points: must be equal", len(truth), len(grid))
	}
	r := &HistogramReference{lo: make([]float64, bins), hi: make([]float64, bins)}
	for i := range bins {
		r.lo[i], r.hi[i] = math.Inf(1), math.Inf(-1)
	}
	for i, y := range grid {
		if !(y >= 0 && y <= 1) {
			return nil, fmt.Errorf("peers.NewHistogramReference: grid point %d = %v: must lie in [0, 1]", i, y)
		}
		b := HistogramBin(y, bins)
		r.lo[b] = math.Min(r.lo[b], truth[i])
		r.hi[b] = math.Max(r.hi[b], truth[i])
	}
	return r, nil
}

// SupError returns max over the grid of |density(y) − truth(y)| for the
// histogram density given per bin (len = the number of bins; programmer
// misuse otherwise panics with an index error). Bins without grid points
// are skipped.
func (r *HistogramReference) SupError(density []float64) float64 {
	_ = density[len(r.lo)-1]
	sup := 0.0
	for i, f := range density[:len(r.lo)] {
		if r.lo[i] <= r.hi[i] {
			sup = math.Max(sup, math.Max(math.Abs(f-r.lo[i]), math.Abs(f-r.hi[i])))
		}
	}
	return sup
}
