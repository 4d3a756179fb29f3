package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

func TestWriteFileAtomic(t *testing.T) {
	tests := []struct {
		name      string
		existing  *string // content before the write, nil = absent
		overwrite bool
		wantErr   error
		want      string // content after
	}{
		{"new file", nil, false, nil, "new"},
		{"new file, overwrite", nil, true, nil, "new"},
		{"existing, no overwrite", ptr("old"), false, ErrExists, "old"},
		{"existing, overwrite", ptr("old"), true, nil, "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if tc.existing != nil {
				if err := os.WriteFile(path, []byte(*tc.existing), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteAtomic(path, []byte("new"), 0o640, tc.overwrite)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path", err)
			}
			got, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if string(got) != tc.want {
				t.Errorf("content = %q, want %q", got, tc.want)
			}
			fsops.AssertNoTemp(t, dir)
			if tc.wantErr == nil {
				fi, _ := os.Stat(path)
				if fi.Mode().Perm() != 0o640 {
					t.Errorf("perm = %v, want 0640", fi.Mode().Perm())
				}
			}
		})
	}
}

func TestWriteFileAtomicErrExistsMessage(t *testing.T) {
	err := error(&ExistsError{Path: "out/x.json"})
	if !errors.Is(err, ErrExists) {
		t.Fatal("ExistsError is not ErrExists")
	}
	for _, want := range []string{"out/x.json", "--force", "another name"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func ptr(s string) *string { return &s }

// TestWriteInto: the directory is created, the files are written in order,
// and an existing file stops the writing there without overwrite: the
// paths before it are returned, it keeps its content, the later files are
// not written.
func TestWriteInto(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	paths, err := WriteInto(dir, false, Named{"a.csv", []byte("a")}, Named{"b.csv", []byte("b")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")}; !slices.Equal(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err = WriteInto(dir, false, Named{"c.csv", []byte("c")}, Named{"d.csv", []byte("new")}, Named{"e.csv", []byte("e")})
	if !errors.Is(err, ErrExists) {
		t.Fatalf("error %v, want ErrExists", err)
	}
	if want := []string{filepath.Join(dir, "c.csv")}; !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "d.csv")); string(b) != "keep" {
		t.Errorf("d.csv = %q, overwritten without overwrite", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "e.csv")); !os.IsNotExist(err) {
		t.Errorf("e.csv written after the refusal (%v)", err)
	}
	if _, err := WriteInto(dir, true, Named{"d.csv", []byte("new")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "d.csv")); string(b) != "new" {
		t.Errorf("d.csv = %q after overwrite", b)
	}
}
