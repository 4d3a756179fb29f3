package learners

import (
	"context"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// Kind identifies a learner in files, on the command line and in the UI.
type Kind string

// The six learners of Section 6 of Aldà & Rubinstein (2017).
const (
	KindKDE           Kind = "kde"
	KindPriestleyChao Kind = "priestley-chao"
	KindNaiveBayes    Kind = "naive-bayes"
	KindSVM           Kind = "svm"
	KindLogistic      Kind = "logistic"
	KindRidge         Kind = "ridge"
)

// LabelKind says whether a learner needs a label column and of what kind.
type LabelKind string

const (
	LabelNone   LabelKind = "none"   // unsupervised (KDE)
	LabelReal   LabelKind = "real"   // real label mapped by public bounds to [−1, 1]
	LabelBinary LabelKind = "binary" // two classes, mapped to −1 and +1
)

// OutputKind says what the released function's values mean.
type OutputKind string

const (
	OutputDensity     OutputKind = "density"     // a probability density on [0,1]^ℓ (mapped units)
	OutputRegression  OutputKind = "regression"  // a regression value in label units of [−1, 1]
	OutputClassScore  OutputKind = "class-score" // a real score; class +1 where ≥ 0, else −1
	OutputProbability OutputKind = "probability" // P(class +1 | y) ∈ [0, 1]; class +1 where ≥ ½
)

// ParamSpec describes one learner parameter; the curator's form, the
// command line and validation are generated from it.
type ParamSpec struct {
	Name    string  // machine name, e.g. "bandwidth"
	Label   string  // human label, e.g. "Bandwidth"
	Help    string  // one or two sentences for the curator
	Default float64 // default value
	Min     float64 // smallest valid value
	Max     float64 // largest valid value
	// MinExclusive makes Min itself invalid (a value must be > Min).
	MinExclusive bool
	// Integer requires an integral value.
	Integer bool
	// PerAxis means one value per feature axis; a single value is
	// broadcast to all axes.
	PerAxis bool
	// Choices, if non-empty, lists the only valid values (e.g. 0/1 for an
	// output mode), with ChoiceLabels naming them for the UI.
	Choices      []float64
	ChoiceLabels []string
	// Auto, if not nil, is the data-independent default from the public
	// quantities of a release (Spec.PublicDefaults, defaults.go): the
	// release pipeline uses it for a parameter given no value; Default is
	// the value without a release context (a direct Fit, the form's
	// placeholder). AutoRule states the rule in words.
	Auto     func(Public) float64
	AutoRule string
}

// OutputSpec describes what F_D(y) means.
type OutputSpec struct {
	Name    string     // e.g. "density", "score"
	Meaning string     // one sentence for the analyst
	Kind    OutputKind // how to read the value
}

// Spec is a learner's self-description.
type Spec struct {
	Kind        Kind
	Title       string // e.g. "Kernel density estimate"
	Description string // a few sentences for the curator
	MinDim      int    // smallest ℓ supported
	MaxDim      int    // largest ℓ supported
	Label       LabelKind
	Params      []ParamSpec
	Output      OutputSpec
}

// Dataset is the private data as a learner sees it: features already mapped
// to [0,1]^ℓ by the curator's public bounds (out-of-bounds values clipped),
// labels mapped to the learner's label domain ([−1, 1] for LabelReal,
// exactly −1 or +1 for LabelBinary, nil for LabelNone).
//
// The features are either X or, for a learner that reads them in place
// (ReadsSource: the KDE), Source with X nil (dataset_source.go).
type Dataset struct {
	Dim    int       // ℓ
	X      []float64 // n·ℓ values, row-major: record i is X[i*Dim : (i+1)*Dim]
	Labels []float64 // n labels, or nil
	// Source, if not nil, supplies the features instead of X (nil): the
	// records mapped on the fly, a range at a time, so that no n·ℓ copy
	// is held (issue 20). Only learners for which ReadsSource is true
	// accept it; Materialized gives the dataset with X for the others.
	Source RecordSource
}

// N returns the number of records.
func (d Dataset) N() int {
	if d.Source != nil {
		return d.Source.Len()
	}
	if d.Dim == 0 {
		return 0
	}
	return len(d.X) / d.Dim
}

// Values holds parameter values by ParamSpec.Name. A PerAxis parameter may
// hold one value (broadcast) or Dim values; every other parameter holds one.
type Values map[string][]float64

// Fitted is the result of fitting a learner to a dataset.
type Fitted struct {
	// Oracle evaluates F_D(y) for y ∈ [0,1]^ℓ; it is safe for concurrent use.
	// It satisfies mechanism.Oracle and, where faster, mechanism.GridOracle.
	Oracle mechanism.Oracle
	// Sensitivity is the proven bound S(F) ≥ sup_y |F_D(y) − F_D'(y)| over
	// replace-one neighbours D ~ D' of the same size n. It depends on n, the
	// parameters and the public bounds only, never on data values.
	Sensitivity float64
	// SensitivityNote explains the bound in one line, with the formula and
	// any solver term (duality gap) it includes.
	SensitivityNote string
	// OutputRange is the natural range of F_D for plots, e.g. [0, sup K] for
	// a density; it is public (derived from parameters, not data).
	OutputRange [2]float64
	// N is the number of records used.
	N int
	// Output, when its Kind is set, replaces Spec().Output for this fit: a
	// learner whose output meaning depends on a parameter (logistic
	// regression's score or probability) says here what this F_D returns.
	Output OutputSpec
	// LatticeL1Sensitivity, if not nil, returns a proven bound L(k) on the
	// lattice-L1 sensitivity
	//
	//	L(k) ≥ (1/∏_j(k_j+1))·Σ_ν |F_D(ν/k) − F_D'(ν/k)|,  ν_j = 0..k_j,
	//
	// over replace-one neighbours D ~ D' of the same size n, for the cover
	// size k (one k_j ≥ 1 per axis; the lattice of mechanism.NewLattice).
	// Like Sensitivity it depends on n, the parameters, the public bounds
	// and k only, never on data values; L(k) ≤ Sensitivity always holds.
	// The private choice of settings uses it to tighten the density score's
	// training-side sensitivity (docs/validation.md, docs/sensitivity.md).
	// nil means no such bound is stated (the sup-norm Sensitivity is used).
	// The function panics if len(k) ≠ ℓ or some k_j < 1 (programmer misuse).
	LatticeL1Sensitivity func(k []int) float64
	// LatticeNoiseSensitivity, if not nil, returns a proven bound L(k) with
	//
	//	‖Δ‖₁ ≤ m·L(k) and ‖Δ‖₂ ≤ √m·L(k),  m = ∏_j(k_j+1),
	//
	// for the change Δ of the vector of lattice values F_D(ν/k) between
	// replace-one neighbours D ~ D' of the same size n: the release's
	// Laplace and Gaussian noise is calibrated to it instead of Sensitivity
	// (NoiseSensitivity, the one rule). Like Sensitivity it depends on n,
	// the parameters, the public bounds and k only; L(k) ≤ Sensitivity.
	// Set by the affine logistic score (docs/sensitivity.md, "Lattice
	// sensitivity of the affine logistic score") and the SVM; nil means
	// Sensitivity.
	// The function panics if len(k) ≠ ℓ or some k_j < 1 (programmer misuse).
	LatticeNoiseSensitivity func(k []int) float64
	// LatticeLaplaceSensitivity, if not nil, returns a proven bound L₁(k)
	// with ‖Δ‖₁ ≤ m·L₁(k) only (Δ and m as for LatticeNoiseSensitivity,
	// which must then be set too): the release's Laplace noise is
	// calibrated to it, Gaussian noise to LatticeNoiseSensitivity. Same
	// dependencies and panics; L₁(k) ≤ Sensitivity. Set by the SVM
	// (docs/sensitivity.md, "Lattice sensitivity of the SVM's kernel
	// score"); nil means LatticeNoiseSensitivity for Laplace noise too.
	LatticeLaplaceSensitivity func(k []int) float64
	// StandIn is a public stand-in for F_D (mechanism.StandIn): how finely
	// F_D can vary, from the parameters, n and the public bounds only,
	// never from data values. The automatic cover size (mechanism.ResolveK,
	// mechanism.AutoK) minimises the predicted error of releasing it. The
	// zero value means "unknown" (the paper's k* is used instead).
	StandIn mechanism.StandIn
}

// Learner fits one of the paper's target functions.
type Learner interface {
	Spec() Spec
	// Fit validates the values against Spec().Params (filling defaults for
	// missing ones) and the dataset against the spec, then fits. Errors name
	// the parameter, the value and the rule broken. A fit may keep data's
	// slices without copying them (the KDE and the SVM do): the caller must
	// not modify them while the Fitted is in use.
	Fit(ctx context.Context, data Dataset, values Values) (*Fitted, error)
}
