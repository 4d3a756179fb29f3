package fileio

import (
	"os"
	"path/filepath"
)

// Named is one file of WriteInto: its name inside the directory and its
// bytes.
type Named struct {
	Name string
	Data []byte
}

// WriteInto creates dir if missing (mode 0755) and writes the files into it
// in order, each with WriteAtomic (mode 0644; an existing file is an
// *ExistsError unless overwrite). It returns the paths written, also on
// error: the files before the failing one are complete and stay. Used by
// the demo data and the figure reproductions.
func WriteInto(dir string, overwrite bool, files ...Named) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		if err := WriteAtomic(p, f.Data, 0o644, overwrite); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
