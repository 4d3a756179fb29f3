package ledger

import (
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestLegacyFillSameAsFilledTable checks that the legacy fingerprints and
// sketches computed with LegacyFill (the filled rows read in place, issue
// 20) are exactly those computed from the filled copy (WithFilled) as a
// legacy table before the table as read: the same fingerprints in the
// same order, the same version-1 sketches; with missing values in a
// feature, in a real label, in none of the used columns (the filled rows
// are then the rows as read), and with a declared class label.
func TestLegacyFillSameAsFilledTable(t *testing.T) {
	yn := dataset.Classes{Negative: "no", Positive: "yes"}
	cases := []struct {
		name, text string
		cols       []string
		classes    bool
		fill       map[string]float64
	}{
		{"feature", "x,y,r\n1,,3\n,0,-1\n2,5,\n1,,3\n0,0,0\n", []string{"x", "y"}, false, map[string]float64{"x": 0.5, "y": 0}},
		{"real label", "x,y,r\n1,,3\n,0,-1\n2,5,\n1,,3\n0,0,0\n", []string{"x", "r"}, false, map[string]float64{"x": 2, "r": -0.25}},
		{"none missing", "x,y,r\n1,,3\n4,0,-1\n2,5,\n1,,3\n0,0,0\n", []string{"x"}, false, map[string]float64{"x": 7}},
		{"class label", "x,y,lab\n1,2,yes\n,4,no\n5,,maybe\n,4,no\n", []string{"x", "y", "lab"}, true, map[string]float64{"x": 3, "y": 0}},
	}
	key := make([]byte, sketchKeyBytes)
	for i := range key {
		key[i] = byte(7 * i)
	}
	for _, tc := range cases {
		opts := dataset.CSVOptions{KeepInvalid: true}
		var opt IdentityOptions
		if tc.classes {
			opts.Classes = map[string]dataset.Classes{"lab": yn}
			opt.Label, opt.Classes = "lab", &yn
		}
		ds, err := dataset.ParseCSV(strings.NewReader(tc.text), "f.csv", opts)
		if err != nil {
			t.Fatal(err)
		}
		filled, _ := ds.WithFilled(tc.fill)
		copyOpt, inPlace := opt, opt
		copyOpt.LegacyTables = []*dataset.Table{filled, ds}
		inPlace.LegacyTables, inPlace.LegacyFill = []*dataset.Table{ds}, tc.fill
		want, err := IdentifyRecords(ds, tc.cols, copyOpt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := IdentifyRecords(ds, tc.cols, inPlace)
		if err != nil {
			t.Fatal(err)
		}
		if got.Records != want.Records || !slices.Equal(got.Legacy, want.Legacy) {
			t.Fatalf("%s: fingerprints %s %v; want %s %v", tc.name, got.Records, got.Legacy, want.Records, want.Legacy)
		}
		if tc.name != "none missing" && len(want.Legacy) < 2 {
			t.Fatalf("%s: %d legacy fingerprints; the filled rows should differ from the rows as read", tc.name, len(want.Legacy))
		}
		gs, ws := got.legacySketches(tc.cols, key), want.legacySketches(tc.cols, key)
		if !slices.EqualFunc(gs, ws, func(a, b legacySketch) bool {
			return a.fp == b.fp && a.s.N == b.s.N && slices.Equal(a.s.Mins, b.s.Mins)
		}) {
			t.Fatalf("%s: version-1 sketches differ", tc.name)
		}
	}
}
