package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzReadWorkspace checks that no input makes ParseWorkspace panic, that
// every rejection is a *WorkspaceError naming the file, and that an
// accepted project survives a save/load round trip byte for byte. Seeds:
// testdata/workspace/*.bernstein, a few damaged variants, and
// testdata/fuzz/FuzzReadWorkspace.
func FuzzReadWorkspace(f *testing.F) {
	for _, name := range []string{"valid.bernstein", "minimal.bernstein"} {
		b := readTestdata(f, "workspace", name)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.Replace(b, []byte(`"version": 1`), []byte(`"version": 2`), 1))
		f.Add(bytes.Replace(b, []byte(`"k"`), []byte(`"K"`), 1))
	}
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"privacy":{"k":"auto"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkspace(data, "f.bernstein")
		if err != nil {
			var we *WorkspaceError
			if !errors.As(err, &we) || we.File != "f.bernstein" {
				t.Fatalf("error %v (%T) is not a *WorkspaceError naming the file", err, err)
			}
			return
		}
		b1, err := json.MarshalIndent(w, "", "  ")
		if err != nil {
			t.Fatalf("accepted project does not encode: %v", err)
		}
		w2, err := ParseWorkspace(b1, "f.bernstein")
		if err != nil {
			t.Fatalf("saved project does not load: %v\n%s", err, b1)
		}
		b2, err := json.MarshalIndent(w2, "", "  ")
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("round trip changed the project:\n%s\n---\n%s", b1, b2)
		}
	})
}
