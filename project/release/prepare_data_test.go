package release

import (
	"context"
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestPrepareKDEReadsTableInPlace checks issue 20's change to Prepare: a
// KDE reads the table's columns in place (p.Data.Source, no n·ℓ mapped
// copy), and everything it computes is what the mapped copy gave — the
// lattice values bit for bit (== on every value, against a KDE fitted on
// MapToUnit's copy and evaluated by the same lattice code), the clipped
// counts, and LearnerData's X (made once, on request). A learner that
// reads X still gets the copy.
func TestPrepareKDEReadsTableInPlace(t *testing.T) {
	ctx := context.Background()
	ds := releaseTestDataset(t, 3000)
	req := kdeRequest(ds)
	req.Features = []string{"x", "y"}
	req.Bounds = map[string]dataset.Bounds{"x": {Lo: 1, Hi: 9}, "y": {Lo: 0, Hi: 10}} // some x clipped
	req.Privacy.K = []int{9, 7}
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Data.X != nil || p.Data.Source == nil || p.Data.N() != 3000 {
		t.Fatalf("KDE data: X %d values, source %v, n %d; want the source, no copy", len(p.Data.X), p.Data.Source != nil, p.Data.N())
	}
	x, clipped, err := ds.MapToUnit(req.Features, []dataset.Bounds{req.Bounds["x"], req.Bounds["y"]})
	if err != nil {
		t.Fatal(err)
	}
	if p.Clipped["x"] != clipped[0] || p.Clipped["y"] != clipped[1] || clipped[0] == 0 {
		t.Fatalf("clipped %v; want x %d, y %d (x > 0)", p.Clipped, clipped[0], clipped[1])
	}
	f, err := learners.NewKDE().Fit(ctx, learners.Dataset{Dim: 2, X: x}, learners.Values(p.Resolved))
	if err != nil {
		t.Fatal(err)
	}
	want, err := mechanism.EvaluateLattice(ctx, f.Oracle, p.Lattice, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Exact, want) || p.Fitted.Sensitivity != f.Sensitivity {
		t.Fatalf("lattice values or sensitivity from the table in place differ from those of the mapped copy")
	}
	d := p.LearnerData()
	if d.Source != nil || !slices.Equal(d.X, x) {
		t.Fatal("LearnerData differs from MapToUnit's copy")
	}
	if d2 := p.LearnerData(); &d2.X[0] != &d.X[0] {
		t.Error("LearnerData made a second copy")
	}

	rreq := req
	rreq.Learner, rreq.Label, rreq.Params = learners.KindRidge, "r", nil
	rreq.Bounds = map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}, "r": {Lo: -5, Hi: 5}}
	pr, err := Prepare(ctx, rreq, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Data.Source != nil || len(pr.Data.X) != 2*3000 {
		t.Fatalf("ridge data: source %v, %d values; want the mapped copy", pr.Data.Source != nil, len(pr.Data.X))
	}
	if d := pr.LearnerData(); &d.X[0] != &pr.Data.X[0] {
		t.Error("LearnerData of a copy is not the copy")
	}
}
