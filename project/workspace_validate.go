package project

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// validate checks every rule of the format, one field group after the
// other in the order of the file; the first broken rule is a
// *WorkspaceError naming the file (name) and the field.
func (w *Workspace) validate(name string) error {
	for _, check := range []func() *WorkspaceError{
		w.checkVersion,
		w.checkDataset,
		w.checkImport,
		w.checkFeatures,
		w.checkBounds,
		w.checkLearner,
		w.checkFill,
		w.checkPrivacy,
		w.checkReleases,
	} {
		if e := check(); e != nil {
			e.File = name
			return e
		}
	}
	return nil
}

// fieldError is the broken rule of one field; validate adds the file.
func fieldError(field, format string, args ...any) *WorkspaceError {
	return &WorkspaceError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

func (w *Workspace) checkVersion() *WorkspaceError {
	if w.Version != WorkspaceVersion {
		return fieldError("version", "version %d is not supported: this program reads version %d", w.Version, WorkspaceVersion)
	}
	return nil
}

// checkDataset: a path and the hex SHA-256 of the file's bytes.
func (w *Workspace) checkDataset() *WorkspaceError {
	if w.Dataset.Path == "" {
		return fieldError("dataset.path", "missing")
	}
	if !ledger.IsSHA256Hex(w.Dataset.Hash) {
		return fieldError("dataset.hash", "%q is not a hex SHA-256 (64 lower-case hex digits)", w.Dataset.Hash)
	}
	return nil
}

// checkFeatures: named, distinct, none of them the label.
func (w *Workspace) checkFeatures() *WorkspaceError {
	for i, f := range w.Features {
		field := fmt.Sprintf("features[%d]", i)
		switch {
		case strings.TrimSpace(f) == "":
			return fieldError(field, "empty column name")
		case slices.Index(w.Features, f) != i:
			return fieldError(field, "column %q is listed twice", f)
		case f == w.Label:
			return fieldError(field, "column %q is also the label", f)
		}
	}
	return nil
}

// checkBounds checks every entry of bounds (checkColumnBounds).
func (w *Workspace) checkBounds() *WorkspaceError {
	for i, b := range w.Bounds {
		if e := w.checkColumnBounds(i, b); e != nil {
			return e
		}
	}
	return nil
}

// checkColumnBounds: the column is a feature or the label and has one
// entry; data-derived bounds carry their acknowledgement; the provenance,
// the bounds themselves (dataset.Bounds.Validate) and the unit
// (synopsis.CheckText) follow their rules.
func (w *Workspace) checkColumnBounds(i int, b ColumnBounds) *WorkspaceError {
	field := fmt.Sprintf("bounds[%d]", i)
	switch {
	case !slices.Contains(w.Features, b.Column) && (b.Column != w.Label || w.Label == ""):
		return fieldError(field+".column", "%q is neither a feature nor the label", b.Column)
	case slices.IndexFunc(w.Bounds, func(c ColumnBounds) bool { return c.Column == b.Column }) != i:
		return fieldError(field+".column", "column %q has bounds twice", b.Column)
	case b.FromData && (b.AcknowledgedAt == nil || b.AcknowledgedAt.IsZero()):
		return fieldError(field+".acknowledged_at", "bounds taken from the data need the curator's acknowledgement time (they leak the minimum and maximum)")
	}
	if err := b.validateProvenance(field); err != nil {
		return fieldError(field, "%v", err)
	}
	if err := (dataset.Bounds{Lo: b.Lo, Hi: b.Hi}).Validate(); err != nil {
		return fieldError(field, "%v", err)
	}
	if err := synopsis.CheckText(field+".unit", b.Unit, synopsis.MaxUnitRunes, false); err != nil {
		var fe *synopsis.FormatError
		if errors.As(err, &fe) {
			return fieldError(field+".unit", "%s", fe.Rule)
		}
		return fieldError(field+".unit", "%v", err)
	}
	return nil
}

// checkLearner: a known kind; parameter names and values checked against
// the learner's ParamSpec (the number of values of per-axis parameters
// depends on the features and is checked when the learner resolves them,
// Spec.Resolve); a finite positive label from older files.
func (w *Workspace) checkLearner() *WorkspaceError {
	var spec learners.Spec
	if w.Learner.Kind != "" {
		l, err := learners.Lookup(w.Learner.Kind)
		if err != nil {
			return fieldError("learner.kind", "%s", strings.TrimPrefix(err.Error(), "learners: "))
		}
		spec = l.Spec()
	}
	for p, v := range w.Learner.Params {
		if e := w.checkLearnerParam(spec, p, v); e != nil {
			return e
		}
	}
	if pl := w.Learner.PositiveLabel; pl != nil && !isFinite(*pl) {
		return fieldError("learner.positive_label", "%v is not a finite number", *pl)
	}
	return nil
}

// checkLearnerParam checks one entry p: v of learner.params against spec.
func (w *Workspace) checkLearnerParam(spec learners.Spec, p string, v []float64) *WorkspaceError {
	if p == "" || len(v) == 0 {
		return fieldError("learner.params", "parameter %q needs a name and at least one value", p)
	}
	if w.Learner.Kind == "" {
		return fieldError("learner.params", "parameters given but no learner kind")
	}
	i := slices.IndexFunc(spec.Params, func(ps learners.ParamSpec) bool { return ps.Name == p })
	if i < 0 {
		return fieldError("learner.params."+p, "not a parameter of learner %q", spec.Kind)
	}
	for _, x := range v {
		if err := spec.Params[i].Check(x); err != nil {
			return fieldError("learner.params."+p, "%v %v", x, err)
		}
	}
	return nil
}

// checkFill: fill values and declared classes (checkFillChoices).
func (w *Workspace) checkFill() *WorkspaceError {
	if field, rule := w.checkFillChoices(); field != "" {
		return fieldError(field, "%s", rule)
	}
	return nil
}

// checkPrivacy checks the privacy settings with the mechanism's own rules
// (mechanism.ValidatePrivacy for ε, δ and the noise, ValidateH, and
// ValidateK unless k is automatic): a project file accepts exactly the
// parameters a release accepts, except the checks that need the data (k
// against the learner's dimension, the composition of laplace-approx,
// which Params.Validate makes when the release is prepared). Besides, k
// has one value per feature.
func (w *Workspace) checkPrivacy() *WorkspaceError {
	pr := w.Privacy
	if err := mechanism.ValidatePrivacy(pr.Epsilon, pr.Delta, pr.Noise); err != nil {
		return privacyError(err)
	}
	if err := mechanism.ValidateH(pr.H); err != nil {
		return privacyError(err)
	}
	switch pr.Mechanism {
	case "", synopsis.MechanismBernstein, synopsis.MechanismGP, synopsis.MechanismTrig, synopsis.MechanismOutputPerturbation:
	default:
		return fieldError("privacy.mechanism", "%.40q is not a known mechanism; want %s, %s, %s or %s", pr.Mechanism,
			synopsis.MechanismBernstein, synopsis.MechanismGP, synopsis.MechanismTrig, synopsis.MechanismOutputPerturbation)
	}
	if pr.K.Auto() {
		return nil
	}
	if err := mechanism.ValidateK(pr.K); err != nil {
		return privacyError(err)
	}
	if len(w.Features) > 0 && len(pr.K) != len(w.Features) {
		return fieldError("privacy.k", "%d values for %d features; give one per feature or \"auto\"", len(pr.K), len(w.Features))
	}
	return nil
}

// privacyError turns the mechanism's *ParamError into the field
// privacy.FIELD with the mechanism's rule: "privacy.h: 11 must be between
// 1 and 10".
func privacyError(err error) *WorkspaceError {
	var pe *mechanism.ParamError
	if !errors.As(err, &pe) {
		return fieldError("privacy", "%v", err)
	}
	return fieldError("privacy."+pe.Field, "%v %s", pe.Value, pe.Rule)
}

// checkReleases: every record names its output, ledger entry and time,
// and the ε and δ it spent.
func (w *Workspace) checkReleases() *WorkspaceError {
	for i, r := range w.Releases {
		field := fmt.Sprintf("releases[%d]", i)
		switch {
		case r.Output == "":
			return fieldError(field+".output", "missing")
		case r.LedgerEntryID == "":
			return fieldError(field+".ledger_entry_id", "missing")
		case r.Time.IsZero():
			return fieldError(field+".time", "missing")
		case !isFinite(r.Epsilon) || r.Epsilon <= 0:
			return fieldError(field+".epsilon", "%v must be a finite number > 0", r.Epsilon)
		case !isFinite(r.Delta) || r.Delta < 0 || r.Delta >= 1:
			return fieldError(field+".delta", "%v must be in [0, 1)", r.Delta)
		}
	}
	return nil
}
