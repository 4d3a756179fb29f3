package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

func readTestdata(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseWorkspaceValid(t *testing.T) {
	w, err := ParseWorkspace(readTestdata(t, "workspace", "valid.bernstein"), "valid.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	ack := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	pos := 1.0
	want := &Workspace{
		Version: 1, Title: "Two classes", Note: "SVM on the demo data",
		Dataset:  WorkspaceDataset{Path: "two-class.csv", Hash: "eadc28d31b455fd96a9007c1b16fce637af61859776c6e438943d6241f7534d8", DropInvalid: true},
		Features: []string{"x1", "x2"}, Label: "label",
		Bounds:  []ColumnBounds{{Column: "x1", Lo: 0, Hi: 1, Unit: "cm"}, {Column: "x2", Lo: -0.2, Hi: 1.2, FromData: true, AcknowledgedAt: &ack}},
		Learner: LearnerSettings{Kind: learners.KindSVM, Params: learners.Values{"C": {1}, "sigma": {1}}, PositiveLabel: &pos},
		Privacy: PrivacySettings{Epsilon: 0.5, Delta: 1e-6, Noise: mechanism.NoiseGaussian, H: 2, K: KSetting{10, 12}},
		Releases: []ReleaseRecord{{Output: "svm.bsyn", LedgerEntryID: "9f2c41d07a6b3e15",
			Time: time.Date(2026, 3, 1, 10, 12, 44, 0, time.UTC), Epsilon: 0.5, Delta: 1e-6}},
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", w, want)
	}
	m, err := ParseWorkspace(readTestdata(t, "workspace", "minimal.bernstein"), "minimal.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	if !m.Privacy.K.Auto() || m.Learner.Kind != "" {
		t.Errorf("minimal: %+v", m)
	}
}

// TestParseWorkspaceInvalid mutates the valid file; each mutation must be
// refused with a *WorkspaceError naming the field. The messages are pinned
// in testdata/workspace/errors.golden.
func TestParseWorkspaceInvalid(t *testing.T) {
	valid := string(readTestdata(t, "workspace", "valid.bernstein"))
	tests := []struct {
		name     string
		old, new string // replace old by new in the valid file ("" old: new is the whole file)
		field    string
		line     int // 0: not checked
		contains string
	}{
		{"empty file", "", "", "", 1, "unexpected end of JSON input"},
		{"not JSON", "", "hello", "", 1, "not valid JSON"},
		{"syntax error", `"title": "Two classes",`, `"title": "Two classes",,`, "", 3, "not valid JSON"},
		{"truncated", "", valid[:200], "", 7, "unexpected end of JSON input"},
		{"not an object", "", "[1,2]", "", 1, "must be a JSON object (a project), not a JSON array"},
		{"missing version", `"version": 1,`, ``, "version", 0, "missing"},
		{"newer version", `"version": 1,`, `"version": 2,`, "version", 0, "version 2 is not supported"},
		{"version as string", `"version": 1,`, `"version": "1",`, "version", 0, "not supported"},
		{"unknown top-level field", `"title"`, `"colour": "red", "title"`, "colour", 3, "unknown field"},
		{"unknown nested field", `"kind": "svm",`, `"kind": "svm", "solver": "x",`, "solver", 0, "unknown field"},
		{"wrong type", `"epsilon": 0.5`, `"epsilon": "0.5"`, "privacy.epsilon", 21, "must be a number, not a JSON string"},
		{"duplicate top-level key", `"title"`, `"note": "a", "note": "b", "title"`, "note", 3, `key "note" appears twice`},
		{"duplicate nested key", `"epsilon": 0.5,`, `"epsilon": 0.5, "epsilon": 5,`, "privacy.epsilon", 21, "appears twice"},
		{"duplicate parameter", `"C": [1]`, `"C": [1], "C": [100]`, "learner.params.C", 0, `key "C" appears twice`},
		{"key in another case", `"version": 1,`, `"Version": 1,`, "Version", 2, `must be spelled "version"`},
		{"nested key in another case", `"epsilon": 0.5`, `"EPSILON": 0.5`, "privacy.EPSILON", 21, `must be spelled "epsilon"`},
		{"key in another case in an array element", `{"column": "x1", "lo": 0`, `{"Column": "x1", "lo": 0`, "bounds[0].Column", 0, `must be spelled "column"`},
		{"trailing data", "", valid + "{}", "", 31, "after top-level value"},
		{"unknown mechanism", `"epsilon": 0.5,`, `"epsilon": 0.5, "mechanism": "laplace-histogram",`, "privacy.mechanism", 0, "not a known mechanism"},
		{"missing dataset path", `"path": "two-class.csv",`, ``, "dataset.path", 0, "missing"},
		{"bad dataset hash", `"eadc28d3`, `"EADC28D3`, "dataset.hash", 0, "not a hex SHA-256"},
		{"empty feature", `["x1", "x2"]`, `["x1", ""]`, "features[1]", 0, "empty column name"},
		{"duplicate feature", `["x1", "x2"]`, `["x1", "x1"]`, "features[1]", 0, "listed twice"},
		{"feature is label", `["x1", "x2"]`, `["x1", "label"]`, "features[1]", 0, "also the label"},
		{"bounds for unknown column", `{"column": "x1", "lo": 0`, `{"column": "x9", "lo": 0`, "bounds[0].column", 0, "neither a feature nor the label"},
		{"bounds twice", `{"column": "x2", "lo": -0.2`, `{"column": "x1", "lo": -0.2`, "bounds[1].column", 0, "bounds twice"},
		{"lo = hi", `"lo": 0, "hi": 1`, `"lo": 1, "hi": 1`, "bounds[0]", 0, "must be less than"},
		{"unit with a control character", `"unit": "cm"`, `"unit": "c\u0007m"`, "bounds[0].unit", 0, "control character U+0007"},
		{"unit too long", `"unit": "cm"`, `"unit": "` + strings.Repeat("m", 65) + `"`, "bounds[0].unit", 0, "at most 64"},
		{"drop_invalid not a boolean", `"drop_invalid": true`, `"drop_invalid": "yes"`, "dataset.drop_invalid", 0, "must be true or false"},
		{"data bounds without acknowledgement", `, "acknowledged_at": "2026-03-01T10:00:00Z"`, ``, "bounds[1].acknowledged_at", 0, "acknowledgement"},
		{"unknown learner", `"kind": "svm"`, `"kind": "deep-net"`, "learner.kind", 0, `unknown learner "deep-net"; valid learners are kde,`},
		{"unknown parameter", `"C": [1]`, `"gamma": [1]`, "learner.params.gamma", 0, `not a parameter of learner "svm"`},
		{"parameter out of range", `"sigma": [1]`, `"sigma": [0]`, "learner.params.sigma", 0, "0 must be between"},
		{"parameters without learner", `"kind": "svm",`, ``, "learner.params", 0, "no learner kind"},
		{"empty param", `"C": [1]`, `"C": []`, "learner.params", 0, "at least one value"},
		{"epsilon zero", `"epsilon": 0.5,`, `"epsilon": 0,`, "privacy.epsilon", 0, "> 0"},
		{"epsilon negative", `"epsilon": 0.5,`, `"epsilon": -1,`, "privacy.epsilon", 0, "> 0"},
		{"unknown noise", `"noise": "gaussian"`, `"noise": "cauchy"`, "privacy.noise", 0, "must be one of"},
		{"delta zero with gaussian", `"delta": 1e-6,
    "noise"`, `"delta": 0,
    "noise"`, "privacy.delta", 0, "(0,1)"},
		{"delta with laplace", `"noise": "gaussian"`, `"noise": "laplace"`, "privacy.delta", 0, "must be 0"},
		{"h zero", `"h": 2`, `"h": 0`, "privacy.h", 0, "between 1 and 10"},
		{"h eleven", `"h": 2`, `"h": 11`, "privacy.h", 0, "between 1 and 10"},
		{"h fractional", `"h": 2`, `"h": 2.5`, "privacy.h", 24, "must be an integer, not a JSON number 2.5"},
		{"k zero", `[10, 12]`, `[10, 0]`, "privacy.k[1]", 0, "between 1 and 1000"},
		// The mechanism's limits, which the project file shares
		// (mechanism.ValidatePrivacy, ValidateK): it used to take them.
		{"epsilon below the noise library's floor", `"epsilon": 0.5,`, `"epsilon": 1e-20,`, "privacy.epsilon", 0, "2^-50"},
		{"k above MaxK", `[10, 12]`, `[10, 1001]`, "privacy.k[1]", 0, "between 1 and 1000"},
		{"k lattice too large", `[10, 12]`, `[1000, 1000, 1000]`, "privacy.k", 0, "coefficients"},
		{"k wrong length", `[10, 12]`, `[10]`, "privacy.k", 0, "one per feature"},
		{"k bad word", `[10, 12]`, `"automatic"`, "privacy.k", 0, `must be "auto"`},
		{"k empty", `[10, 12]`, `[]`, "privacy.k", 0, `must be "auto"`},
		{"release without ledger id", `"ledger_entry_id": "9f2c41d07a6b3e15", `, ``, "releases[0].ledger_entry_id", 0, "missing"},
		{"release without time", `"time": "2026-03-01T10:12:44Z", `, ``, "releases[0].time", 0, "missing"},
	}
	var golden bytes.Buffer
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			input := tc.new
			if tc.old != "" {
				if !strings.Contains(valid, tc.old) {
					t.Fatalf("valid file lacks %q", tc.old)
				}
				input = strings.Replace(valid, tc.old, tc.new, 1)
			}
			_, err := ParseWorkspace([]byte(input), "p.bernstein")
			var we *WorkspaceError
			if !errors.As(err, &we) {
				t.Fatalf("err = %v (%T), want *WorkspaceError", err, err)
			}
			if we.File != "p.bernstein" || we.Field != tc.field || (tc.line != 0 && we.Line != tc.line) {
				t.Errorf("file, field, line = %q, %q, %d; want p.bernstein, %q, %d (%v)", we.File, we.Field, we.Line, tc.field, tc.line, err)
			}
			if !strings.Contains(we.Rule, tc.contains) {
				t.Errorf("rule %q lacks %q", we.Rule, tc.contains)
			}
			fmt.Fprintf(&golden, "%s\n\t%v\n", tc.name, err)
		})
	}
	checkGolden(t, filepath.Join("testdata", "workspace", "errors.golden"), golden.Bytes())
}

func TestSaveLoadWorkspace(t *testing.T) {
	dir := t.TempDir()
	w, err := ParseWorkspace(readTestdata(t, "workspace", "valid.bernstein"), "valid.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "proj.bernstein")
	if err := SaveWorkspace(p, w, false); err != nil {
		t.Fatal(err)
	}
	if w.Path() != p {
		t.Errorf("Path() = %q, want %q", w.Path(), p)
	}
	saved, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, filepath.Join("testdata", "workspace", "saved.golden"), saved)
	got, err := LoadWorkspace(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", got, w)
	}
	if err := SaveWorkspace(p, w, false); !errors.Is(err, fileio.ErrExists) {
		t.Errorf("save over existing without overwrite: err = %v, want ErrExists", err)
	}
	w.Title = "changed"
	if err := SaveWorkspace(p, w, true); err != nil {
		t.Fatal(err)
	}
	if got, err := LoadWorkspace(p); err != nil || got.Title != "changed" {
		t.Errorf("after overwrite: %v, %v", got, err)
	}
	var we *WorkspaceError
	if err := SaveWorkspace(filepath.Join(dir, "proj.json"), w, false); !errors.As(err, &we) || !strings.Contains(err.Error(), ".bernstein") {
		t.Errorf("wrong extension: err = %v", err)
	}
	w.Privacy.Epsilon = -1
	if err := SaveWorkspace(filepath.Join(dir, "bad.bernstein"), w, false); !errors.As(err, &we) || we.Field != "privacy.epsilon" {
		t.Errorf("invalid workspace saved: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.bernstein")); !errors.Is(err, os.ErrNotExist) {
		t.Error("invalid workspace written")
	}
	if _, err := LoadWorkspace(filepath.Join(dir, "none.bernstein")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
	big := filepath.Join(dir, "big.bernstein")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), maxWorkspaceBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkspace(big); !errors.As(err, &we) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: err = %v", err)
	}
}

func TestWorkspaceCheckDataset(t *testing.T) {
	dir := t.TempDir()
	paths, err := dataset.WriteDemoData(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dataset.ReadCSV(paths[0], dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := NewWorkspace(d)
	w.Dataset.Path = filepath.Base(paths[0]) // relative to the project file
	w.Features = []string{"x"}
	w.Bounds = []ColumnBounds{{Column: "x", Lo: 0, Hi: 1}}
	p := filepath.Join(dir, "kde.bernstein")
	if err := SaveWorkspace(p, w, false); err != nil {
		t.Fatal(err)
	}
	w, err = LoadWorkspace(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.DatasetPath(); got != paths[0] {
		t.Errorf("DatasetPath = %q, want %q", got, paths[0])
	}
	if err := w.CheckDataset(); err != nil {
		t.Fatalf("unchanged dataset: %v", err)
	}
	b, err := w.BoundsFor([]string{"x"})
	if err != nil || !reflect.DeepEqual(b, []dataset.Bounds{{Lo: 0, Hi: 1}}) {
		t.Errorf("BoundsFor = %v, %v", b, err)
	}
	if _, err := w.BoundsFor([]string{"y"}); err == nil || !strings.Contains(err.Error(), `no bounds for column "y"`) {
		t.Errorf("BoundsFor(y): err = %v", err)
	}
	// One byte more: a different dataset.
	f, err := os.OpenFile(paths[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("0.5\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var dc *DatasetChangedError
	if err := w.CheckDataset(); !errors.As(err, &dc) || dc.Want != d.Hash || dc.Path != paths[0] {
		t.Errorf("changed dataset: err = %v", err)
	}
	if err := os.Remove(paths[0]); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckDataset(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dataset: err = %v", err)
	}
}

func TestWorkspaceAddRelease(t *testing.T) {
	l := openTestLedger(t)
	d := dataset.DemoKDE1D(dataset.DemoKDE1DSeed)
	w := NewWorkspace(d)
	e, err := l.Reserve(ledger.Entry{DatasetHash: d.Hash, Epsilon: w.Privacy.Epsilon, Output: "kde.bsyn"}, false)
	if err != nil {
		t.Fatal(err)
	}
	w.AddRelease(e)
	if err := w.validate("w"); err != nil {
		t.Fatal(err)
	}
	r := w.Releases[0]
	if r.LedgerEntryID != e.ID || r.Output != "kde.bsyn" || r.Epsilon != 0.5 || !r.Time.Equal(e.Time) {
		t.Errorf("release record = %+v", r)
	}
}

// TestSaveWorkspaceFaults interrupts SaveWorkspace over an existing project
// at every write step: the file always loads as the old or the new project.
func TestSaveWorkspaceFaults(t *testing.T) {
	base, err := ParseWorkspace(readTestdata(t, "workspace", "valid.bernstein"), "valid.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	fsops.ForEach(t, func(t *testing.T, dir string, f *fsops.Faults) {
		p := filepath.Join(dir, "proj.bernstein")
		old := *base
		old.Title = "old"
		if err := SaveWorkspace(p, &old, false); err != nil {
			t.Fatal(err)
		}
		fsops.Install(t, f)
		nw := *base
		nw.Title = "new"
		serr := SaveWorkspace(p, &nw, true)
		if f.Hit && serr == nil {
			t.Errorf("fault at %s not reported", f.Faulted())
		}
		got, err := LoadWorkspace(p)
		if err != nil {
			t.Fatalf("torn project file after a fault at %s: %v", f.Faulted(), err)
		}
		if got.Title != "new" && (got.Title != "old" || serr == nil) {
			t.Errorf("title %q after save returned %v", got.Title, serr)
		}
	})
}

func TestKSettingJSON(t *testing.T) {
	tests := []struct {
		k    KSetting
		json string
	}{
		{nil, `"auto"`},
		{KSetting{}, `"auto"`},
		{KSetting{3}, `[3]`},
		{KSetting{4, 5}, `[4,5]`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(tc.k)
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.k, b, err, tc.json)
		}
	}
}
