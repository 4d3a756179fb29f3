package synopsis

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// TestSynopsisContainsNoData releases a KDE of a tiny dataset with
// distinctive values through the real learner and mechanism and checks that
// neither the raw values, nor their mapped values, nor the noiseless
// lattice values appear in the file: only the noisy values do.
//
// False-failure rate: the metadata is deterministic, so only the 9 noisy
// value lines can match by chance. A searched string ("12.3456789",
// "0.123456789") has one decimal point, which fixes its alignment in a
// value line, and ≥ 9 digits that must then all match: probability
// ≤ 10⁻⁹ per line and string, < 9·10·10⁻⁹ ≈ 10⁻⁷ per run. Noiseless values
// are 17-significant-digit strings: chance matches are below 10⁻¹².
func TestSynopsisContainsNoData(t *testing.T) {
	raw := []float64{12.3456789, 87.6543219, 45.6789123, 31.4159265, 69.1827364}
	const lo, hi = 0.0, 100.0
	ds := learners.Dataset{Dim: 1}
	for _, x := range raw {
		ds.X = append(ds.X, (x-lo)/(hi-lo))
	}
	fitted, err := learners.NewKDE().Fit(context.Background(), ds, learners.Values{"bandwidth": {0.2}})
	if err != nil {
		t.Fatal(err)
	}
	p := mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{8}, H: 1}
	exact, err := mechanism.EvaluateLattice(context.Background(), fitted.Oracle, mechanism.Lattice{K: p.K}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := mechanism.Sanitize(context.Background(), fitted.Oracle, fitted.Sensitivity, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := learners.NewKDE().Spec()
	f, err := NewFile(rel, Meta{
		AppVersion: "test", Created: synTime, Title: "KDE", Learner: spec.Kind,
		Params: learners.Resolved{"bandwidth": {0.2}}, N: fitted.N,
		Domain:      DomainInfo{Features: []Bound{{Name: "x", Lo: lo, Hi: hi}}},
		Output:      spec.Output,
		OutputRange: fitted.OutputRange,
	})
	if err != nil {
		t.Fatal(err)
	}
	data := encodeSyn(t, f, "alice")

	for i, x := range raw {
		for _, s := range []string{
			strconv.FormatFloat(x, 'g', -1, 64),       // "12.3456789"
			strconv.FormatFloat(ds.X[i], 'g', -1, 64), // "0.123456789"
		} {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("the file contains data value %v as %q", x, s)
			}
		}
	}
	for i, e := range exact {
		if rel.Coefficients()[i] == e {
			t.Errorf("lattice value %d is noiseless", i)
		}
		if s := strconv.FormatFloat(e, 'g', -1, 64); bytes.Contains(data, []byte(s)) {
			t.Errorf("the file contains noiseless lattice value %d (%s)", i, s)
		}
	}
	for i, v := range f.Values {
		if v != rel.Coefficients()[i] {
			t.Errorf("value %d is %v, not the released %v", i, v, rel.Coefficients()[i])
		}
	}
	if f.Learner.N != len(raw) {
		t.Errorf("n = %d, want %d", f.Learner.N, len(raw))
	}
}
