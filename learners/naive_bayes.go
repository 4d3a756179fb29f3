package learners

import (
	"context"
	"fmt"
	"math"
)

// NewNaiveBayes returns the naive Bayes classifier of Section 6 and
// Appendix F of Aldà & Rubinstein (2017) with Gaussian-KDE class-conditional
// likelihoods, for binary labels −1/+1 and ℓ = 1..4:
//
//	F_D(y) = P(y|+)·P(+) − P(y|−)·P(−),
//	P(c) = n_c/n,  P(y|c) = ∏_j (1/n_c) Σ_{i∈c} N(y_j − d_ij; 0, b_j²),
//
// with P(y|c)·P(c) defined as 0 when class c is empty. Class +1 is predicted
// where F_D(y) ≥ 0.
//
// Sensitivity. With K = ∏_j 1/(√(2π)·b_j) (the largest value of a product of
// one-dimensional kernel averages),
//
//	S(F) = (K/n) · max{ 2,  n·(1 − (1 − 1/n)^ℓ),
//	                    max_{m=0..n−1} g(m) + g(n−1−m) },
//	g(m) = m·(1 − (m/(m+1))^(ℓ−1)),
//
// which is 2K/n for ℓ ≤ 2 and below 2(ℓ−1)·K/n for ℓ ≥ 3. The first term
// covers a record changing class while all records sit on the query point,
// the second a record moving within its class, the third a record changing
// class while its old and new position are far from the query point. The
// paper's bound 2(1/n + (2^ℓ−1)/(n√(2π)b)) assumes every likelihood is at
// most 1, which fails for b < 1/√(2π); it is too small for ℓ ≥ 2 at usual
// bandwidths (derivation and comparison in docs/sensitivity.md).
func NewNaiveBayes() Learner { return naiveBayes{} }

type naiveBayes struct{}

var naiveBayesSpec = Spec{
	Kind:  KindNaiveBayes,
	Title: "Naive Bayes classifier",
	Description: "Classifies into two classes by comparing class frequency times a product of per-feature kernel density estimates. " +
		"A wider bandwidth gives a smaller sensitivity; the sensitivity grows quickly with the number of features.",
	MinDim: 1,
	MaxDim: 4,
	Label:  LabelBinary,
	Params: []ParamSpec{{
		Name:  "bandwidth",
		Label: "Bandwidth",
		Help: "Standard deviation of the Gaussian kernel of each per-feature density, as a fraction of the feature range (mapped units). " +
			"The sensitivity is proportional to the product over the features of 1/bandwidth.",
		Default:  0.1,
		Min:      minBandwidth,
		Max:      1,
		PerAxis:  true,
		Auto:     bandwidthDefault1D,
		AutoRule: bandwidthRule1D,
	}},
	Output: OutputSpec{
		Name:    "score",
		Meaning: "P(y|+)P(+) − P(y|−)P(−): class +1 where the score is ≥ 0, class −1 where it is < 0.",
		Kind:    OutputClassScore,
	},
}

func (naiveBayes) Spec() Spec { return naiveBayesSpec }

// Fit validates values and data (binary labels exactly −1/+1) and returns
// the oracle (a GridOracle), S(F) as in NewNaiveBayes and range [−K, K].
func (naiveBayes) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := naiveBayesSpec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	n, err := checkData(naiveBayesSpec, data, 1)
	if err != nil {
		return nil, err
	}
	bw := res["bandwidth"]
	peak := 1.0
	for _, b := range bw {
		peak *= gaussPeak(b)
	}
	o := &nbOracle{dim: data.Dim, n: n, inv2b2: make([]float64, data.Dim), kscale: make([]float64, data.Dim)}
	for j, b := range bw {
		o.inv2b2[j] = 1 / (2 * b * b)
		o.kscale[j] = gaussPeak(b)
	}
	for i := range n {
		c := 0
		if data.Labels[i] > 0 {
			c = 1
		}
		o.x[c] = append(o.x[c], data.X[i*data.Dim:(i+1)*data.Dim]...)
	}
	factor := naiveBayesFactor(n, data.Dim)
	return &Fitted{
		Oracle:      o,
		Sensitivity: factor * peak / float64(n),
		SensitivityNote: fmt.Sprintf("S = %.6g·K/n, K = %s = %.6g, n = %d (replace-one, including class changes; see docs/sensitivity.md)",
			factor, kernelPeakWords, peak, n),
		OutputRange: [2]float64{-peak, peak},
		N:           n,
		StandIn:     densityStandIn(bw, 0.5),
	}, nil
}

// naiveBayesFactor returns S(F)·n/K for n records and ℓ features:
// max{2, n(1 − (1 − 1/n)^ℓ), max_m g(m) + g(n−1−m)} with
// g(m) = m(1 − (m/(m+1))^(ℓ−1)).
func naiveBayesFactor(n, dim int) float64 {
	l := float64(dim)
	f := 2.0
	fn := float64(n)
	f = math.Max(f, fn*(1-math.Pow(1-1/fn, l)))
	g := func(m int) float64 {
		fm := float64(m)
		return fm * (1 - math.Pow(fm/(fm+1), l-1))
	}
	if dim >= 3 {
		for m := 0; 2*m <= n-1; m++ {
			f = math.Max(f, g(m)+g(n-1-m))
		}
	}
	return f
}

// nbOracle is F_D of naive Bayes; immutable after Fit.
type nbOracle struct {
	dim    int
	n      int
	x      [2][]float64 // features of class −1 (x[0]) and +1 (x[1]), row-major
	inv2b2 []float64    // 1/(2 b_j²)
	kscale []float64    // 1/(√(2π) b_j)
}

func (o *nbOracle) Dim() int { return o.dim }

// Eval returns F_D(y). It panics if len(y) != Dim() (programmer misuse).
func (o *nbOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: naive-bayes Eval: len(y) = %d, want %d", len(y), o.dim))
	}
	var sums [4]float64
	var f float64
	for c, xc := range o.x {
		nc := len(xc) / o.dim
		if nc == 0 {
			continue
		}
		s := sums[:o.dim]
		clear(s)
		for i := 0; i < len(xc); i += o.dim {
			for j, yj := range y {
				u := yj - xc[i+j]
				s[j] += math.Exp(-u * u * o.inv2b2[j])
			}
		}
		a := float64(nc) / float64(o.n)
		for j := range s {
			a *= s[j] * o.kscale[j] / float64(nc)
		}
		if c == 1 {
			f += a
		} else {
			f -= a
		}
	}
	return f
}
