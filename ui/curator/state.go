package curator

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// curatorState is the curator's project as plain data: what the window
// shows and the project file stores. It has no widgets; the window reads
// and writes it on the UI goroutine only, and background work gets copies
// (snapshot). Text fields hold what the curator typed, so an invalid entry
// survives a save and reload unchanged.
type curatorState struct {
	CSVPath string
	// Import is how the CSV file is laid out (header row, delimiter,
	// decimal comma, comment character): the import step's choice.
	Import   dataset.ImportOptions
	Features []string
	Label    string // "" when the learner needs none
	// Negative and Positive are the declared values of a binary label
	// (class −1 and +1), as typed or picked; FillPositive makes the
	// positive class (else the negative one) replace other or missing
	// label values.
	Negative, Positive string
	FillPositive       bool
	// ClassesFromData records that the curator asked to see the values
	// found in the label column before declaring the classes: the
	// declaration is then recorded as read from the data (synopsis
	// output.class_labels_from_data, project file classes_from_data).
	ClassesFromData bool
	Bounds          map[string]*columnSetting
	// AckDataBounds records the curator's acknowledgement that bounds
	// suggested from the data leak its minimum and maximum; AckTime when.
	AckDataBounds bool
	AckTime       time.Time

	Learner learners.Kind
	// Params holds the parameter form's text per learner and parameter
	// name, so switching learners keeps what was typed.
	Params map[learners.Kind]map[string]string
	// Rows is n, the number of records of the loaded dataset (public): the
	// data-independent defaults of the learner's parameters depend on it.
	Rows int

	Epsilon float64
	Delta   float64
	Noise   mechanism.NoiseKind
	H       int
	KAuto   bool
	K       int
	// ChosenPrivately says h and k were filled in by "Choose h and k
	// privately…" on this dataset (a public output of that choice), not
	// typed; any edit of h or k clears it, and a new dataset starts from
	// the defaults again instead of carrying another dataset's choice.
	ChosenPrivately bool
	// Typed holds, per privacy field (fieldEpsilon, fieldDelta, fieldK),
	// text the curator typed that does not parse. The field shows it,
	// marked with its rule, and while it is there request fails with that
	// rule: nothing (preview, summary, release) uses the last valid value.
	Typed map[string]string
	// Mechanism is the synopsis kind to release ("" is Bernstein; else a
	// peer of release.Mechanisms): mechanism.go.
	Mechanism string

	Title, Note string
	History     []releaseRecord
	// Aggregates, if set, is the aggregate table computed elsewhere that
	// releases use instead of the records (aggregates.go): this session
	// only, never saved; a new dataset drops it.
	Aggregates *release.Aggregates
	// Records, if set, is the open file when it is read by the embedded
	// DuckDB (aggregates_source.go): this session only.
	Records *release.SourceInfo
}

// columnSetting is the public bounds editor of one column.
type columnSetting struct {
	Lo, Hi string // as typed
	Unit   string
	// LoEnd and HiEnd say where each end came from (typed, the data after
	// the acknowledgement, or a private estimate); bounds_provenance.go.
	LoEnd, HiEnd endSetting
	// Fill is the public fill value for missing or non-numeric values, as
	// typed; "" means the midpoint of the bounds.
	Fill string
}

// releaseRecord is one release of this project.
type releaseRecord struct {
	Time     time.Time
	Path     string
	Epsilon  float64
	Delta    float64
	LedgerID string
}

// newCuratorState returns the defaults: KDE, ε = 1, pure Laplace noise,
// h = release.DefaultH (shared with the command line), k chosen
// automatically.
func newCuratorState() *curatorState {
	return &curatorState{
		Bounds:  map[string]*columnSetting{},
		Learner: learners.KindKDE,
		Params:  map[learners.Kind]map[string]string{},
		Epsilon: 1,
		Delta:   1e-6,
		Noise:   mechanism.NoiseLaplace,
		H:       release.DefaultH,
		KAuto:   true,
		K:       20,
	}
}

// forNewDataset returns the state of a new project for another dataset:
// the learner, its parameters and the privacy settings are kept; what
// belongs to the old dataset's columns or project (features, label,
// classes, bounds, acknowledgement, title, note, history) starts afresh.
func (s *curatorState) forNewDataset() *curatorState {
	n := newCuratorState()
	n.Learner, n.Params = s.Learner, s.Params
	n.Epsilon, n.Delta, n.Noise, n.H, n.KAuto, n.K = s.Epsilon, s.Delta, s.Noise, s.H, s.KAuto, s.K
	n.Mechanism = s.Mechanism
	if s.ChosenPrivately {
		// Chosen on the old records: not the curator's setting for these.
		n.H, n.KAuto = release.DefaultH, true
	}
	n.Typed = maps.Clone(s.Typed)
	return n
}

// spec returns the chosen learner's spec (KDE if the kind is unknown).
func (s *curatorState) spec() learners.Spec {
	l, err := learners.Lookup(s.Learner)
	if err != nil {
		l = learners.NewKDE()
	}
	return l.Spec()
}

// usedColumns returns the columns that need public bounds: the features
// and, for real labels, the label.
func (s *curatorState) usedColumns() []string {
	cols := slices.Clone(s.Features)
	if s.spec().Label == learners.LabelReal && s.Label != "" {
		cols = append(cols, s.Label)
	}
	return cols
}

// bound returns (creating if needed) the bounds editor of a column.
func (s *curatorState) bound(col string) *columnSetting {
	b := s.Bounds[col]
	if b == nil {
		b = &columnSetting{}
		s.Bounds[col] = b
	}
	return b
}

// fieldError is a setting that cannot be used yet; Step names the wizard
// step where the curator fixes it.
type fieldError struct {
	Step  string
	Field string
	Rule  string
}

func (e *fieldError) Error() string {
	if strings.HasPrefix(e.Rule, e.Field+" = ") {
		return e.Rule // the rule names the field already ("ε = 0: must be > 0")
	}
	return e.Field + ": " + e.Rule
}

// parseNumber parses a number typed by the curator with the one number
// syntax of CSV values and command-line flags (dataset.ParseNumber: plain
// decimal, finite; surrounding spaces are ignored).
func parseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("enter a number")
	}
	return dataset.ParseNumber(t) // the number syntax of CSV values and flags
}

// boundsErrs checks a column's bounds editor field by field: loErr is the
// rule the lower field breaks, hiErr the upper's; bounds that parse but
// are not a valid range mark both. Each field's mark and the row's message
// come from here (parseBounds).
func boundsErrs(b *columnSetting) (bd dataset.Bounds, loErr, hiErr error) {
	lo, loErr := parseNumber(b.Lo)
	if loErr != nil {
		loErr = fmt.Errorf("lower bound: %w", loErr)
	}
	hi, hiErr := parseNumber(b.Hi)
	if hiErr != nil {
		hiErr = fmt.Errorf("upper bound: %w", hiErr)
	}
	bd = dataset.Bounds{Lo: lo, Hi: hi}
	if loErr == nil && hiErr == nil {
		if err := bd.Validate(); err != nil {
			loErr, hiErr = err, err
		}
	}
	return bd, loErr, hiErr
}

// parseBounds parses a column's bounds editor; the error names every
// field's rule (boundsErrs).
func parseBounds(b *columnSetting) (dataset.Bounds, error) {
	bd, loErr, hiErr := boundsErrs(b)
	switch {
	case loErr != nil && hiErr != nil && loErr.Error() != hiErr.Error():
		return bd, fmt.Errorf("%w; %w", loErr, hiErr)
	case loErr != nil:
		return bd, loErr
	}
	return bd, hiErr
}

// errBoundsMissing is the rule of a used column without bounds.
const errBoundsMissing = "enter public bounds (from domain knowledge, not from the data)"

// columnBounds returns the parsed public bounds of a used column, or a
// fieldError of the Bounds step saying they are missing or which rule
// they break: the one check of the release request, the summary and the
// preview.
func (s *curatorState) columnBounds(col string) (dataset.Bounds, error) {
	b := s.Bounds[col]
	if b == nil || (strings.TrimSpace(b.Lo) == "" && strings.TrimSpace(b.Hi) == "") {
		return dataset.Bounds{}, &fieldError{Step: stepBounds, Field: "bounds of " + col, Rule: errBoundsMissing}
	}
	bd, err := parseBounds(b)
	if err != nil {
		return bd, &fieldError{Step: stepBounds, Field: "bounds of " + col, Rule: err.Error()}
	}
	return bd, nil
}

// parseParam parses one parameter's text against its spec: one value, or
// for per-axis parameters one value per feature separated by commas.
func parseParam(p learners.ParamSpec, text string, dim int) ([]float64, error) {
	parts := strings.Split(text, ",")
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("enter a value")
	}
	if len(parts) > 1 && !p.PerAxis {
		return nil, errors.New("takes a single value")
	}
	if p.PerAxis && len(parts) > 1 && len(parts) != dim {
		return nil, fmt.Errorf("give one value or one per feature (%d)", dim)
	}
	out := make([]float64, len(parts))
	for i, s := range parts {
		v, err := parseNumber(s)
		if err != nil {
			return nil, err
		}
		if err := p.Check(v); err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// paramText returns the form text of a parameter (its default if untouched).
func (s *curatorState) paramText(p learners.ParamSpec) string {
	if m := s.Params[s.Learner]; m != nil {
		if t, ok := m[p.Name]; ok {
			return t
		}
	}
	// The data-independent default from n, ℓ and ε (learners.ParamSpec.Auto),
	// to three significant digits; the static default without a dataset.
	if v, ok := p.PublicDefault(learners.Public{N: s.Rows, Dim: len(s.Features), Epsilon: s.Epsilon}); ok {
		return strconv.FormatFloat(roundSig(v, 3), 'g', -1, 64)
	}
	return strconv.FormatFloat(p.Default, 'g', -1, 64)
}

// paramValues returns the values a parameter takes in a request: the
// curator's text if they typed one (parsed and checked), else the
// data-independent default of learners/defaults.go at the public n, ℓ and ε
// (learners.ParamSpec.PublicDefault, unrounded: the value release.Prepare
// and the command line use for an unset parameter), else the static
// default. The form shows the public default to three significant digits
// (paramText); the request, the preview and the saved project get the
// exact value, so that the preview fits what the release and the command
// line fit.
func (s *curatorState) paramValues(p learners.ParamSpec) ([]float64, error) {
	dim := max(len(s.Features), 1)
	if m := s.Params[s.Learner]; m != nil {
		if t, ok := m[p.Name]; ok {
			return parseParam(p, t, dim)
		}
	}
	if v, ok := p.PublicDefault(learners.Public{N: s.Rows, Dim: len(s.Features), Epsilon: s.Epsilon}); ok {
		return []float64{v}, nil
	}
	return parseParam(p, strconv.FormatFloat(p.Default, 'g', -1, 64), dim)
}

// setParamText records a parameter's form text for the current learner.
func (s *curatorState) setParamText(name, text string) {
	m := s.Params[s.Learner]
	if m == nil {
		m = map[string]string{}
		s.Params[s.Learner] = m
	}
	m[name] = text
}

// request builds the release request for dataset ds from the state. It
// checks what the form can check (choices made, numbers parse); project.
// Prepare validates everything else, with the same rules for the window and
// the command line.
func (s *curatorState) request(ds *dataset.Table) (release.Request, error) {
	var req release.Request
	if ds == nil {
		return req, &fieldError{Step: stepData, Field: "dataset", Rule: "open a CSV file or a demo dataset"}
	}
	spec := s.spec()
	if len(s.Features) == 0 {
		return req, &fieldError{Step: stepData, Field: "features", Rule: "choose at least one feature column"}
	}
	if spec.Label != learners.LabelNone && s.Label == "" {
		return req, &fieldError{Step: stepData, Field: "label", Rule: fmt.Sprintf("%s needs a label column", spec.Title)}
	}
	req = release.Request{
		Dataset:  ds,
		Features: slices.Clone(s.Features),
		Bounds:   map[string]dataset.Bounds{},
		Units:    map[string]string{},
		Learner:  s.Learner,
		Params:   learners.Values{},
		Privacy: mechanism.Params{
			Epsilon: s.Epsilon, Noise: s.Noise, H: s.H,
		},
		KAuto: s.KAuto,
		Title: s.Title, Note: s.Note,
	}
	if spec.Label != learners.LabelNone {
		req.Label = s.Label
	}
	if spec.Label == learners.LabelBinary {
		c, err := s.classes()
		if err != nil {
			return req, &fieldError{Step: stepData, Field: "classes", Rule: err.Error()}
		}
		req.Classes = &c
		req.ClassesFromData = s.ClassesFromData
		if s.FillPositive {
			req.FillClass = c.Positive
		}
	}
	for _, col := range s.usedColumns() {
		bd, err := s.columnBounds(col)
		if err != nil {
			return req, err
		}
		b := s.Bounds[col]
		req.Bounds[col] = bd
		if strings.TrimSpace(b.Fill) != "" {
			v, err := parseNumber(b.Fill)
			if err != nil {
				return req, &fieldError{Step: stepBounds, Field: "fill value of " + col, Rule: err.Error()}
			}
			if req.Fill == nil {
				req.Fill = map[string]float64{}
			}
			req.Fill[col] = v
		}
		if b.Unit != "" {
			req.Units[col] = b.Unit
		}
		if b.fromData() {
			if req.BoundsFromData == nil {
				req.BoundsFromData = map[string]bool{}
			}
			req.BoundsFromData[col] = true
		}
		if req.BoundsProvenance == nil {
			req.BoundsProvenance = map[string]synopsis.BoundsProvenance{}
		}
		req.BoundsProvenance[col] = b.provenance()
	}
	req.AcknowledgedDataBounds = s.AckDataBounds
	for _, p := range spec.Params {
		v, err := s.paramValues(p)
		if err != nil {
			return req, &fieldError{Step: stepLearner, Field: p.Label, Rule: err.Error()}
		}
		req.Params[p.Name] = v
	}
	if err := s.typedError(); err != nil {
		return req, err
	}
	if s.Noise != mechanism.NoiseLaplace {
		req.Privacy.Delta = s.Delta
	}
	if !s.KAuto {
		req.Privacy.K = []int{s.K}
	}
	return s.sourceRequest(req)
}

// Privacy fields whose typed text the state keeps while it does not parse.
const (
	fieldEpsilon = "ε"
	fieldDelta   = "δ"
	fieldK       = "k"
)

// privacyFields lists them with their one parser each (the rule the
// field's mark, its message and request all use).
var privacyFields = []struct {
	name  string
	parse func(string) error
}{
	{fieldEpsilon, func(s string) error { _, err := parseEpsilon(s); return err }},
	{fieldDelta, func(s string) error { _, err := parseDelta(s); return err }},
	{fieldK, func(s string) error { _, err := parseK(s); return err }},
}

// setTyped records the text of a privacy field: valid text clears the
// field's pending entry (the caller stores the value), invalid text is
// kept, with its error returned.
func (s *curatorState) setTyped(field, text string, parse func(string) error) error {
	if err := parse(text); err != nil {
		if s.Typed == nil {
			s.Typed = map[string]string{}
		}
		s.Typed[field] = text
		return err
	}
	delete(s.Typed, field)
	return nil
}

// fieldInUse reports whether a privacy field applies to the current
// settings (δ only for the (ε, δ) noises, k only when set by hand).
func (s *curatorState) fieldInUse(field string) bool {
	switch field {
	case fieldDelta:
		return s.Noise != mechanism.NoiseLaplace
	case fieldK:
		return !s.KAuto
	}
	return true
}

// typedError is the first privacy field in use whose typed text does not
// parse, as a fieldError of the Privacy step (nil if none).
func (s *curatorState) typedError() error {
	for _, f := range privacyFields {
		t, ok := s.Typed[f.name]
		if !ok || !s.fieldInUse(f.name) {
			continue
		}
		if err := f.parse(t); err != nil {
			return &fieldError{Step: stepPrivacy, Field: f.name, Rule: err.Error()}
		}
	}
	return nil
}

// Wizard steps.
const (
	stepStart   = "Start"
	stepData    = "Data"
	stepBounds  = "Bounds"
	stepLearner = "Learner"
	stepPrivacy = "Privacy"
	stepRelease = "Release"
)

var wizardSteps = []string{stepStart, stepData, stepBounds, stepLearner, stepPrivacy, stepRelease}
