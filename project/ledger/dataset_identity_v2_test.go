package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// readClassCSV reads text as the CLI does: the columns cols, label read
// with the declared classes c.
func readClassCSV(t *testing.T, text, label string, c dataset.Classes, cols ...string) *dataset.Table {
	t.Helper()
	ds, err := dataset.ParseCSV(strings.NewReader(text), "t.csv", dataset.CSVOptions{Columns: append(cols, label), KeepInvalid: true,
		Classes: map[string]dataset.Classes{label: c}})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestIdentityIgnoresNamesAndClassOrder: the version-2 fingerprint and
// sketch of the same records do not depend on the column names, the
// columns' order in the file, or the order the classes are declared in;
// other class values, another value and a missing value are other records.
func TestIdentityIgnoresNamesAndClassOrder(t *testing.T) {
	yn, ny := dataset.Classes{Negative: "no", Positive: "yes"}, dataset.Classes{Negative: "yes", Positive: "no"}
	const orig = "x,y,lab\n1,2,yes\n3.5,4,no\n5,6,yes\n"
	identify := func(text string, c dataset.Classes, cols ...string) *DatasetIdentity {
		t.Helper()
		label, feats := cols[len(cols)-1], cols[:len(cols)-1]
		id, err := IdentifyRecords(readClassCSV(t, text, label, c, feats...), cols, IdentityOptions{Label: label, Classes: &c})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	want := identify(orig, yn, "x", "y", "lab")
	key := make([]byte, sketchKeyBytes)
	for _, tc := range []struct {
		name, text string
		c          dataset.Classes
		cols       []string
		same       bool
	}{
		{"classes swapped", orig, ny, []string{"x", "y", "lab"}, true},
		{"columns renamed", strings.Replace(orig, "x,y,lab", "a b,c_d,class", 1), yn, []string{"a b", "c_d", "class"}, true},
		{"columns reordered and renamed", "class,q,p\nyes,2,1\nno,4,3.5\nyes,6,5\n", ny, []string{"p", "q", "class"}, true},
		{"one class value renamed", strings.ReplaceAll(orig, "yes", "oui"), dataset.Classes{Negative: "no", Positive: "oui"}, []string{"x", "y", "lab"}, false},
		{"one value changed", strings.Replace(orig, "3.5", "3.25", 1), yn, []string{"x", "y", "lab"}, false},
		{"a label neither class", strings.Replace(orig, "\n5,6,yes", "\n5,6,maybe", 1), yn, []string{"x", "y", "lab"}, false},
	} {
		got := identify(tc.text, tc.c, tc.cols...)
		if same := got.Records == want.Records; same != tc.same {
			t.Errorf("%s: records %s, original %s (same = %v, want %v)", tc.name, ShortHash(got.Records), ShortHash(want.Records), same, tc.same)
		}
		if same := slices.Equal(got.Sketch(key).Mins, want.Sketch(key).Mins); same != tc.same {
			t.Errorf("%s: sketches equal = %v, want %v", tc.name, same, tc.same)
		}
	}
	// A number class is its number: "1" declared, "1.0" in the data, and
	// the column read as numbers all agree.
	num := identifyOrFail(t, parseNumbers(t, "x,lab\n2,1.0\n3,0\n"), "x", "lab")
	c := dataset.Classes{Negative: "0", Positive: "1"}
	cls, err := IdentifyRecords(readClassCSV(t, "x,lab\n2,1\n3,0.0\n", "lab", c, "x"), []string{"x", "lab"}, IdentityOptions{Label: "lab", Classes: &c})
	if err != nil {
		t.Fatal(err)
	}
	if num.Records != cls.Records {
		t.Errorf("number classes: records %s read as numbers, %s read as classes", ShortHash(num.Records), ShortHash(cls.Records))
	}
}

func parseNumbers(t *testing.T, text string) *dataset.Table {
	t.Helper()
	ds, err := dataset.ParseCSV(strings.NewReader(text), "n.csv", dataset.CSVOptions{KeepInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func identifyOrFail(t *testing.T, ds *dataset.Table, cols ...string) *DatasetIdentity {
	t.Helper()
	id, err := IdentifyDataset(ds, cols)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLegacyFingerprintGolden: the version-1 fingerprint the walkthrough's
// version (b8af99a) wrote for ../release/testdata/identity_v1/cancer.csv
// read by the CLI with classes benign,malignant is among Legacy, in either
// declared order and in the curator window's reading.
func TestLegacyFingerprintGolden(t *testing.T) {
	const v1 = "3fcf80e9dbe7c08b408964f03528ca2509bd83320712da952d69592acf65fa47"
	cols := []string{"diagnosis", "mean radius", "mean texture"}
	for _, tc := range []struct {
		name string
		c    dataset.Classes
		gui  bool
	}{
		{"declared order", dataset.Classes{Negative: "benign", Positive: "malignant"}, false},
		{"swapped", dataset.Classes{Negative: "malignant", Positive: "benign"}, false},
		{"curator window", dataset.Classes{Negative: "malignant", Positive: "benign"}, true},
	} {
		opts := dataset.CSVOptions{KeepInvalid: true}
		if !tc.gui {
			opts.Columns, opts.Classes = cols, map[string]dataset.Classes{"diagnosis": tc.c}
		}
		ds, err := dataset.ReadCSV("../release/testdata/identity_v1/cancer.csv", opts)
		if err != nil {
			t.Fatal(err)
		}
		id, err := IdentifyRecords(ds, cols, IdentityOptions{Label: "diagnosis", Classes: &tc.c})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(id.Fingerprints(), v1) || id.Records == v1 {
			t.Errorf("%s: fingerprints %v, want the version-1 %s among Legacy", tc.name, id.Fingerprints(), ShortHash(v1))
		}
	}
}
