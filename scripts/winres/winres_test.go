package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestSyso writes a resource object for icon and version into dir.
func writeTestSyso(t *testing.T, dir, name, icon, version string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	o := sysoOptions{Icon: icon, Name: "Bernstein Release", Version: version, Build: 7, Arch: "amd64"}
	if err := writeSyso(o, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// otherIcon writes a 16x16 PNG unlike icons/icon.png.
func otherIcon(t *testing.T, dir string) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	img.Set(3, 3, color.RGBA{R: 255, A: 255})
	path := filepath.Join(dir, "other.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheck writes resource objects as scripts/dist.sh does and reads them
// back with the checker (a .syso is a COFF object with the same resource
// tree as the linked executable).
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	icon := filepath.Join("..", "..", "icons", "icon.png")
	a := writeTestSyso(t, dir, "a.syso", icon, "0.1.0")
	b := writeTestSyso(t, dir, "b.syso", icon, "0.1.0")
	newer := writeTestSyso(t, dir, "newer.syso", icon, "0.2.0")
	other := writeTestSyso(t, dir, "other.syso", otherIcon(t, dir), "0.1.0")
	missing := filepath.Join(dir, "missing.exe")
	// A resource object cut inside its resource section.
	whole, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.syso")
	if err := os.WriteFile(cut, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "text.exe")
	if err := os.WriteFile(text, []byte("not an executable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		version string
		files   []string
		want    string // "" = passes; else a part of the error
	}{
		{"same resources", "0.1.0", []string{a, b}, ""},
		{"version with build number", "0.1.0.7", []string{a}, ""},
		{"no version asked", "", []string{a, newer}, "version 0.2.0.7 differs"},
		{"wrong version", "0.2.0", []string{a}, "does not start with 0.2.0"},
		{"a prefix that is not a field", "0.1", []string{a}, ""},
		{"a partial field is no match", "0.1.", []string{a}, "does not start with"},
		{"different icon", "0.1.0", []string{a, other}, "icon differs"},
		{"missing file", "0.1.0", []string{missing}, "missing.exe"},
		{"cut object", "0.1.0", []string{cut}, "cut.syso"},
		{"not an executable", "0.1.0", []string{text}, "text.exe"},
		{"one bad file fails the lot", "0.1.0", []string{a, text, b}, "text.exe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := checkExecutables(tt.version, tt.files, &out)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("check failed: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("check error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestCheckReportsResources: the summary line names what was found.
func TestCheckReportsResources(t *testing.T) {
	dir := t.TempDir()
	a := writeTestSyso(t, dir, "a.syso", filepath.Join("..", "..", "icons", "icon.png"), "1.2.3")
	var out strings.Builder
	if err := checkExecutables("1.2.3", []string{a}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "version 1.2.3.7, manifest true"; !strings.Contains(out.String(), want) {
		t.Fatalf("output %q lacks %q", out.String(), want)
	}
}

func TestSysoOptionsValidate(t *testing.T) {
	ok := sysoOptions{Icon: "i.png", Name: "n", Version: "1.2.3", Build: 4, Arch: "amd64"}
	tests := []struct {
		name   string
		change func(*sysoOptions)
		want   string
	}{
		{"valid", func(*sysoOptions) {}, ""},
		{"no icon", func(o *sysoOptions) { o.Icon = "" }, "-icon"},
		{"no name", func(o *sysoOptions) { o.Name = "" }, "-name"},
		{"two fields", func(o *sysoOptions) { o.Version = "1.2" }, "x.y.z"},
		{"tag prefix", func(o *sysoOptions) { o.Version = "v1.2.3" }, "x.y.z"},
		{"negative build", func(o *sysoOptions) { o.Build = -1 }, "65535"},
		{"build too large", func(o *sysoOptions) { o.Build = 65536 }, "65535"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.change(&o)
			err := o.validate()
			if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("validate() = %v, want error containing %q", err, tt.want)
			}
		})
	}
}
