package curator

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectSaveTarget checks the project "Save as" target: the name is
// completed with .bernstein, an existing file is reported (so the form asks
// before replacing it), bad names and folders are refused, and checking a
// target never creates or truncates a file (Fyne's save dialog did both).
func TestProjectSaveTarget(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.bernstein")
	if err := os.WriteFile(existing, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.bernstein"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		wantPath   string
		wantExists bool
		wantErr    bool
	}{
		{"study", filepath.Join(dir, "study.bernstein"), false, false},
		{"  study.bernstein ", filepath.Join(dir, "study.bernstein"), false, false},
		{"study.BERNSTEIN", filepath.Join(dir, "study.BERNSTEIN"), false, false},
		{"data.csv", filepath.Join(dir, "data.csv.bernstein"), false, false},
		{"old", existing, true, false},
		{"folder", "", false, true},
		{"", "", false, true},
		{"..", "", false, true},
		{"sub" + string(os.PathSeparator) + "x", "", false, true},
	} {
		path, exists, err := projectSaveTarget(dir, tc.name)
		if (err != nil) != tc.wantErr || path != tc.wantPath || exists != tc.wantExists {
			t.Errorf("projectSaveTarget(%q) = %q, %v, %v; want %q, %v, error %v",
				tc.name, path, exists, err, tc.wantPath, tc.wantExists, tc.wantErr)
		}
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "keep me" {
		t.Errorf("existing project changed by checking targets: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "study.bernstein")); !os.IsNotExist(err) {
		t.Errorf("checking a target created a file: %v", err)
	}
}
