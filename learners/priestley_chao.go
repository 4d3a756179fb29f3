package learners

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// NewPriestleyChao returns the Priestley–Chao kernel regression estimator of
// Section 6 of Aldà & Rubinstein (2017) for ℓ = 1 and real labels in
// [−1, 1] (the paper's B = 1 in mapped units), with capped spacing weights:
//
//	F_D(y) = Σ_{i=2}^n min(d_i − d_{i−1}, c/n) · φ_b(y − d_i) · l_i,
//
// with the records sorted by d (ties by label, so that F_D depends on the
// multiset of records only), φ_b(u) = K(u/b)/b, K the standard Gaussian
// density and c a public spacing constant.
//
// Every dataset. The paper's bound needs densely spaced data ("every point
// has another within c/n"; docs/sensitivity.md shows that the bound needs
// the stronger "sorted gaps ≤ c/n"). Instead of restricting the data
// universe — which made Fit refuse some datasets, a refusal that depends on
// private values — each gap's weight is capped at c/n. On data whose gaps
// are all ≤ c/n the capped estimator is the paper's; on any other data the
// bound below still holds, so Fit never refuses because of data values.
//
// Sensitivity. With κ = sup φ_b = 1/(√(2π)·b) and g = c/n,
//
//	S(F) = 2κ·min(2g, 1) = min(4c/(n·b·√(2π)), 2/(b·√(2π))),
//
// for all replace-one neighbours D ~ D′ (features in [0, 1], labels in
// [−1, 1]), which equals the paper's 4Bc/(nb)·sup K when 2c ≤ n
// (derivation in docs/sensitivity.md).
func NewPriestleyChao() Learner { return priestleyChao{} }

type priestleyChao struct{}

var priestleyChaoSpec = Spec{
	Kind:  KindPriestleyChao,
	Title: "Priestley–Chao kernel regression",
	Description: "Estimates the regression of the label on one feature with a Gaussian kernel, weighting each record by the gap to its predecessor, " +
		"capped at c/n so that no dataset can make one record count for more.",
	MinDim: 1,
	MaxDim: 1,
	Label:  LabelReal,
	Params: []ParamSpec{
		{
			Name:  "bandwidth",
			Label: "Bandwidth",
			Help: "Standard deviation b of the Gaussian kernel, as a fraction of the feature range (mapped units). " +
				"The sensitivity is proportional to 1/b.",
			Default:  0.1,
			Min:      minBandwidth,
			Max:      1,
			Auto:     bandwidthDefault1D,
			AutoRule: bandwidthRule1D,
		},
		{
			Name:  "spacing",
			Label: "Spacing constant c",
			Help: "Cap c/n on each record's weight (the gap to its sorted predecessor, mapped units). " +
				"Where the data are denser than c/n the cap has no effect; wider gaps count as c/n. " +
				"The sensitivity is proportional to c (up to c = n/2).",
			Default:      10,
			Min:          0,
			MinExclusive: true,
			Max:          1e6,
		},
	},
	Output: OutputSpec{
		Name:    "regression",
		Meaning: "Kernel-smoothed label value at the query point (mapped label units in [−1, 1]; may exceed them slightly near dense data).",
		Kind:    OutputRegression,
	},
}

func (priestleyChao) Spec() Spec { return priestleyChaoSpec }

// Fit validates values and data (ℓ = 1, n ≥ 2, features in [0, 1], labels
// in [−1, 1]) and returns the capped oracle with S(F) = 2κ·min(2c/n, 1) and
// range ±min(κ, 1 + 2κ·min(c/n, 1)), κ = 1/(√(2π) b). It accepts every
// dataset that passes these public checks.
func (priestleyChao) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := priestleyChaoSpec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	n, err := checkData(priestleyChaoSpec, data, 2)
	if err != nil {
		return nil, err
	}
	b, c := res.Scalar("bandwidth"), res.Scalar("spacing")
	g := c / float64(n)
	kappa := gaussPeak(b)
	o := newPCOracle(data.X, data.Labels, pcOrder(data.X, data.Labels), b, g)
	g1 := math.Min(g, 1)
	s := 2 * kappa * math.Min(2*g, 1)
	r := math.Min(kappa, 1+2*kappa*g1)
	return &Fitted{
		Oracle:          o,
		Sensitivity:     s,
		SensitivityNote: fmt.Sprintf("S = 2κ·min(2c/n, 1), κ = 1/(√(2π)·b) = %.6g, c/n = %g/%d (replace-one, every dataset: each gap weight is capped at c/n)", kappa, c, n),
		OutputRange:     [2]float64{-r, r},
		N:               n,
		StandIn:         kernelStandIn(math.Min(r, 1)/2, []float64{b}),
	}, nil
}

// pcOrder returns the record indices sorted by feature, ties by label, so
// that F_D depends on the multiset of records only (among tied features the
// record sorted first carries the gap to the predecessor).
func pcOrder(x, labels []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(p, q int) bool {
		i, j := order[p], order[q]
		if x[i] != x[j] {
			return x[i] < x[j]
		}
		return labels[i] < labels[j]
	})
	return order
}

// newPCOracle returns F_D for features x and labels l sorted by order, each
// gap weight capped at maxGap (+Inf: the paper's uncapped estimator, used by
// tests only).
func newPCOracle(x, l []float64, order []int, b, maxGap float64) *pcOracle {
	kappa := gaussPeak(b)
	o := &pcOracle{inv2b2: 1 / (2 * b * b)}
	for k := 1; k < len(order); k++ {
		p, r := order[k-1], order[k]
		w := math.Min(x[r]-x[p], maxGap) * kappa * l[r]
		if w != 0 {
			o.d = append(o.d, x[r])
			o.w = append(o.w, w)
		}
	}
	return o
}

// pcOracle is F_D of Priestley–Chao: Σ_i w_i exp(−(y − d_i)²/(2b²)) with
// w_i = min(d_i − d_{i−1}, c/n)·l_i/(√(2π) b) over the sorted records i ≥ 2
// (zero weights dropped). Immutable after Fit.
type pcOracle struct {
	d, w   []float64
	inv2b2 float64
}

func (o *pcOracle) Dim() int { return 1 }

// Eval returns F_D(y). It panics if len(y) != 1 (programmer misuse).
func (o *pcOracle) Eval(y []float64) float64 {
	if len(y) != 1 {
		panic(fmt.Sprintf("learners: priestley-chao Eval: len(y) = %d, want 1", len(y)))
	}
	var s float64
	for i, d := range o.d {
		u := y[0] - d
		s += o.w[i] * math.Exp(-u*u*o.inv2b2)
	}
	return s
}
