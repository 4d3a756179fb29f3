package synopsis

import (
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// TestBoundProvenanceValidation: the reader's rules on the new fields.
func TestBoundProvenanceValidation(t *testing.T) {
	est := &PrivateEnd{Quantile: 0.01, Epsilon: 0.1, RangeLo: -10, RangeHi: 10}
	ok := []Bound{
		{Name: "x", Lo: 0, Hi: 1},                 // old file, typed
		{Name: "x", Lo: 0, Hi: 1, FromData: true}, // old file, from data
		{Name: "x", Lo: 0, Hi: 1, LoSource: EndTyped, HiSource: EndFromData, FromData: true},
		{Name: "x", Lo: 0, Hi: 1, LoSource: EndPrivate, HiSource: EndTyped, LoEstimate: est},
	}
	for i, b := range ok {
		if err := b.Validate("b"); err != nil {
			t.Errorf("ok[%d]: %v", i, err)
		}
	}
	bad := map[string]Bound{
		"one source":         {Name: "x", Lo: 0, Hi: 1, LoSource: EndTyped},
		"unknown source":     {Name: "x", Lo: 0, Hi: 1, LoSource: "guess", HiSource: EndTyped},
		"from_data mismatch": {Name: "x", Lo: 0, Hi: 1, LoSource: EndTyped, HiSource: EndFromData},
		"data flag no end":   {Name: "x", Lo: 0, Hi: 1, LoSource: EndTyped, HiSource: EndTyped, FromData: true},
		"private no est":     {Name: "x", Lo: 0, Hi: 1, LoSource: EndPrivate, HiSource: EndTyped},
		"est not private":    {Name: "x", Lo: 0, Hi: 1, LoSource: EndTyped, HiSource: EndTyped, HiEstimate: est},
		"est without source": {Name: "x", Lo: 0, Hi: 1, LoEstimate: est},
		"est outside range":  {Name: "x", Lo: -50, Hi: 1, LoSource: EndPrivate, HiSource: EndTyped, LoEstimate: est},
		"est bad quantile": {Name: "x", Lo: 0, Hi: 1, LoSource: EndPrivate, HiSource: EndTyped,
			LoEstimate: &PrivateEnd{Quantile: 1, Epsilon: 0.1, RangeLo: -10, RangeHi: 10}},
		"est bad ε": {Name: "x", Lo: 0, Hi: 1, LoSource: EndPrivate, HiSource: EndTyped,
			LoEstimate: &PrivateEnd{Quantile: 0.5, Epsilon: 0, RangeLo: -10, RangeHi: 10}},
	}
	for name, b := range bad {
		if err := b.Validate("b"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestOldSynopsisBoundsReadBack: the golden synopsis written before
// per-end provenance still reads, and its ends follow from_data.
func TestOldSynopsisBoundsReadBack(t *testing.T) {
	trusted, err := keys.LoadAllowedSigners(goldenSigners)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(goldenPath, trusted)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range append(slices.Clone(v.File.Domain.Features), *v.File.Domain.Label) {
		lo, hi := b.Ends()
		want := EndTyped
		if b.FromData {
			want = EndFromData
		}
		if lo != want || hi != want || b.LoSource != "" {
			t.Errorf("%s: ends %s, %s for from_data %v", b.Name, lo, hi, b.FromData)
		}
	}
}

const goldenProvenancePath = goldenDir + "/golden-v1-provenance.synopsis"

// goldenProvenanceFile is the golden file with per-end provenance: age
// typed, bmi's lower end typed and upper end from the data, the label
// estimated privately at both ends.
func goldenProvenanceFile() *File {
	f := goldenFile()
	f.Title = "Blood pressure by age and BMI — golden test file with per-end provenance"
	f.Domain.Features[0].LoSource, f.Domain.Features[0].HiSource = EndTyped, EndTyped
	f.Domain.Features[1].LoSource, f.Domain.Features[1].HiSource = EndTyped, EndFromData
	f.Domain.Label.LoSource, f.Domain.Label.HiSource = EndPrivate, EndPrivate
	f.Domain.Label.LoEstimate = &PrivateEnd{Quantile: 0.01, Epsilon: 0.0125, RangeLo: 0, RangeHi: 400}
	f.Domain.Label.HiEstimate = &PrivateEnd{Quantile: 0.99, Epsilon: 0.0125, RangeLo: 0, RangeHi: 400}
	return f
}

// TestSynopsisGoldenProvenance pins the bytes of the per-end provenance
// fields (rewrite deliberately with -update).
func TestSynopsisGoldenProvenance(t *testing.T) {
	checkGoldenSynopsis(t, goldenProvenancePath, goldenProvenanceFile())
}
