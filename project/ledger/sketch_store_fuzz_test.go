package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// FuzzReadSketchStore: any bytes in the sketch store are read without a
// panic, either as records that pass validation (and whose sketches decode
// and compare) or as a *SketchStoreError; an unterminated last line is
// ignored, never an error.
func FuzzReadSketchStore(f *testing.F) {
	key := bytes.Repeat([]byte{7}, sketchKeyBytes)
	ds := parseTestCSV(f, "seed.csv", "x,y\n1,2\n3,4\n3,4\n")
	id, err := IdentifyDataset(ds, []string{"x", "y"})
	if err != nil {
		f.Fatal(err)
	}
	line, err := jsonLine(newSketchRecord(id.Records, id, id.Sketch(key), key))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(line)
	f.Add(append(slices.Clone(line), line[:40]...))
	f.Add([]byte(`{"v":1}` + "\n"))
	f.Add([]byte("\n"))
	f.Add(bytes.Replace(line, []byte(`"n":3`), []byte(`"n":1`), 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		st := &sketchStore{path: "ledger.jsonl.sketches", keyPath: "ledger.jsonl.sketch-key", key: key}
		if err := st.parse(data); err != nil {
			var se *SketchStoreError
			if !errors.As(err, &se) || se.Line < 1 {
				t.Fatalf("error %v is not a *SketchStoreError naming a line", err)
			}
			return
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); st.size != want {
			t.Fatalf("complete bytes %d, want %d", st.size, want)
		}
		for _, r := range st.records {
			s, err := r.sketch()
			if err != nil {
				t.Fatalf("validated record does not decode: %v", err)
			}
			if o := s.Overlap(id.Sketch(key)); !(o >= 0 && o <= 1) {
				t.Fatalf("overlap %v outside [0, 1]", o)
			}
		}
	})
}

func jsonLine(r SketchRecord) ([]byte, error) {
	b, err := json.Marshal(r)
	return append(b, '\n'), err
}
