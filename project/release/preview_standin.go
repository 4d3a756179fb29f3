package release

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// UniformStandInPath is the Path of a uniform stand-in dataset.
const UniformStandInPath = "public stand-in: uniform within the public bounds"

// UniformStandIn returns a public stand-in for the private data of req,
// for previews: n = req.Dataset.Rows records (n is public) drawn uniformly
// within the public bounds req.Bounds of every feature and real label, and
// for a binary label the two declared classes, drawn with equal probability.
// It depends on nothing private (only n, the columns, the bounds and the
// positive class), so settings chosen by looking at a preview on it are
// not fitted to the data. seed makes it reproducible; it is never a
// release input.
//
// Errors: no dataset, or a used column without valid public bounds (data
// bounds not yet filled in cannot serve: they come from the data).
func UniformStandIn(req Request, spec learners.Spec, seed uint64) (*dataset.Table, error) {
	if req.Dataset == nil {
		return nil, reqErr("dataset", "no dataset given")
	}
	n := req.Dataset.Rows
	used := slices.Clone(req.Features)
	if spec.Label == learners.LabelReal && req.Label != "" {
		used = append(used, req.Label)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	ds := &dataset.Table{Path: UniformStandInPath, Data: map[string][]float64{}, Rows: n}
	for _, col := range used {
		b, ok := req.Bounds[col]
		if !ok {
			return nil, reqErr("bounds["+col+"]", "a uniform stand-in needs public bounds for column %q", col)
		}
		if err := b.Validate(); err != nil {
			return nil, reqErr("bounds["+col+"]", "%v", err)
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = b.Lo + r.Float64()*(b.Hi-b.Lo)
		}
		ds.Columns = append(ds.Columns, col)
		ds.Data[col] = v
	}
	if spec.Label == learners.LabelBinary && req.Label != "" {
		if req.Classes == nil {
			return nil, reqErr("classes", "a uniform stand-in needs the declared classes of label %q", req.Label)
		}
		// The label column as read with the declared classes: −1 negative,
		// +1 positive, drawn with equal probability (both classes occur).
		v := make([]float64, n)
		for i := range v {
			v[i] = -1
			if r.IntN(2) == 1 {
				v[i] = 1
			}
		}
		if n >= 2 {
			v[0], v[1] = -1, 1
		}
		ds.AddClassColumn(req.Label, *req.Classes, v)
	}
	ds.Hash = fmt.Sprintf("stand-in:%d:%d", n, seed)
	return ds, nil
}
