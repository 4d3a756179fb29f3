package project

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestWorkspaceFillChoices: project files keep the fill values and the
// declared classes; older files (drop_invalid, positive_label) still load;
// bad choices are refused naming the field.
func TestWorkspaceFillChoices(t *testing.T) {
	valid := string(readTestdata(t, "workspace", "valid.bernstein"))
	if _, err := ParseWorkspace([]byte(valid), "old.bernstein"); err != nil {
		t.Fatalf("an older project file (drop_invalid, positive_label) no longer loads: %v", err)
	}
	withFill := strings.Replace(valid, `"unit": "cm"}`, `"unit": "cm", "fill": 0.25}`, 1)
	withFill = strings.Replace(withFill, `"positive_label": 1`, `"classes": ["no", "yes"], "fill_class": "yes"`, 1)
	w, err := ParseWorkspace([]byte(withFill), "new.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	if f := w.Bounds[0].Fill; f == nil || *f != 0.25 || !slices.Equal(w.Learner.Classes, []string{"no", "yes"}) || w.Learner.FillClass != "yes" {
		t.Errorf("parsed fill %v, classes %q, fill class %q", w.Bounds[0].Fill, w.Learner.Classes, w.Learner.FillClass)
	}
	for _, tc := range []struct{ old, new, field string }{
		{`"fill": 0.25`, `"fill": 2`, "bounds[0].fill"},
		{`"classes": ["no", "yes"]`, `"classes": ["no"]`, "learner.classes"},
		{`"classes": ["no", "yes"]`, `"classes": ["1", "1.0"]`, "learner.classes"},
		{`"fill_class": "yes"`, `"fill_class": "maybe"`, "learner.fill_class"},
	} {
		_, err := ParseWorkspace([]byte(strings.Replace(withFill, tc.old, tc.new, 1)), "bad.bernstein")
		var we *WorkspaceError
		if !errors.As(err, &we) || we.Field != tc.field {
			t.Errorf("%s → %s: err = %v; want a *WorkspaceError on %s", tc.old, tc.new, err, tc.field)
		}
	}
}
