package main

import (
	"encoding/xml"
	"fmt"
	"image"
	_ "image/png" // the icon is a PNG
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/fyne-io/image/ico"
	"github.com/josephspurrier/goversioninfo"
)

// sysoOptions are the inputs of a resource object.
type sysoOptions struct {
	Icon    string // PNG file
	Name    string // product name, also the manifest's assembly name
	Version string // x.y.z
	Build   int    // fourth version field, ≥ 0
	Arch    string // GOARCH: amd64, 386, arm64
}

var versionRule = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// combined is the four-field version fyne package writes: x.y.z.build.
func (o sysoOptions) combined() string { return fmt.Sprintf("%s.%d", o.Version, o.Build) }

// validate checks the options once, where they enter.
func (o sysoOptions) validate() error {
	switch {
	case o.Icon == "":
		return fmt.Errorf("syso: -icon is required")
	case o.Name == "":
		return fmt.Errorf("syso: -name is required")
	case !versionRule.MatchString(o.Version):
		return fmt.Errorf("syso: -version %q must be x.y.z (digits)", o.Version)
	case o.Build < 0 || o.Build > 0xffff:
		return fmt.Errorf("syso: -build %d must be in [0, 65535] (a 16-bit version field)", o.Build)
	}
	return nil
}

// manifestTemplate is fyne package's Windows manifest (fyne.io/tools v1.7.4,
// internal/templates/data/app.manifest).
var manifestTemplate = template.Must(template.New("manifest").Parse(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly xmlns="urn:schemas-microsoft-com:asm.v1" manifestVersion="1.0" xmlns:asmv3="urn:schemas-microsoft-com:asm.v3">
<assemblyIdentity version="{{.Version}}" processorArchitecture="*" name="{{.Name}}" type="win32"/>
</assembly>`))

// writeSyso writes the resource object of o to out: the icon as fyne
// package encodes it, the version resource and the manifest. Temporary
// files go to a private directory that is removed afterwards.
func writeSyso(o sysoOptions, out string) error {
	if err := o.validate(); err != nil {
		return err
	}
	f, err := os.Open(o.Icon)
	if err != nil {
		return fmt.Errorf("syso: %w", err)
	}
	img, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("syso: %s: %w", o.Icon, err)
	}
	tmp, err := os.MkdirTemp("", "winres")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	icoPath := filepath.Join(tmp, "app.ico")
	manifestPath := filepath.Join(tmp, "app.manifest")
	if err := writeWith(icoPath, func(f *os.File) error { return ico.Encode(f, img) }); err != nil {
		return err
	}
	err = writeWith(manifestPath, func(f *os.File) error {
		return manifestTemplate.Execute(f, struct{ Version, Name string }{o.combined(), xmlEscape(o.Name)})
	})
	if err != nil {
		return err
	}
	fv, err := goversioninfo.NewFileVersion(o.combined())
	if err != nil {
		return fmt.Errorf("syso: %w", err)
	}
	vi := &goversioninfo.VersionInfo{IconPath: icoPath, ManifestPath: manifestPath}
	vi.ProductName = o.Name
	vi.FileDescription = o.Name
	vi.StringFileInfo.ProductVersion = o.combined()
	vi.FixedFileInfo.FileVersion = fv
	vi.Build()
	vi.Walk()
	if err := vi.WriteSyso(out, o.Arch); err != nil {
		return fmt.Errorf("syso: %s: %w", out, err)
	}
	return nil
}

// writeWith creates path, lets write fill it and closes it, reporting the
// first error.
func writeWith(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// xmlEscape escapes s for an XML attribute value.
func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
