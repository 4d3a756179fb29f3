package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/png" // icon images are PNGs (fyne-io/image/ico)
	"io"
	"sort"
	"strings"
)

// Resource types (winuser.h).
const (
	rtIcon      = 3
	rtGroupIcon = 14
	rtVersion   = 16
	rtManifest  = 24
)

// resource is one leaf of a resource tree: type, name id, data.
type resource struct {
	typ, id uint32
	data    []byte
}

// maxResourceDepth is the depth of a resource tree: type, name, language.
const maxResourceDepth = 3

// readResources returns the resources of a PE executable or a COFF object
// (a .syso). Data entries hold RVAs; in an object the section's virtual
// address is 0 and they are offsets into the section (plus relocations),
// so one rule serves both.
func readResources(f *pe.File) ([]resource, error) {
	var sec *pe.Section
	var rva uint32
	var dirs []pe.DataDirectory
	switch oh := f.OptionalHeader.(type) {
	case *pe.OptionalHeader64:
		dirs = oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	case *pe.OptionalHeader32:
		dirs = oh.DataDirectory[:oh.NumberOfRvaAndSizes]
	}
	if len(dirs) > pe.IMAGE_DIRECTORY_ENTRY_RESOURCE {
		rva = dirs[pe.IMAGE_DIRECTORY_ENTRY_RESOURCE].VirtualAddress
		if rva == 0 {
			return nil, fmt.Errorf("no resource directory")
		}
		for _, s := range f.Sections {
			if rva >= s.VirtualAddress && rva < s.VirtualAddress+max(s.VirtualSize, s.Size) {
				sec = s
			}
		}
	} else {
		sec = f.Section(".rsrc")
		if sec != nil {
			rva = sec.VirtualAddress
		}
	}
	if sec == nil {
		return nil, fmt.Errorf("no resource section")
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", sec.Name, err)
	}
	base := rva - sec.VirtualAddress // the directory's offset in the section
	if int(base) >= len(data) {
		return nil, fmt.Errorf("resource directory outside its section")
	}
	r := resourceReader{sec: data[base:], whole: data, wholeRVA: sec.VirtualAddress}
	var out []resource
	err = r.walk(0, 0, [maxResourceDepth]uint32{}, &out)
	return out, err
}

type resourceReader struct {
	sec      []byte // from the resource directory on
	whole    []byte // the whole section, for data RVAs
	wholeRVA uint32
}

func (r resourceReader) u32(off uint32) (uint32, error) {
	a, _, err := r.read(off, 4)
	return a, err
}

// pair reads the two little-endian uint32 at off and off+4.
func (r resourceReader) pair(off uint32) (a, b uint32, err error) { return r.read(off, 8) }

func (r resourceReader) read(off uint32, n uint64) (a, b uint32, err error) {
	if uint64(off)+n > uint64(len(r.sec)) {
		return 0, 0, fmt.Errorf("resource directory truncated at offset %d", off)
	}
	a = binary.LittleEndian.Uint32(r.sec[off:])
	if n == 8 {
		b = binary.LittleEndian.Uint32(r.sec[off+4:])
	}
	return a, b, nil
}

// walk reads the directory at off (IMAGE_RESOURCE_DIRECTORY: 16 bytes, then
// 8-byte entries; a set high bit marks a subdirectory offset or a named
// entry).
func (r resourceReader) walk(off uint32, depth int, path [maxResourceDepth]uint32, out *[]resource) error {
	if depth >= maxResourceDepth {
		return fmt.Errorf("resource tree deeper than %d", maxResourceDepth)
	}
	counts, err := r.u32(off + 12)
	if err != nil {
		return err
	}
	n := counts>>16 + counts&0xffff
	for i := range n {
		e := off + 16 + 8*i
		name, target, err := r.pair(e)
		if err != nil {
			return err
		}
		path[depth] = name
		if target&0x80000000 != 0 {
			if err := r.walk(target&0x7fffffff, depth+1, path, out); err != nil {
				return err
			}
			continue
		}
		// IMAGE_RESOURCE_DATA_ENTRY: data RVA, size, code page, reserved.
		dataRVA, size, err := r.pair(target)
		if err != nil {
			return err
		}
		start := uint64(dataRVA) - uint64(r.wholeRVA)
		if dataRVA < r.wholeRVA || start+uint64(size) > uint64(len(r.whole)) {
			return fmt.Errorf("resource data at RVA %#x (%d bytes) outside the resource section", dataRVA, size)
		}
		*out = append(*out, resource{typ: path[0], id: path[1], data: r.whole[start : start+uint64(size)]})
	}
	return nil
}

// exeResources is what check needs of one executable.
type exeResources struct {
	iconImages  [][]byte // RT_ICON data in id order
	groups      int      // RT_GROUP_ICON count
	fileVersion [4]uint16
	hasVersion  bool
	hasManifest bool
}

// vsFixedFileInfoSignature starts VS_FIXEDFILEINFO.
var vsFixedFileInfoSignature = []byte{0xbd, 0x04, 0xef, 0xfe}

func summarize(res []resource) exeResources {
	var s exeResources
	sort.Slice(res, func(i, j int) bool {
		return res[i].typ < res[j].typ || res[i].typ == res[j].typ && res[i].id < res[j].id
	})
	for _, r := range res {
		switch r.typ {
		case rtIcon:
			s.iconImages = append(s.iconImages, r.data)
		case rtGroupIcon:
			s.groups++
		case rtManifest:
			s.hasManifest = true
		case rtVersion:
			// VS_FIXEDFILEINFO: signature, struct version, FileVersionMS, FileVersionLS.
			i := bytes.Index(r.data, vsFixedFileInfoSignature)
			if i >= 0 && i+16 <= len(r.data) {
				ms := binary.LittleEndian.Uint32(r.data[i+8:])
				ls := binary.LittleEndian.Uint32(r.data[i+12:])
				s.fileVersion = [4]uint16{uint16(ms >> 16), uint16(ms), uint16(ls >> 16), uint16(ls)}
				s.hasVersion = true
			}
		}
	}
	return s
}

func (s exeResources) version() string {
	v := s.fileVersion
	return fmt.Sprintf("%d.%d.%d.%d", v[0], v[1], v[2], v[3])
}

// problems lists what is wrong with one executable's resources.
func (s exeResources) problems(version string) []string {
	var p []string
	if s.groups == 0 || len(s.iconImages) == 0 {
		p = append(p, "no icon")
	}
	for i, img := range s.iconImages {
		if _, _, err := image.DecodeConfig(bytes.NewReader(img)); err != nil {
			p = append(p, fmt.Sprintf("icon image %d does not decode: %v", i, err))
		}
	}
	if !s.hasVersion {
		p = append(p, "no version resource")
	} else if version != "" && !strings.HasPrefix(s.version()+".", version+".") {
		p = append(p, fmt.Sprintf("file version %s does not start with %s", s.version(), version))
	}
	if !s.hasManifest {
		p = append(p, "no manifest")
	}
	return p
}

// checkExecutables checks every file (see the package comment), printing
// one line per file, and returns an error naming every failure.
func checkExecutables(version string, files []string, w io.Writer) error {
	var failures []string
	var first *exeResources
	firstName := ""
	for _, name := range files {
		s, err := fileResources(name)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		fmt.Fprintf(w, "%s: %d icon image(s), version %s, manifest %v\n", name, len(s.iconImages), s.version(), s.hasManifest)
		for _, p := range s.problems(version) {
			failures = append(failures, name+": "+p)
		}
		if first == nil {
			first, firstName = &s, name
			continue
		}
		if !sameImages(first.iconImages, s.iconImages) {
			failures = append(failures, fmt.Sprintf("%s: icon differs from %s's", name, firstName))
		}
		if first.fileVersion != s.fileVersion {
			failures = append(failures, fmt.Sprintf("%s: version %s differs from %s's %s", name, s.version(), firstName, first.version()))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("%s", strings.Join(failures, "; "))
	}
	return nil
}

func fileResources(name string) (exeResources, error) {
	f, err := pe.Open(name)
	if err != nil {
		return exeResources{}, err
	}
	defer f.Close()
	res, err := readResources(f)
	if err != nil {
		return exeResources{}, err
	}
	return summarize(res), nil
}

func sameImages(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
