package synopsis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

const (
	MaxTitleRunes   = 200
	MaxNoteRunes    = 10_000
	MaxNameRunes    = 200
	maxMeaningRunes = 2_000
	MaxUnitRunes    = 64
	maxTokenLen     = 64
	maxParams       = 64
	maxParamValues  = 64
)

// File is the content of a signed .synopsis file: everything an
// analyst needs to evaluate and interpret a Bernstein release, and nothing
// else. It holds the noisy lattice values of the release, never raw data,
// never noiseless values and no data-derived statistic other than n.
//
// The JSON names are part of the format (format 1); field order in the file
// is the declaration order here. Values is not in the JSON metadata: it
// follows it, one decimal number per line (see synopsis_doc.go).
type File struct {
	// Format is the format version; Format.
	Format int `json:"format"`
	// AppVersion is the version of the app that wrote the file.
	AppVersion string `json:"app_version"`
	// Created is the creation time, in UTC.
	Created time.Time `json:"created"`
	// Title is the curator's one-line title (≤ 200 characters).
	Title string `json:"title"`
	// Note is the curator's free-text note (≤ 10 000 characters; may have
	// line breaks).
	Note string `json:"note"`
	// Mechanism describes how the release was made private.
	Mechanism MechanismInfo `json:"mechanism"`
	// Learner describes the target function F_D.
	Learner LearnerInfo `json:"learner"`
	// Domain holds the public bounds that map data to [0,1]^ℓ.
	Domain DomainInfo `json:"domain"`
	// Output says what the released function's values mean.
	Output OutputInfo `json:"output"`
	// Fill holds the public fill rule of every used column (features, then
	// the label), by which invalid or missing values were replaced; absent
	// in files written before fill rules existed (fill.go).
	Fill []FillRule `json:"fill,omitempty"`
	// Source records that the release was computed from an aggregate table
	// (synopsis_source.go); absent for a release from the records and in
	// files written before it.
	Source *Source `json:"source,omitempty"`
	// GP, Trig and Linear are the public blocks of the peer kinds
	// (kinds.go): exactly the one of mechanism.name is present, none for a
	// Bernstein file.
	GP     *GPInfo     `json:"gp,omitempty"`
	Trig   *TrigInfo   `json:"trig,omitempty"`
	Linear *LinearInfo `json:"output_perturbation,omitempty"`
	// Values are the ∏(k_j+1) noisy lattice values in LatticeOrder (for a
	// peer kind, its values in its order: kinds.go).
	Values []float64 `json:"-"`
}

// MechanismInfo describes the privacy mechanism (Algorithm 1 of Aldà &
// Rubinstein 2017 and its variants, see mechanism.NoiseKind).
type MechanismInfo struct {
	// Name is MechanismBernstein or a peer kind (MechanismGP, MechanismTrig,
	// MechanismOutputPerturbation).
	Name string `json:"name"`
	// K holds the cover size 1 ≤ k_j ≤ mechanism.MaxK per axis;
	// len(K) = ℓ ≤ mechanism.MaxDim and ∏(k_j+1) ≤ mechanism.MaxCoefficients.
	K []int `json:"k"`
	// H is the iterated Bernstein order, 1 ≤ h ≤ mechanism.MaxH.
	H int `json:"h"`
	// Moments is t, the number of trigonometric moments of a MechanismTrig
	// file; absent (0) for every other kind.
	Moments int `json:"moments,omitempty"`
	// Noise is a mechanism.NoiseKind: "laplace", "laplace-approx" or
	// "gaussian".
	Noise string `json:"noise"`
	// Scale is the noise scale per lattice value (Laplace λ or Gaussian σ).
	Scale float64 `json:"scale"`
	// Epsilon is ε > 0.
	Epsilon float64 `json:"epsilon"`
	// Delta is δ: 0 for "laplace", in (0,1) otherwise.
	Delta float64 `json:"delta"`
	// Neighbouring is the neighbouring relation, NeighbouringReplaceOne.
	Neighbouring string `json:"neighbouring"`
}

// LearnerInfo describes the target function F_D (learners package).
type LearnerInfo struct {
	// Kind is the learners.Kind, e.g. "kde".
	Kind string `json:"kind"`
	// Params are the resolved learner parameters (learners.Resolved).
	Params map[string][]float64 `json:"params"`
	// Sensitivity is S(F), the proven replace-one sensitivity bound.
	Sensitivity float64 `json:"sensitivity"`
	// N is the number of records (public by the replace-one relation).
	N int `json:"n"`
}

// DomainInfo holds the public bounds of the features and the label.
type DomainInfo struct {
	// Features has one bound per query axis, in axis order (len = ℓ).
	Features []Bound `json:"features"`
	// Label is the real label's bound for regression outputs; nil otherwise.
	Label *Bound `json:"label"`
	// BoundsFromData is true when any bound has FromData set.
	BoundsFromData bool `json:"bounds_from_data"`
}

// Bound is a column's public range [Lo, Hi] in data units.
type Bound struct {
	Name string  `json:"name"`
	Unit string  `json:"unit"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	// FromData is true when the curator took this bound from the data
	// after acknowledging that doing so is not covered by the ε guarantee.
	FromData bool `json:"from_data"`
	// LoSource and HiSource say where each end came from (typed, data,
	// private); both empty in files written before per-end provenance
	// (see Bound.Ends). LoEstimate and HiEstimate describe a privately
	// estimated end (bounds_provenance.go).
	LoSource   EndSource   `json:"lo_source,omitempty"`
	HiSource   EndSource   `json:"hi_source,omitempty"`
	LoEstimate *PrivateEnd `json:"lo_estimate,omitempty"`
	HiEstimate *PrivateEnd `json:"hi_estimate,omitempty"`
}

// OutputInfo says what the released function's values mean.
type OutputInfo struct {
	// Name is a short name, e.g. "density".
	Name string `json:"name"`
	// Meaning is one sentence for the analyst.
	Meaning string `json:"meaning"`
	// Kind is a learners.OutputKind: "density", "regression",
	// "class-score" or "probability".
	Kind string `json:"kind"`
	// Range is the natural range of the output in data units (see
	// (*File).OutputAffine), lo ≤ hi.
	Range [2]float64 `json:"range"`
	// ClassLabels names the classes of a classifier: [0] is the negative
	// class (learner label −1), [1] the positive class (+1). Empty for
	// density and regression.
	ClassLabels []string `json:"class_labels"`
	// ClassLabelsFromData is true when the curator declared the class
	// labels after seeing the values found in the label column (the
	// curator's Data step offers them on request): that the values occur
	// in the data is then not covered by the privacy guarantee. Absent
	// (false) in files whose labels were typed, and in older files.
	ClassLabelsFromData bool `json:"class_labels_from_data,omitempty"`
}

// Dim returns ℓ, the number of query axes.
func (f *File) Dim() int {
	if f.Mechanism.K == nil && f.Mechanism.Name != MechanismBernstein {
		return len(f.Domain.Features)
	}
	return len(f.Mechanism.K)
}

// LatticeSize returns ∏(k_j+1), or −1 if it exceeds
// mechanism.MaxCoefficients or some k_j < 1 (no overflow is possible).
func LatticeSize(k []int) int {
	n := 1
	for _, kj := range k {
		if kj < 1 || kj >= mechanism.MaxCoefficients {
			return -1
		}
		n *= kj + 1
		if n > mechanism.MaxCoefficients {
			return -1
		}
	}
	return n
}

// OutputAffine returns the affine map from the learner's units (the values
// of F_D on [0,1]^ℓ) to data units: data = offset + scale·value, and a noise
// standard deviation maps to |scale|·std. By output kind:
//
//   - density: offset 0, scale 1/∏(hi_j − lo_j) (change of variables from
//     [0,1]^ℓ to the feature box);
//   - regression: offset (lo+hi)/2, scale (hi−lo)/2 of the label bound (the
//     learner sees labels mapped to [−1, 1]);
//   - class-score, probability: offset 0, scale 1 (unitless).
//
// It assumes f passed Validate; on an invalid f it returns (0, 1).
func (f *File) OutputAffine() (offset, scale float64) {
	switch learners.OutputKind(f.Output.Kind) {
	case learners.OutputDensity:
		vol := 1.0
		for _, b := range f.Domain.Features {
			vol *= b.Hi - b.Lo
		}
		if vol > 0 && !math.IsInf(vol, 0) {
			return 0, 1 / vol
		}
	case learners.OutputRegression:
		if l := f.Domain.Label; l != nil {
			return l.Lo/2 + l.Hi/2, l.Hi/2 - l.Lo/2
		}
	}
	return 0, 1
}

// Meta is what NewFile needs besides the release itself:
// public descriptions supplied by the curator's project.
type Meta struct {
	AppVersion string
	// Created is stored in UTC, truncated to the second; zero means now.
	Created     time.Time
	Title, Note string
	Learner     learners.Kind
	// Params are the resolved learner parameters (learners.Resolved).
	Params learners.Resolved
	// N is the number of records the release was computed from.
	N int
	// Domain holds the public bounds; BoundsFromData is recomputed.
	Domain DomainInfo
	// Output is the learner's output description (learners.Spec().Output).
	Output learners.OutputSpec
	// OutputRange is learners.Fitted.OutputRange, in the learner's units;
	// NewFile converts it to data units with OutputAffine.
	OutputRange [2]float64
	// ClassLabels names the negative (−1) and positive (+1) class of a
	// classifier; nil for density and regression.
	ClassLabels []string
	// ClassLabelsFromData records that ClassLabels were declared from
	// values seen in the data (OutputInfo.ClassLabelsFromData).
	ClassLabelsFromData bool
	// Fill are the fill rules of the used columns (FillRule).
	Fill []FillRule
	// Source is set for a release computed from an aggregate table (Source).
	Source *Source
}

// NewFile assembles the file content of a release. It copies the
// noisy lattice values (rel.Coefficients(), the sanitized F_D on the lattice
// of Algorithm 1) and the mechanism parameters from rel, and the public
// descriptions from meta; nothing else enters the file. The result is
// validated; errors are *FormatError (ErrMalformed or ErrTooLarge) naming
// the field and rule.
func NewFile(rel *mechanism.Synopsis, meta Meta) (*File, error) {
	if rel == nil || rel.Polynomial == nil {
		return nil, fieldErr(ErrMalformed, "release", "no release given")
	}
	return assembleFile(MechanismInfo{
		Name:         MechanismBernstein,
		K:            slices.Clone(rel.K()),
		H:            rel.H(),
		Noise:        string(rel.Noise),
		Scale:        rel.Scale,
		Epsilon:      rel.Epsilon,
		Delta:        rel.Delta,
		Neighbouring: NeighbouringReplaceOne,
	}, rel.Sensitivity, rel.Coefficients(), meta, nil)
}

// assembleFile is NewFile for any kind: the mechanism block, S(F), the
// released values and the public descriptions; peer (may be nil) sets the
// kind's own block before validation.
func assembleFile(mech MechanismInfo, sensitivity float64, values []float64, meta Meta, peer func(*File)) (*File, error) {
	created := meta.Created
	if created.IsZero() {
		created = time.Now()
	}
	f := &File{
		Format:     Format,
		AppVersion: meta.AppVersion,
		Created:    created.UTC().Truncate(time.Second),
		Title:      meta.Title,
		Note:       meta.Note,
		Mechanism:  mech,
		Learner: LearnerInfo{
			Kind:        string(meta.Learner),
			Params:      make(map[string][]float64, len(meta.Params)),
			Sensitivity: sensitivity,
			N:           meta.N,
		},
		Domain: DomainInfo{Features: slices.Clone(meta.Domain.Features)},
		Output: OutputInfo{
			Name:    meta.Output.Name,
			Meaning: meta.Output.Meaning,
			Kind:    string(meta.Output.Kind),
		},
		Values: slices.Clone(values),
	}
	if peer != nil {
		peer(f)
	}
	for name, v := range meta.Params {
		f.Learner.Params[name] = slices.Clone(v)
	}
	if meta.Domain.Label != nil {
		l := *meta.Domain.Label
		f.Domain.Label = &l
	}
	for _, b := range f.Domain.Features {
		f.Domain.BoundsFromData = f.Domain.BoundsFromData || b.FromData
	}
	if f.Domain.Label != nil {
		f.Domain.BoundsFromData = f.Domain.BoundsFromData || f.Domain.Label.FromData
	}
	if len(meta.ClassLabels) > 0 {
		f.Output.ClassLabels = slices.Clone(meta.ClassLabels)
		f.Output.ClassLabelsFromData = meta.ClassLabelsFromData
	}
	f.Fill = CloneFill(meta.Fill)
	f.Source = CloneSource(meta.Source)
	if err := f.Validate(); err != nil {
		return nil, err
	}
	off, scale := f.OutputAffine()
	lo, hi := off+scale*meta.OutputRange[0], off+scale*meta.OutputRange[1]
	if lo > hi {
		lo, hi = hi, lo
	}
	f.Output.Range = [2]float64{lo, hi}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// Validate checks every rule of the format (see synopsis_doc.go) on f: the
// format version, text lengths and characters, the mechanism parameters
// (k_j ≥ 1, ℓ ≤ mechanism.MaxDim, ∏(k_j+1) ≤ mechanism.MaxCoefficients,
// 1 ≤ h ≤ mechanism.MaxH, k_j ≤ mechanism.MaxK, a known noise kind, finite positive scale, ε as mechanism.ValidateEpsilon, δ = 0 for
// Laplace and δ ∈ (0,1) otherwise, replace-one), the learner (kind,
// parameter names and finite values, S(F) > 0, n ≥ 1), the domain (one
// finite bound lo < hi per axis, a label bound exactly for regression,
// BoundsFromData consistent), the output (known kind, finite range, two
// distinct class labels exactly for classifiers) and the values (count
// ∏(k_j+1), all finite), the fill rules and the source record. The error
// is a *FormatError naming the field; it wraps ErrTooLarge for a cap,
// ErrUnsupportedFormat for the version and ErrMalformed otherwise.
func (f *File) Validate() error {
	if f == nil {
		return fieldErr(ErrMalformed, "", "no synopsis")
	}
	if err := f.validateMeta(); err != nil {
		return err
	}
	want := f.valueCount()
	if len(f.Values) != want {
		return fieldErr(ErrMalformed, "values", "has %d values; the %s release has %d", len(f.Values), f.Mechanism.Name, want)
	}
	for i, v := range f.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fieldErr(ErrMalformed, fmt.Sprintf("values[%d]", i), "%v is not a finite number", v)
		}
	}
	return f.checkPeerValues()
}

// validateMeta is Validate without the values.
func (f *File) validateMeta() error {
	if f.Format != Format {
		return fieldErr(ErrUnsupportedFormat, "format", "format %d is not supported; this build reads format %d", f.Format, Format)
	}
	if err := checkToken("app_version", f.AppVersion); err != nil {
		return err
	}
	if f.Created.IsZero() {
		return fieldErr(ErrMalformed, "created", "creation time is missing")
	}
	if name, off := f.Created.Zone(); name != "UTC" || off != 0 {
		return fieldErr(ErrMalformed, "created", "creation time %s must be in UTC", f.Created.Format(time.RFC3339))
	}
	if y := f.Created.Year(); y < 1970 || y > 9999 {
		return fieldErr(ErrMalformed, "created", "creation year %d must be between 1970 and 9999", y)
	}
	if err := CheckText("title", f.Title, MaxTitleRunes, false); err != nil {
		return err
	}
	if err := CheckText("note", f.Note, MaxNoteRunes, true); err != nil {
		return err
	}
	if err := f.validateKind(); err != nil {
		return err
	}
	if err := f.Learner.validate(); err != nil {
		return err
	}
	if err := f.Domain.validate(f.Dim(), learners.OutputKind(f.Output.Kind)); err != nil {
		return err
	}
	if err := f.Output.validate(); err != nil {
		return err
	}
	if err := f.validateFill(); err != nil {
		return err
	}
	return f.validateSource()
}

// mechanismParamErr is a *mechanism.ParamError as the malformed field
// mechanism.FIELD of the file ("mechanism.h: h = 11: must be between 1 and
// 10").
func mechanismParamErr(err error) error {
	var pe *mechanism.ParamError
	if !errors.As(err, &pe) {
		return fieldErr(ErrMalformed, "mechanism", "%v", err)
	}
	return fieldErr(ErrMalformed, "mechanism."+pe.Field, "%s", pe.Error())
}

func (m *MechanismInfo) validate() error {
	if m.Name != MechanismBernstein {
		return fieldErr(ErrMalformed, "mechanism.name", "%q is not a known mechanism; want %q", m.Name, MechanismBernstein)
	}
	if len(m.K) < 1 || len(m.K) > mechanism.MaxDim {
		return fieldErr(tooLargeIf(len(m.K) > mechanism.MaxDim), "mechanism.k",
			"has %d axes; need between 1 and %d", len(m.K), mechanism.MaxDim)
	}
	for j, kj := range m.K {
		if kj < 1 {
			return fieldErr(ErrMalformed, fmt.Sprintf("mechanism.k[%d]", j), "k = %d must be ≥ 1", kj)
		}
		if kj > mechanism.MaxK {
			return fieldErr(ErrTooLarge, fmt.Sprintf("mechanism.k[%d]", j), "k = %d exceeds the cap %d", kj, mechanism.MaxK)
		}
	}
	if LatticeSize(m.K) < 0 {
		return fieldErr(ErrTooLarge, "mechanism.k", "the lattice for k = %v (the product of k_j+1 over the axes) exceeds %d values", m.K, mechanism.MaxCoefficients)
	}
	// h, δ with the noise kind, and ε follow the mechanism's rules (one
	// home: mechanism.ValidateH, ValidateDelta, ValidateEpsilon).
	if err := mechanism.ValidateH(m.H); err != nil {
		return mechanismParamErr(err)
	}
	if err := mechanism.ValidateDelta(m.Delta, mechanism.NoiseKind(m.Noise)); err != nil {
		return mechanismParamErr(err)
	}
	if !positiveFinite(m.Scale) {
		return fieldErr(ErrMalformed, "mechanism.scale", "noise scale %v must be a finite number > 0", m.Scale)
	}
	if err := mechanism.ValidateEpsilon(m.Epsilon); err != nil {
		return mechanismParamErr(err)
	}
	if m.Neighbouring != NeighbouringReplaceOne {
		return fieldErr(ErrMalformed, "mechanism.neighbouring", "%q is not a known neighbouring relation; want %q", m.Neighbouring, NeighbouringReplaceOne)
	}
	return nil
}

// tooLargeIf returns ErrTooLarge if tooLarge, else ErrMalformed.
func tooLargeIf(tooLarge bool) error {
	if tooLarge {
		return ErrTooLarge
	}
	return ErrMalformed
}

func (l *LearnerInfo) validate() error {
	if err := checkToken("learner.kind", l.Kind); err != nil {
		return err
	}
	if len(l.Params) > maxParams {
		return fieldErr(ErrTooLarge, "learner.params", "has %d parameters; at most %d", len(l.Params), maxParams)
	}
	for name, vals := range l.Params {
		field := "learner.params." + name
		if err := checkToken(field, name); err != nil {
			return err
		}
		if len(vals) < 1 || len(vals) > maxParamValues {
			return fieldErr(ErrMalformed, field, "has %d values; need between 1 and %d", len(vals), maxParamValues)
		}
		for i, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fieldErr(ErrMalformed, fmt.Sprintf("%s[%d]", field, i), "%v is not a finite number", v)
			}
		}
	}
	if !positiveFinite(l.Sensitivity) {
		return fieldErr(ErrMalformed, "learner.sensitivity", "S(F) = %v must be a finite number > 0", l.Sensitivity)
	}
	if l.N < 1 {
		return fieldErr(ErrMalformed, "learner.n", "n = %d must be ≥ 1", l.N)
	}
	return nil
}

func (d *DomainInfo) validate(dim int, kind learners.OutputKind) error {
	if len(d.Features) != dim {
		return fieldErr(ErrMalformed, "domain.features", "has %d bounds; the mechanism has %d axes", len(d.Features), dim)
	}
	fromData := false
	for j := range d.Features {
		if err := d.Features[j].Validate(fmt.Sprintf("domain.features[%d]", j)); err != nil {
			return err
		}
		fromData = fromData || d.Features[j].FromData
	}
	if kind == learners.OutputRegression {
		if d.Label == nil {
			return fieldErr(ErrMalformed, "domain.label", "a regression output needs the label's public bound")
		}
		if err := d.Label.Validate("domain.label"); err != nil {
			return err
		}
		fromData = fromData || d.Label.FromData
	} else if d.Label != nil {
		return fieldErr(ErrMalformed, "domain.label", "must be null for a %q output (only regression has a label bound)", kind)
	}
	if d.BoundsFromData != fromData {
		return fieldErr(ErrMalformed, "domain.bounds_from_data", "is %v but the bounds say %v", d.BoundsFromData, fromData)
	}
	return nil
}

func (b *Bound) Validate(field string) error {
	if b.Name == "" {
		return fieldErr(ErrMalformed, field+".name", "name is empty")
	}
	if err := CheckText(field+".name", b.Name, MaxNameRunes, false); err != nil {
		return err
	}
	if err := CheckText(field+".unit", b.Unit, MaxUnitRunes, false); err != nil {
		return err
	}
	if math.IsNaN(b.Lo) || math.IsInf(b.Lo, 0) || math.IsNaN(b.Hi) || math.IsInf(b.Hi, 0) {
		return fieldErr(ErrMalformed, field, "bounds [%v, %v] must be finite", b.Lo, b.Hi)
	}
	if !(b.Lo < b.Hi) || math.IsInf(b.Hi-b.Lo, 0) {
		return fieldErr(ErrMalformed, field, "bounds [%v, %v] need lo < hi with a finite width", b.Lo, b.Hi)
	}
	return b.ValidateProvenance(field)
}

func (o *OutputInfo) validate() error {
	if err := CheckText("output.name", o.Name, MaxNameRunes, false); err != nil {
		return err
	}
	if err := CheckText("output.meaning", o.Meaning, maxMeaningRunes, true); err != nil {
		return err
	}
	classifier := false
	switch learners.OutputKind(o.Kind) {
	case learners.OutputDensity, learners.OutputRegression:
	case learners.OutputClassScore, learners.OutputProbability:
		classifier = true
	default:
		return fieldErr(ErrMalformed, "output.kind", "%q is not a known output kind; want %q, %q, %q or %q", o.Kind,
			learners.OutputDensity, learners.OutputRegression, learners.OutputClassScore, learners.OutputProbability)
	}
	lo, hi := o.Range[0], o.Range[1]
	if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || lo > hi {
		return fieldErr(ErrMalformed, "output.range", "[%v, %v] must be finite with lo ≤ hi", lo, hi)
	}
	if !classifier {
		if len(o.ClassLabels) != 0 {
			return fieldErr(ErrMalformed, "output.class_labels", "must be null for a %q output", o.Kind)
		}
		if o.ClassLabels != nil {
			return fieldErr(ErrMalformed, "output.class_labels", "must be null, not an empty list")
		}
		if o.ClassLabelsFromData {
			return fieldErr(ErrMalformed, "output.class_labels_from_data", "is true but a %q output has no class labels", o.Kind)
		}
		return nil
	}
	if len(o.ClassLabels) != 2 {
		return fieldErr(ErrMalformed, "output.class_labels", "a %q output needs 2 class labels (negative, positive); got %d", o.Kind, len(o.ClassLabels))
	}
	for i, s := range o.ClassLabels {
		if s == "" {
			return fieldErr(ErrMalformed, fmt.Sprintf("output.class_labels[%d]", i), "class label is empty")
		}
		if err := CheckText(fmt.Sprintf("output.class_labels[%d]", i), s, MaxNameRunes, false); err != nil {
			return err
		}
	}
	if o.ClassLabels[0] == o.ClassLabels[1] {
		return fieldErr(ErrMalformed, "output.class_labels", "the two class labels are both %q", o.ClassLabels[0])
	}
	return nil
}

func positiveFinite(x float64) bool { return x > 0 && !math.IsInf(x, 0) }

// CheckText enforces valid UTF-8, a length cap in runes and no control
// characters (line feed and tab allowed only if multiline).
func CheckText(field, s string, maxRunes int, multiline bool) error {
	if !utf8.ValidString(s) {
		return fieldErr(ErrMalformed, field, "is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return fieldErr(ErrMalformed, field, "has %d characters; at most %d", n, maxRunes)
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == utf8.RuneError {
			return fieldErr(ErrMalformed, field, "contains the control character %U", r)
		}
	}
	return nil
}

// checkToken enforces a short machine name: 1–64 bytes of
// [A-Za-z0-9._+-] (learner kinds, parameter names, app versions such as
// "1.2.0-rc1+Debian").
func checkToken(field, s string) error {
	if s == "" || len(s) > maxTokenLen {
		return fieldErr(ErrMalformed, field, "%q must be 1 to %d characters", s, maxTokenLen)
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._+-", c)
		if !ok {
			return fieldErr(ErrMalformed, field, "%q may only contain letters A–Z a–z, digits and . _ + -", s)
		}
	}
	return nil
}
