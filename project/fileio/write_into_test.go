package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

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
