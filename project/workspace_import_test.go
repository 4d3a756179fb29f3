package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// withImport is the valid project file with an "import" object added to
// its dataset.
func withImport(t *testing.T, obj string) string {
	t.Helper()
	valid := string(readTestdata(t, "workspace", "valid.bernstein"))
	const at = `"drop_invalid": true`
	if !strings.Contains(valid, at) {
		t.Fatalf("valid file lacks %q", at)
	}
	return strings.Replace(valid, at, at+`, "import": `+obj, 1)
}

// TestWorkspaceImport: the import options are saved and loaded; a project
// file without them (every older file) reads the CSV as before.
func TestWorkspaceImport(t *testing.T) {
	old, err := ParseWorkspace(readTestdata(t, "workspace", "valid.bernstein"), "valid.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	if old.Dataset.Import != nil || old.ImportOptions() != (dataset.ImportOptions{}) {
		t.Errorf("older file: import %+v, options %+v; want none, defaults", old.Dataset.Import, old.ImportOptions())
	}
	tests := []struct {
		obj  string
		want dataset.ImportOptions
	}{
		{`{"header_row": 3, "delimiter": ";", "decimal_comma": true, "comment": "#"}`, dataset.ImportOptions{HeaderRow: 3, Delimiter: ';', DecimalComma: true, Comment: "#"}},
		{`{"header_row": 2, "no_header": true}`, dataset.ImportOptions{HeaderRow: 2, NoHeader: true}},
		{`{"delimiter": "tab"}`, dataset.ImportOptions{Delimiter: '\t'}},
		{`{"delimiter": "auto", "header_row": 2}`, dataset.ImportOptions{HeaderRow: 2}},
		{`{"delimiter": "|"}`, dataset.ImportOptions{Delimiter: '|'}},
		{`{}`, dataset.ImportOptions{}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		w, err := ParseWorkspace([]byte(withImport(t, tc.obj)), "p.bernstein")
		if err != nil {
			t.Fatalf("%s: %v", tc.obj, err)
		}
		if got := w.ImportOptions(); got != tc.want {
			t.Errorf("%s: options %+v, want %+v", tc.obj, got, tc.want)
		}
		w.Dataset.Import = NewWorkspaceImport(w.ImportOptions())
		p := filepath.Join(dir, "p.bernstein")
		if err := SaveWorkspace(p, w, true); err != nil {
			t.Fatal(err)
		}
		back, err := LoadWorkspace(p)
		if err != nil || back.ImportOptions() != tc.want {
			t.Errorf("%s: saved and loaded: %+v, %v", tc.obj, back.ImportOptions(), err)
		}
		saved, _ := os.ReadFile(p)
		if strings.Contains(string(saved), `"import"`) != (tc.want != dataset.ImportOptions{}) {
			t.Errorf("%s: saved file:\n%s", tc.obj, saved)
		}
	}
	if NewWorkspaceImport(dataset.ImportOptions{HeaderRow: 1}) != nil {
		t.Error("header row 1 (the default) is recorded")
	}
}

func TestWorkspaceImportInvalid(t *testing.T) {
	tests := []struct {
		obj, field, contains string
	}{
		{`{"delimiter": "\""}`, "dataset.import.delimiter", `delimiter '"' cannot be a quote`},
		{`{"delimiter": ";;"}`, "dataset.import.delimiter", "want one character"},
		{`{"header_row": -1}`, "dataset.import", "header row -1: must be a line number from 1 to 1000"},
		{`{"header_row": 5000}`, "dataset.import", "header row 5000"},
		{`{"delimiter": ",", "decimal_comma": true}`, "dataset.import", "cannot be used with a decimal comma"},
		{`{"comment": "//"}`, "dataset.import", "must be one character"},
		{`{"skip_rows": 2}`, "skip_rows", "unknown field"},
		{`{"header_row": "3"}`, "dataset.import.header_row", "must be an integer"},
		{`{"comment": "#", "comment": "%"}`, "dataset.import.comment", "appears twice"},
	}
	for _, tc := range tests {
		_, err := ParseWorkspace([]byte(withImport(t, tc.obj)), "p.bernstein")
		var we *WorkspaceError
		if !errors.As(err, &we) || we.File != "p.bernstein" || we.Field != tc.field || !strings.Contains(we.Rule, tc.contains) {
			t.Errorf("%s: err = %v (field %q); want field %q, %q", tc.obj, err, fieldOf(we), tc.field, tc.contains)
		}
	}
}

func fieldOf(we *WorkspaceError) string {
	if we == nil {
		return ""
	}
	return we.Field
}
