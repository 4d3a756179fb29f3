package learners

// Naive Bayes from aggregates (issue 20): per class and per feature, the
// counts of records per fine bin. Used by project/aggregate.

import (
	"context"
	"fmt"
	"math"
)

// NaiveBayesBins are the aggregates of naive Bayes: one row per (class,
// feature, bin) that holds records, with their number. Record i with
// label c and mapped features d_i counts once on every feature j, in bin
// ⌊d_ij·B⌋ (clamped to B − 1), whose centre is (bin + ½)/B.
type NaiveBayesBins struct {
	Dim     int
	B       int
	Class   []int8  // −1 or +1 per row
	Feature []int8  // 0…Dim−1 per row
	Bin     []int32 // per row, in [0, B)
	Counts  []int64 // per row, ≥ 1
	// N is the public number of records: the counts of the two classes on
	// every feature must add up to it (they never define n).
	N int
}

// FitNaiveBayesBinned fits NewNaiveBayes to the records rounded to their
// bin centres: P(c) = n_c/n and P(y|c) = ∏_j (1/n_c) Σ_b count_{c,j,b}·
// φ_{b_j}(y_j − centre_b). Replacing one record changes one rounded record
// (its class and its centre on every axis), all in [0,1]^ℓ, so S(F), the
// range and the stand-in are NewNaiveBayes's for the same n and
// bandwidths, and F differs from the unbinned naive Bayes by at most
// KDEBinningBound(bw, B) at every y (each class term P(c)·∏_j f_cj moves by
// at most P(c)·K·e^{−1/2}·Σ_j 1/(2B·b_j), and P(+) + P(−) = 1;
// docs/sensitivity.md, "Binned KDE from aggregates").
//
// Errors (public checks only): parameters as NewNaiveBayes's Fit; ℓ
// outside 1…4, B outside [2, 2²⁰], a class other than ±1, a feature or bin
// out of range, a count below 1, a (class, feature, bin) row twice, a
// class whose counts differ between features, or class counts that do not
// add up to n.
func FitNaiveBayesBinned(ctx context.Context, bins NaiveBayesBins, values Values) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := naiveBayesSpec.Resolve(values, bins.Dim)
	if err != nil {
		return nil, err
	}
	nc, err := bins.check()
	if err != nil {
		return nil, err
	}
	bw := res["bandwidth"]
	peak := 1.0
	for _, b := range bw {
		peak *= gaussPeak(b)
	}
	n := bins.N
	o := &binnedNBOracle{dim: bins.Dim, bins: bins.B, n: n, nc: nc, inv2b2: make([]float64, bins.Dim), kscale: make([]float64, bins.Dim)}
	for j, b := range bw {
		o.inv2b2[j] = 1 / (2 * b * b)
		o.kscale[j] = gaussPeak(b)
	}
	for c := range o.rows {
		o.rows[c] = make([][]nbBin, bins.Dim)
	}
	for i, cl := range bins.Class {
		c := 0
		if cl > 0 {
			c = 1
		}
		o.rows[c][bins.Feature[i]] = append(o.rows[c][bins.Feature[i]], nbBin{bin: bins.Bin[i], count: float64(bins.Counts[i])})
	}
	factor := naiveBayesFactor(n, bins.Dim)
	return &Fitted{
		Oracle:      o,
		Sensitivity: factor * peak / float64(n),
		SensitivityNote: fmt.Sprintf("S = %.6g·K/n, K = %s = %.6g, n = %d (replace-one, including class changes; see docs/sensitivity.md; records binned to B = %d per axis)",
			factor, kernelPeakWords, peak, n, bins.B),
		OutputRange: [2]float64{-peak, peak},
		N:           n,
		StandIn:     densityStandIn(bw, 0.5),
	}, nil
}

// check validates the rows and returns the class sizes n_−, n_+.
func (k NaiveBayesBins) check() ([2]int64, error) {
	var nc [2]int64
	kind := KindNaiveBayes
	if k.Dim < naiveBayesSpec.MinDim || k.Dim > naiveBayesSpec.MaxDim {
		return nc, fmt.Errorf("%s: %d feature columns; this learner needs between %d and %d", kind, k.Dim, naiveBayesSpec.MinDim, naiveBayesSpec.MaxDim)
	}
	if k.B < 2 || k.B > maxKDEBins {
		return nc, fmt.Errorf("%s: B = %d bins per axis; it must be between 2 and %d", kind, k.B, maxKDEBins)
	}
	rows := len(k.Counts)
	if len(k.Class) != rows || len(k.Feature) != rows || len(k.Bin) != rows {
		return nc, fmt.Errorf("%s: rows of different lengths (%d classes, %d features, %d bins, %d counts)", kind, len(k.Class), len(k.Feature), len(k.Bin), rows)
	}
	if k.N < 1 {
		return nc, fmt.Errorf("%s: n = %d; the public number of records must be at least 1", kind, k.N)
	}
	sums := make([][2]int64, k.Dim)
	seen := make(map[[3]int64]bool, rows)
	for i := range rows {
		cl, f, b, c := k.Class[i], k.Feature[i], k.Bin[i], k.Counts[i]
		switch {
		case cl != -1 && cl != 1:
			return nc, fmt.Errorf("%s: row %d: class %d is not −1 or +1", kind, i, cl)
		case f < 0 || int(f) >= k.Dim:
			return nc, fmt.Errorf("%s: row %d: feature %d is outside [0, %d)", kind, i, f, k.Dim)
		case b < 0 || int(b) >= k.B:
			return nc, fmt.Errorf("%s: row %d: bin %d is outside [0, %d)", kind, i, b, k.B)
		case c < 1 || c > math.MaxInt64/2:
			return nc, fmt.Errorf("%s: row %d: count %d is below 1 or too large", kind, i, c)
		}
		key := [3]int64{int64(cl), int64(f), int64(b)}
		if seen[key] {
			return nc, fmt.Errorf("%s: row %d: class %d, feature %d, bin %d counted twice", kind, i, cl, f, b)
		}
		seen[key] = true
		ci := 0
		if cl > 0 {
			ci = 1
		}
		if sums[f][ci] += c; sums[f][ci] > int64(k.N) {
			return nc, fmt.Errorf("%s: the aggregates count more than %d records but the declared n is %d: n is public and declared, never taken from the aggregates", kind, k.N, k.N)
		}
	}
	nc = sums[0]
	for j, s := range sums {
		if s != nc {
			return nc, fmt.Errorf("%s: feature %d counts %d and %d records per class, feature 1 counts %d and %d: every record counts once on every feature", kind, j+1, s[0], s[1], nc[0], nc[1])
		}
	}
	if nc[0]+nc[1] != int64(k.N) {
		return nc, fmt.Errorf("%s: the aggregates count %d records but the declared n is %d: n is public and declared, never taken from the aggregates", kind, nc[0]+nc[1], k.N)
	}
	return nc, nil
}

type nbBin struct {
	bin   int32
	count float64
}

// binnedNBOracle is F of FitNaiveBayesBinned; immutable.
type binnedNBOracle struct {
	dim    int
	bins   int
	n      int
	nc     [2]int64
	rows   [2][][]nbBin // per class (−1, +1) and feature, the occupied bins
	inv2b2 []float64
	kscale []float64
}

func (o *binnedNBOracle) Dim() int { return o.dim }

// average is f_cj(t) = (1/n_c) Σ_b count·φ_{b_j}(t − centre_b).
func (o *binnedNBOracle) average(c, j int, t float64) float64 {
	var s float64
	for _, r := range o.rows[c][j] {
		u := t - (float64(r.bin)+0.5)/float64(o.bins)
		s += r.count * math.Exp(-u*u*o.inv2b2[j])
	}
	return s * o.kscale[j] / float64(o.nc[c])
}

// Eval returns F(y). It panics if len(y) != Dim() (programmer misuse).
func (o *binnedNBOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: binned naive-bayes Eval: len(y) = %d, want %d", len(y), o.dim))
	}
	var f float64
	for c := range 2 {
		if o.nc[c] == 0 {
			continue
		}
		a := float64(o.nc[c]) / float64(o.n)
		for j, t := range y {
			a *= o.average(c, j, t)
		}
		if c == 1 {
			f += a
		} else {
			f -= a
		}
	}
	return f
}

// EvalGrid writes F at every point of axes[0] × … × axes[ℓ−1] (row-major,
// last axis fastest): per class and axis the average at each axis value,
// then the outer products, as the in-memory naive Bayes does.
func (o *binnedNBOracle) EvalGrid(ctx context.Context, axes [][]float64, out []float64) error {
	if err := checkGrid(o.dim, axes, out); err != nil {
		return err
	}
	clear(out)
	for c := range 2 {
		if o.nc[c] == 0 {
			continue
		}
		avg := make([][]float64, o.dim)
		for j, ax := range axes {
			if err := ctx.Err(); err != nil {
				return err
			}
			avg[j] = make([]float64, len(ax))
			for k, t := range ax {
				avg[j][k] = o.average(c, j, t)
			}
		}
		w := float64(o.nc[c]) / float64(o.n)
		if c == 0 {
			w = -w
		}
		addOuter(out, avg, w)
	}
	return nil
}
