package synopsis

import (
	"bytes"
	"os"
	"testing"
)

// goldenFillPath is the golden synopsis with fill rules (format 1 with the
// optional "fill" key; docs/synopsis-format.md, "Fill rules"). Regenerate
// with go test -run TestSynopsisGoldenFill -update, deliberately.
const goldenFillPath = goldenDir + "/golden-v1-fill.synopsis"

// goldenFillFile is the golden content plus a fill rule per used column:
// the two features and the real label.
func goldenFillFile() *File {
	f := goldenFile()
	age, bmi, sys := 60.0, 25.5, 120.0
	f.Fill = []FillRule{{Column: "age", Value: &age}, {Column: "bmi", Value: &bmi}, {Column: "systolic", Value: &sys}}
	return f
}

// TestSynopsisGoldenFill pins the bytes of a file with fill rules: it
// reads back to the same content and the writer reproduces it exactly.
func TestSynopsisGoldenFill(t *testing.T) {
	checkGoldenSynopsis(t, goldenFillPath, goldenFillFile())
	want, err := os.ReadFile(goldenFillPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(want, []byte("\n  \"fill\": [\n    {\n      \"column\": \"age\",\n      \"value\": 60\n    },")) {
		t.Errorf("%s does not have the documented fill layout", goldenFillPath)
	}
}
