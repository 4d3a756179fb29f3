package dataset

import (
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// QueryPoints (test helper: the reference the streamed ScanQueryPoints and
// EvalPointsCSV are compared with) extracts query points from a dataset
// read with ReadCSV: the
// columns named like the release's features (in any order, other columns
// ignored), returned row-major in axis order, in data units. A missing
// feature column is a *CSVError naming it.
func QueryPoints(ds *Table, v *synopsis.Verified) ([]float64, error) {
	feats := v.File.Domain.Features
	l := len(feats)
	cols := make([][]float64, l)
	for j, b := range feats {
		c, err := ds.Column(b.Name)
		if err != nil {
			return nil, err
		}
		cols[j] = c
	}
	x := make([]float64, ds.Rows*l)
	for j, c := range cols {
		for i, val := range c {
			x[i*l+j] = val
		}
	}
	return x, nil
}

// TestQueryPoints: the reference reader takes the feature columns in any
// order and ignores others; a missing feature column is named.
func TestQueryPoints(t *testing.T) {
	v := openSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}}))
	// Columns in another order, an extra text column.
	ds, err := ParseCSV(strings.NewReader("note,x1,x0\na,1,2\nb,3,4\n"), "q.csv", CSVOptions{Columns: []string{"x0", "x1"}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := QueryPoints(ds, v)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, []float64{2, 1, 4, 3}) {
		t.Errorf("points %v, want [2 1 4 3] (x0, x1 per row)", x)
	}
	ds, err = ParseCSV(strings.NewReader("x0,z\n1,2\n"), "q.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := QueryPoints(ds, v); err == nil || !strings.Contains(err.Error(), `"x1"`) {
		t.Errorf("missing feature column: %v", err)
	}
}
