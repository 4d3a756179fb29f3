package learners

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
)

// NewPriestleyChao returns the Priestley–Chao kernel regression estimator of
// Section 6 of Aldà & Rubinstein (2017) for ℓ = 1 and real labels in
// [−1, 1] (the paper's B = 1 in mapped units):
//
//	F_D(y) = Σ_{i=2}^n (d_i − d_{i−1}) · φ_b(y − d_i) · l_i,
//
// with the records sorted by d (ties by label, so that F_D depends on the
// multiset of records only), φ_b(u) = K(u/b)/b and K the standard Gaussian
// density.
//
// Data universe. The bound needs a public spacing constant c: the data
// universe is the set of datasets whose consecutive sorted gaps are all at
// most c/n, d_i − d_{i−1} ≤ c/n. This is stronger than the paper's wording
// ("every point has another within c/n"); under the paper's wording the
// paper's bound is false (see docs/sensitivity.md for a counterexample), under
// the gap assumption it holds. Fit refuses data outside the universe with a
// *SpacingError. The guarantee is for neighbours D ~ D′ that both lie in the
// universe; whether the curator's data do is checked, not assumed.
//
// Sensitivity. With κ = sup φ_b = 1/(√(2π)·b) and g = c/n,
//
//	S(F) = 2κ·min(2g, 1) = min(4c/(n·b·√(2π)), 2/(b·√(2π))),
//
// which equals the paper's 4Bc/(nb)·sup K when 2c ≤ n (derivation in
// docs/sensitivity.md).
func NewPriestleyChao() Learner { return priestleyChao{} }

type priestleyChao struct{}

var priestleyChaoSpec = Spec{
	Kind:  KindPriestleyChao,
	Title: "Priestley–Chao kernel regression",
	Description: "Estimates the regression of the label on one feature with a Gaussian kernel, weighting each record by the gap to its predecessor. " +
		"Requires densely spaced data: after sorting, no two consecutive records may be more than c/n apart.",
	MinDim: 1,
	MaxDim: 1,
	Label:  LabelReal,
	Params: []ParamSpec{
		{
			Name:  "bandwidth",
			Label: "Bandwidth",
			Help: "Standard deviation b of the Gaussian kernel, as a fraction of the feature range (mapped units). " +
				"The sensitivity is proportional to 1/b.",
			Default:      0.1,
			Min:          0,
			MinExclusive: true,
			Max:          1,
		},
		{
			Name:  "spacing",
			Label: "Spacing constant c",
			Help: "Public promise that, after sorting, consecutive records are at most c/n apart (mapped units). " +
				"Fitting fails if the data break it. The sensitivity is proportional to c (up to c = n/2).",
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

// SpacingError reports data outside the Priestley–Chao data universe:
// consecutive sorted records farther apart than c/n. Gaps lists the first
// few offending pairs (at most MaxListedGaps); Count is the total number.
type SpacingError struct {
	C     float64 // the spacing constant
	N     int     // number of records
	Count int     // number of offending gaps
	Gaps  []SpacingGap
}

// MaxListedGaps is the number of offending gaps a SpacingError lists.
const MaxListedGaps = 5

// SpacingGap is one pair of consecutive sorted records (0-based indices into
// the Dataset) whose distance exceeds c/n.
type SpacingGap struct {
	Left, Right   int     // record indices
	XLeft, XRight float64 // their mapped feature values
}

func (e *SpacingError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: spacing assumption broken: %d gap(s) between consecutive sorted records exceed c/n = %g/%d = %.6g: ",
		KindPriestleyChao, e.Count, e.C, e.N, e.C/float64(e.N))
	for i, g := range e.Gaps {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "records %d (x = %.6g) and %d (x = %.6g) are %.6g apart", g.Left, g.XLeft, g.Right, g.XRight, g.XRight-g.XLeft)
	}
	if e.Count > len(e.Gaps) {
		fmt.Fprintf(&b, "; and %d more", e.Count-len(e.Gaps))
	}
	b.WriteString(" (raise the spacing constant c or remove the isolated records)")
	return b.String()
}

// Fit validates values and data (ℓ = 1, n ≥ 2, labels in [−1, 1], the
// spacing assumption) and returns the oracle with S(F) = 2κ·min(2c/n, 1)
// and range ±min(κ, 1 + 2κ·min(c/n, 1)), κ = 1/(√(2π) b).
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
	order := pcOrder(data.X, data.Labels)
	g := c / float64(n)
	serr := &SpacingError{C: c, N: n}
	for k := 1; k < n; k++ {
		l, r := order[k-1], order[k]
		if data.X[r]-data.X[l] > g {
			serr.Count++
			if len(serr.Gaps) < MaxListedGaps {
				serr.Gaps = append(serr.Gaps, SpacingGap{Left: l, Right: r, XLeft: data.X[l], XRight: data.X[r]})
			}
		}
	}
	if serr.Count > 0 {
		return nil, serr
	}
	kappa := gaussPeak(b)
	o := newPCOracle(data.X, data.Labels, order, b)
	g1 := math.Min(g, 1)
	s := 2 * kappa * math.Min(2*g, 1)
	r := math.Min(kappa, 1+2*kappa*g1)
	return &Fitted{
		Oracle:          o,
		Sensitivity:     s,
		SensitivityNote: fmt.Sprintf("S = 2κ·min(2c/n, 1), κ = 1/(√(2π)·b) = %.6g, c/n = %g/%d (replace-one within the universe of data with sorted gaps ≤ c/n)", kappa, c, n),
		OutputRange:     [2]float64{-r, r},
		N:               n,
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

// newPCOracle returns F_D for features x and labels l sorted by order,
// without checking the spacing assumption.
func newPCOracle(x, l []float64, order []int, b float64) *pcOracle {
	kappa := gaussPeak(b)
	o := &pcOracle{inv2b2: 1 / (2 * b * b)}
	for k := 1; k < len(order); k++ {
		p, r := order[k-1], order[k]
		w := (x[r] - x[p]) * kappa * l[r]
		if w != 0 {
			o.d = append(o.d, x[r])
			o.w = append(o.w, w)
		}
	}
	return o
}

// pcOracle is F_D of Priestley–Chao: Σ_i w_i exp(−(y − d_i)²/(2b²)) with
// w_i = (d_i − d_{i−1})·l_i/(√(2π) b) over the sorted records i ≥ 2 (zero
// weights dropped). Immutable after Fit.
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
