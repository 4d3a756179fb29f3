package project

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// goldenFillPath is the golden synopsis with fill rules (format 1 with the
// optional "fill" key; docs/synopsis-format.md, "Fill rules"). Regenerate
// with go test -run TestSynopsisGoldenFill -update, deliberately.
const goldenFillPath = goldenDir + "/golden-v1-fill.synopsis"

// goldenFillFile is the golden content plus a fill rule per used column:
// the two features and the real label.
func goldenFillFile() *SynopsisFile {
	f := goldenFile()
	age, bmi, sys := 60.0, 25.5, 120.0
	f.Fill = []FillRule{{Column: "age", Value: &age}, {Column: "bmi", Value: &bmi}, {Column: "systolic", Value: &sys}}
	return f
}

// TestSynopsisGoldenFill pins the bytes of a file with fill rules: it
// reads back to the same content and the writer reproduces it exactly.
func TestSynopsisGoldenFill(t *testing.T) {
	signer := goldenSigner(t)
	if synUpdate() {
		if err := WriteSynopsis(goldenFillPath, goldenFillFile(), signer, true); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", goldenFillPath)
	}
	trusted, err := LoadAllowedSigners(goldenSigners)
	if err != nil {
		t.Fatal(err)
	}
	v, err := OpenSynopsis(goldenFillPath, trusted)
	if err != nil {
		t.Fatalf("the golden file with fill rules no longer reads: %v", err)
	}
	if !reflect.DeepEqual(v.File, goldenFillFile()) {
		t.Errorf("golden content changed:\n got %+v\nwant %+v", v.File, goldenFillFile())
	}
	want, err := os.ReadFile(goldenFillPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeSynopsis(goldenFillFile(), signer)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("EncodeSynopsis no longer reproduces %s byte for byte", goldenFillPath)
	}
	if !bytes.Contains(want, []byte("\n  \"fill\": [\n    {\n      \"column\": \"age\",\n      \"value\": 60\n    },")) {
		t.Errorf("%s does not have the documented fill layout", goldenFillPath)
	}
}
