package learners

import (
	"context"
	"fmt"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"math"
	"slices"
)

// NewKDE returns the Gaussian kernel density estimator of Section 6 of Aldà
// & Rubinstein (2017), "Kernel Density Estimation":
//
//	F_D(y) = (1/n) Σ_i K_H(y − d_i),  K_H(u) = ∏_j N(u_j; 0, b_j²),
//
// with a diagonal bandwidth H = diag(b_1², …, b_ℓ²) given by the per-axis
// parameter "bandwidth" in mapped units. Replacing one record changes one
// term of the average. With K = sup K_H = ∏_j 1/(√(2π)·b_j), and because
// y and d_i both lie in [0,1]^ℓ (|y_j − d_ij| ≤ 1), each term lies in
// [K·e^{−q}, K] with q = Σ_j 1/(2b_j²), so
//
//	S(F) = K·(1 − e^{−q}) / n,
//
// which never exceeds the paper's bound 1/(n √((2π)^ℓ det H)) = K/n and is
// attained by moving a record from y to the opposite corner (see
// docs/sensitivity.md).
// The estimate is not renormalised to [0,1]^ℓ: near the boundary it puts
// mass outside the unit cube, exactly as the paper's F_H does.
func NewKDE() Learner { return kde{} }

type kde struct{}

var kdeSpec = Spec{
	Kind:  KindKDE,
	Title: "Kernel density estimate",
	Description: "Estimates the density of the records with a Gaussian kernel of the given bandwidth on each axis. " +
		"A wider bandwidth gives a smoother estimate and a smaller sensitivity, so less noise is needed.",
	MinDim: 1,
	MaxDim: 4,
	Label:  LabelNone,
	Params: []ParamSpec{{
		Name:  "bandwidth",
		Label: "Bandwidth",
		Help: "Standard deviation of the Gaussian kernel on each axis, as a fraction of the axis range (mapped units). " +
			"The sensitivity is at most 1/(n × the product over the axes of √(2π)·bandwidth).",
		Default:  0.05,
		Min:      minBandwidth,
		Max:      1,
		PerAxis:  true,
		Auto:     bandwidthDefault,
		AutoRule: bandwidthRule,
	}},
	Output: OutputSpec{
		Name:    "density",
		Meaning: "Estimated probability density of the records at the query point (per unit of mapped volume).",
		Kind:    OutputDensity,
	},
}

func (kde) Spec() Spec { return kdeSpec }

// Fit validates values and data and returns the KDE oracle (a GridOracle),
// its sensitivity K·(1 − e^{−Σ 1/(2b_j²)})/n and its range [0, K],
// K = ∏ 1/(√(2π) b_j).
// Labels, if any, are ignored. The oracle keeps data.X, or data.Source
// and reads it in chunks (no copy: a release's features are the largest
// allocation of a large release, issue 20); the caller must not modify
// either while the oracle is in use.
func (kde) Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := kdeSpec.Resolve(values, data.Dim)
	if err != nil {
		return nil, err
	}
	n, err := checkData(kdeSpec, data, 1)
	if err != nil {
		return nil, err
	}
	bw := res["bandwidth"]
	k := newKDEKernel(bw, n)
	o := &kdeOracle{
		dim:    data.Dim,
		n:      n,
		x:      data.X,
		src:    data.Source,
		bw:     slices.Clone(bw),
		inv2b2: k.inv2b2,
		scale:  k.peak / float64(n),
	}
	return k.fitted(o, bw, ""), nil
}

// kdeOracle is F_D of the KDE; immutable after Fit, so safe for concurrent
// use.
type kdeOracle struct {
	dim    int
	n      int
	x      []float64 // n·dim mapped features, row-major (nil if src)
	src    RecordSource
	bw     []float64 // b_j
	inv2b2 []float64 // 1/(2 b_j²)
	scale  float64   // ∏ 1/(√(2π) b_j) / n
}

func (o *kdeOracle) Dim() int { return o.dim }

// Eval returns F_D(y). It panics if len(y) != Dim() (programmer misuse).
func (o *kdeOracle) Eval(y []float64) float64 {
	if len(y) != o.dim {
		panic(fmt.Sprintf("learners: kde Eval: len(y) = %d, want %d", len(y), o.dim))
	}
	var s float64
	_ = eachRecordChunk(Dataset{Dim: o.dim, X: o.x, Source: o.src}, func(_ int, x []float64) error {
		for i := 0; i < len(x); i += o.dim {
			var q float64
			for j, yj := range y {
				u := yj - x[i+j]
				q += u * u * o.inv2b2[j]
			}
			s += math.Exp(-q)
		}
		return nil
	})
	return s * o.scale
}

// kdeKernel is the one home of the product Gaussian kernel's constants for
// a KDE of n records with bandwidths bw, from the records or from bins
// (kde_aggregate.go): its peak K = ∏ 1/(√(2π)·b_j), 1/(2b_j²) per axis,
// and the replace-one sensitivity S = K·(1 − e^{−Σ 1/(2b_j²)})/n
// (docs/sensitivity.md).
type kdeKernel struct {
	peak, sens float64
	n          int
	inv2b2     []float64
}

func newKDEKernel(bw []float64, n int) kdeKernel {
	k := kdeKernel{peak: 1, n: n, inv2b2: make([]float64, len(bw))}
	q := 0.0
	for j, b := range bw {
		k.peak *= gaussPeak(b)
		k.inv2b2[j] = 1 / (2 * b * b)
		q += k.inv2b2[j]
	}
	k.sens = k.peak * -math.Expm1(-q) / float64(n)
	return k
}

// fitted is the KDE's Fitted for oracle o: S, the note (how appended
// inside its parenthesis), the range [0, K], the lattice L1 bound and the
// stand-in.
func (k kdeKernel) fitted(o mechanism.Oracle, bw []float64, how string) *Fitted {
	return &Fitted{
		Oracle:          o,
		Sensitivity:     k.sens,
		SensitivityNote: k.note(how),
		OutputRange:     [2]float64{0, k.peak},
		N:               k.n,

		LatticeL1Sensitivity: kdeLatticeL1(bw, k.n),
		StandIn:              densityStandIn(bw, 1),
	}
}

// kernelPeakWords is K = ∏_j 1/(√(2π)·b_j), the peak of the Gaussian
// product kernel, in the sensitivity notes the curator shows: in words,
// because Fyne's text font (Noto Sans) has no ∏ and the system fallback
// drew an odd glyph.
const kernelPeakWords = "the product over the axes j of 1/(√(2π)·b_j)"

// note is the sensitivity note; how is appended inside its parenthesis.
func (k kdeKernel) note(how string) string {
	return fmt.Sprintf("S = K·(1 − e^{−Σ 1/(2b_j²)})/n, K = %s = %.6g, n = %d (replace-one; one kernel term of the average changes%s)", kernelPeakWords, k.peak, k.n, how)
}
