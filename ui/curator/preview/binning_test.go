package preview

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// TestPreviewBinningBias: a KDE previewed from binned aggregates (B = 64,
// bandwidth 0.1, ℓ = 2) shows the binning bias in its error budget — the
// bound learners.KDEBinningBound as the other errors are written — and a
// KDE from the records shows no such line.
func TestPreviewBinningBias(t *testing.T) {
	const B = 64
	table := filepath.Join(t.TempDir(), "cells.csv")
	if err := os.WriteFile(table, []byte("bin_1,bin_2,records\n3,5,40\n30,31,50\n60,2,10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bounds := map[string]dataset.Bounds{"x1": {Lo: 0, Hi: 1}, "x2": {Lo: 0, Hi: 1}}
	in := Input{Request: release.Request{
		Aggregates: &release.Aggregates{Path: table, Dialect: aggregate.DuckDB, Bins: B, N: 100, Dataset: "cells"},
		Features:   []string{"x1", "x2"}, Bounds: bounds,
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.1}},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, H: 1, K: []int{8}},
	}}
	res, err := NewEngine().Compute(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "within " + res.ErrorText(learners.KDEBinningBound([]float64{0.1, 0.1}, B)) + " of the KDE of the records"
	i := slices.IndexFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "B = 64 per axis") })
	if i < 0 || !strings.Contains(res.Warnings[i], want) {
		t.Fatalf("no binning bias %q in the preview's lines %q", want, res.Warnings)
	}

	records := twoClassKDE(1)
	records.Request.Params = learners.Values{"bandwidth": {0.1}}
	res, err = NewEngine().Compute(context.Background(), records, nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "Binned records") }) {
		t.Errorf("a release from the records shows a binning bias: %q", res.Warnings)
	}
}
