package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

const (
	// WorkspaceVersion is the project-file format this program reads and
	// writes.
	WorkspaceVersion = 1
	// WorkspaceExt is the extension of project files.
	WorkspaceExt = ".bernstein"
	// maxWorkspaceBytes caps the size of a project file read.
	maxWorkspaceBytes = 16 << 20
)

// Workspace is the curator's project file: which dataset, which columns
// with which public bounds, which learner with which parameters, which
// privacy settings, and the releases made so far. It is saved as indented
// JSON with the extension .bernstein.
//
// A Workspace holds no data values, but it may hold data-derived bounds
// (FromData), which the curator has acknowledged as a leak.
type Workspace struct {
	Version  int              `json:"version"` // WorkspaceVersion
	Title    string           `json:"title,omitempty"`
	Note     string           `json:"note,omitempty"`
	Dataset  WorkspaceDataset `json:"dataset"`
	Features []string         `json:"features"`        // feature columns, in axis order
	Label    string           `json:"label,omitempty"` // label column, if the learner needs one
	Bounds   []ColumnBounds   `json:"bounds"`          // public bounds per feature (and real label) column
	Learner  LearnerSettings  `json:"learner"`
	Privacy  PrivacySettings  `json:"privacy"`
	Releases []ReleaseRecord  `json:"releases"`

	// path is the file the workspace was loaded from or saved to; relative
	// dataset paths are resolved against its directory.
	path string
}

// WorkspaceDataset identifies the dataset of a workspace.
type WorkspaceDataset struct {
	// Path is the CSV file as chosen by the curator; a relative path is
	// relative to the project file's directory.
	Path string `json:"path"`
	// Hash is the hex SHA-256 of the CSV file's bytes when the workspace
	// was set up; CheckDataset compares it with the file now.
	Hash string `json:"hash"`
	// DropInvalid is read from older project files and ignored: rows are
	// never dropped any more (n is public); missing or non-numeric values
	// are replaced by the columns' fill rules (ColumnBounds.Fill,
	// LearnerSettings.FillClass).
	DropInvalid bool `json:"drop_invalid,omitempty"`
	// Import is the file's layout (header row, delimiter, decimal comma,
	// comment character); nil: the defaults (workspace_import.go).
	Import *WorkspaceImport `json:"import,omitempty"`
}

// ColumnBounds are the public bounds of one column.
type ColumnBounds struct {
	Column string  `json:"column"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// Unit optionally names the column's unit (e.g. "years"); it is
	// recorded in the synopsis (at most 64 characters, no control
	// characters).
	Unit string `json:"unit,omitempty"`
	// FromData is true if the bounds were suggested from the data
	// (dataset.Table.SuggestBounds), which leaks the column's minimum and
	// maximum; AcknowledgedAt then records when the curator accepted that.
	FromData       bool       `json:"from_data,omitempty"`
	AcknowledgedAt *time.Time `json:"acknowledged_at,omitempty"`
	// LoSource and HiSource say per end where the bounds came from (typed,
	// data, private), with the private estimates' details; empty in files
	// written before per-end provenance, where FromData covers both ends.
	// FromData is set when either end came from the data.
	LoSource   synopsis.EndSource   `json:"lo_source,omitempty"`
	HiSource   synopsis.EndSource   `json:"hi_source,omitempty"`
	LoEstimate *synopsis.PrivateEnd `json:"lo_estimate,omitempty"`
	HiEstimate *synopsis.PrivateEnd `json:"hi_estimate,omitempty"`
	// Fill is the curator's public fill value for missing or non-numeric
	// values (FillRule), within [Lo, Hi]; nil means the midpoint.
	Fill *float64 `json:"fill,omitempty"`
}

// LearnerSettings are the learner and its parameter values.
type LearnerSettings struct {
	Kind   learners.Kind   `json:"kind,omitempty"` // empty until chosen
	Params learners.Values `json:"params,omitempty"`
	// PositiveLabel is the label value mapped to class +1 for a binary
	// label (dataset.Table.BinaryLabels).
	// PositiveLabel is read from older project files (before declared
	// classes); Classes replaces it.
	PositiveLabel *float64 `json:"positive_label,omitempty"`
	// Classes are the declared values of a binary label column, negative
	// first and positive second (dataset.Classes).
	Classes []string `json:"classes,omitempty"`
	// ClassesFromData records that the classes were declared after the
	// curator saw the values found in the label column (recorded in the
	// synopsis as output.class_labels_from_data).
	ClassesFromData bool `json:"classes_from_data,omitempty"`
	// FillClass is the declared class replacing other or missing label
	// values; empty means the negative class.
	FillClass string `json:"fill_class,omitempty"`
}

// PrivacySettings are the release parameters of the Bernstein mechanism.
type PrivacySettings struct {
	Epsilon float64             `json:"epsilon"`
	Delta   float64             `json:"delta"`
	Noise   mechanism.NoiseKind `json:"noise"`
	H       int                 `json:"h"` // iterated Bernstein order, 1 … mechanism.MaxH
	K       KSetting            `json:"k"` // cover size per axis, or "auto"
	// Mechanism is the synopsis kind the curator chose (synopsis
	// MechanismGP, MechanismTrig, MechanismOutputPerturbation); omitted
	// for Bernstein, so older project files are unchanged.
	Mechanism string `json:"mechanism,omitempty"`
}

// KSetting is the cover size per feature axis, or automatic choice: it is
// written as "auto" when empty and as a JSON array otherwise.
type KSetting []int

// Auto reports whether k is chosen automatically.
func (k KSetting) Auto() bool { return len(k) == 0 }

// MarshalJSON writes "auto" or the array.
func (k KSetting) MarshalJSON() ([]byte, error) {
	if k.Auto() {
		return []byte(`"auto"`), nil
	}
	return json.Marshal([]int(k))
}

// UnmarshalJSON reads "auto" or a non-empty array of integers.
func (k *KSetting) UnmarshalJSON(b []byte) error {
	if string(b) == `"auto"` {
		*k = nil
		return nil
	}
	var v []int
	if err := json.Unmarshal(b, &v); err != nil || len(v) == 0 {
		return &WorkspaceError{Field: "privacy.k", Rule: fmt.Sprintf(`%.40s must be "auto" or a non-empty array of integers`, b)}
	}
	*k = v
	return nil
}

// ReleaseRecord refers to one release made from the workspace.
type ReleaseRecord struct {
	Output        string    `json:"output"`          // synopsis file written
	LedgerEntryID string    `json:"ledger_entry_id"` // Entry.ID in the ledger
	Time          time.Time `json:"time"`
	Epsilon       float64   `json:"epsilon"`
	Delta         float64   `json:"delta"`
}

// WorkspaceError reports a project file that is malformed or breaks a rule.
// Field is the JSON path, e.g. "privacy.epsilon" or "bounds[1].lo"; Line
// and Column (1-based) are given where the position is known.
type WorkspaceError struct {
	File         string
	Line, Column int
	Field        string
	Rule         string
}

func (e *WorkspaceError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, ": field %s", e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Rule)
	return b.String()
}

// DatasetChangedError reports that a workspace's CSV file no longer has the
// content hash recorded in the workspace.
type DatasetChangedError struct {
	Path      string
	Want, Got string // recorded and current hex SHA-256
}

func (e *DatasetChangedError) Error() string {
	return fmt.Sprintf("%s: the dataset changed since the project was set up (SHA-256 %s, recorded %s): it counts as a different dataset in the privacy-budget ledger; check the bounds and columns and re-select the file to accept it",
		e.Path, ledger.ShortHash(e.Got), ledger.ShortHash(e.Want))
}

// NewWorkspace returns a workspace for a dataset (its path made absolute,
// so that it does not depend on the working directory) with default privacy
// settings: ε = 0.5 (half the default budget), pure ε-DP Laplace noise,
// h = 1, k automatic. Features, bounds and the learner are left for the
// curator to choose.
func NewWorkspace(d *dataset.Table) *Workspace {
	p := d.Path
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return &Workspace{
		Version: WorkspaceVersion,
		Dataset: WorkspaceDataset{Path: p, Hash: d.Hash},
		Privacy: PrivacySettings{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, H: 1},
	}
}

// Path returns the file the workspace was last loaded from or saved to.
func (w *Workspace) Path() string { return w.path }

// DatasetPath returns the dataset's path, resolving a relative path against
// the project file's directory (if the workspace has a file).
func (w *Workspace) DatasetPath() string {
	p := w.Dataset.Path
	if filepath.IsAbs(p) || w.path == "" {
		return p
	}
	return filepath.Join(filepath.Dir(w.path), p)
}

// CheckDataset hashes the workspace's CSV file and returns a
// *DatasetChangedError if it no longer matches dataset.Table.Hash (or the error
// reading it).
func (w *Workspace) CheckDataset() error {
	p := w.DatasetPath()
	got, err := dataset.HashFile(p)
	if err != nil {
		return err
	}
	if got != w.Dataset.Hash {
		return &DatasetChangedError{Path: p, Want: w.Dataset.Hash, Got: got}
	}
	return nil
}

// BoundsFor returns the bounds of cols in order, for dataset.Table.MapToUnit; a
// column without bounds is an error naming it.
func (w *Workspace) BoundsFor(cols []string) ([]dataset.Bounds, error) {
	out := make([]dataset.Bounds, len(cols))
	for i, c := range cols {
		j := slices.IndexFunc(w.Bounds, func(b ColumnBounds) bool { return b.Column == c })
		if j < 0 {
			return nil, &WorkspaceError{File: w.path, Field: "bounds", Rule: fmt.Sprintf("no bounds for column %q", c)}
		}
		out[i] = dataset.Bounds{Lo: w.Bounds[j].Lo, Hi: w.Bounds[j].Hi}
	}
	return out, nil
}

// AddRelease appends a release recorded in the ledger to the history.
func (w *Workspace) AddRelease(e ledger.Entry) {
	w.Releases = append(w.Releases, ReleaseRecord{Output: e.Output, LedgerEntryID: e.ID, Time: e.Time, Epsilon: e.Epsilon, Delta: e.Delta})
}

// SaveWorkspace validates w and writes it to path (which must end in
// .bernstein) atomically: the file holds the old or the new project, never
// a torn one. An existing file is an ErrExists error unless overwrite. On
// success w.Path() becomes path.
func SaveWorkspace(path string, w *Workspace, overwrite bool) error {
	if filepath.Ext(path) != WorkspaceExt {
		return &WorkspaceError{File: path, Rule: fmt.Sprintf("a project file name must end in %s", WorkspaceExt)}
	}
	if w.Version == 0 {
		w.Version = WorkspaceVersion
	}
	if err := w.validate(path); err != nil {
		return err
	}
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: encode project: %w", path, err)
	}
	data = append(data, '\n')
	if err := fileio.WriteAtomic(path, data, 0o644, overwrite); err != nil {
		return err
	}
	w.path = path
	return nil
}

// LoadWorkspace reads and strictly validates a project file: unknown fields,
// a missing or unknown version, wrong types and values breaking a rule are
// *WorkspaceError errors naming the field (and line and column where
// known). Files over 16 MiB are refused.
func LoadWorkspace(path string) (*Workspace, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxWorkspaceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", path, err)
	}
	if len(data) > maxWorkspaceBytes {
		return nil, &WorkspaceError{File: path, Rule: fmt.Sprintf("file is larger than %d bytes; not a project file", maxWorkspaceBytes)}
	}
	w, err := ParseWorkspace(data, path)
	if err != nil {
		return nil, err
	}
	w.path = path
	return w, nil
}

// ParseWorkspace decodes and validates project-file bytes; name is used in
// errors. See LoadWorkspace.
func ParseWorkspace(data []byte, name string) (*Workspace, error) {
	// The version decides how to read the rest, so check it first.
	var probe struct {
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, decodeError(data, name, err)
	}
	switch v := string(probe.Version); {
	case v == "":
		return nil, &WorkspaceError{File: name, Field: "version", Rule: "missing; this is not a Bernstein Release project file"}
	case v != "1":
		return nil, &WorkspaceError{File: name, Field: "version", Rule: fmt.Sprintf("version %s is not supported: this program reads version %d (a newer program may have written it)", v, WorkspaceVersion)}
	}
	if err := checkWorkspaceKeys(data, name); err != nil {
		return nil, err
	}
	var w Workspace
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, decodeError(data, name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := lineCol(data, dec.InputOffset())
		return nil, &WorkspaceError{File: name, Line: line, Column: col, Rule: "unexpected data after the project object"}
	}
	if err := w.validate(name); err != nil {
		return nil, err
	}
	return &w, nil
}

// decodeError turns an encoding/json error into a *WorkspaceError.
func decodeError(data []byte, name string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var we *WorkspaceError
	switch {
	case errors.As(err, &we): // from KSetting.UnmarshalJSON
		c := *we
		c.File = name
		return &c
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return &WorkspaceError{File: name, Line: line, Column: col, Rule: "not valid JSON: " + se.Error()}
	case errors.As(err, &te):
		line, col := lineCol(data, te.Offset)
		if te.Field == "" {
			return &WorkspaceError{File: name, Line: line, Column: col, Rule: fmt.Sprintf("must be a JSON object (a project), not a JSON %s", te.Value)}
		}
		return &WorkspaceError{File: name, Line: line, Column: col, Field: te.Field, Rule: fmt.Sprintf("must be %s, not a JSON %s", jsonKind(te.Type), te.Value)}
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return &WorkspaceError{File: name, Rule: "not valid JSON: the file ends early"}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		field := strings.Trim(f, `"`)
		e := &WorkspaceError{File: name, Field: field, Rule: "unknown field (misspelt, or written by a newer program)"}
		if i := bytes.Index(data, []byte(f)); i >= 0 {
			e.Line, e.Column = lineCol(data, int64(i))
		}
		return e
	}
	return &WorkspaceError{File: name, Rule: strings.TrimPrefix(msg, "json: ")}
}

// jsonKind names what JSON value a Go type takes, for messages.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
