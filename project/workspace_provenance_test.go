package project

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestWorkspaceEndProvenance: a project file may carry per-end sources;
// inconsistent ones are refused, and an old file (from_data only) still
// reads.
func TestWorkspaceEndProvenance(t *testing.T) {
	valid := string(readTestdata(t, "workspace", "valid.bernstein"))
	const old = `"from_data": true, "acknowledged_at"`
	if !strings.Contains(valid, old) {
		t.Fatalf("valid file lacks %q", old)
	}
	if _, err := ParseWorkspace([]byte(valid), "p.bernstein"); err != nil {
		t.Fatalf("old file: %v", err)
	}
	ok := strings.Replace(valid, old, `"from_data": true, "lo_source": "typed", "hi_source": "data", "acknowledged_at"`, 1)
	w, err := ParseWorkspace([]byte(ok), "p.bernstein")
	if err != nil || w.Bounds[1].LoSource != synopsis.EndTyped || w.Bounds[1].HiSource != synopsis.EndFromData {
		t.Fatalf("per-end file: %+v, %v", w, err)
	}
	for name, repl := range map[string]string{
		"data end without from_data": `"lo_source": "typed", "hi_source": "data", "acknowledged_at"`,
		"unknown source":             `"from_data": true, "lo_source": "guess", "hi_source": "data", "acknowledged_at"`,
		"private without estimate":   `"from_data": true, "lo_source": "private", "hi_source": "data", "acknowledged_at"`,
	} {
		input := strings.Replace(valid, old, repl, 1)
		if _, err := ParseWorkspace([]byte(input), "p.bernstein"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
