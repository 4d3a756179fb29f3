package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestEstimatePrivateBoundsCharges: one ledger entry of kind "bounds" with
// the whole ε, the estimates inside the public range and ordered, and a
// per-end provenance naming the quantile, ε/(2·columns) and the range.
func TestEstimatePrivateBoundsCharges(t *testing.T) {
	ds := releaseTestDataset(t, 2000)
	l := chooseLedger(t)
	now := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	res, err := EstimatePrivateBounds(context.Background(), PrivateBoundsRequest{
		Dataset: ds, Ranges: map[string]dataset.Bounds{"x": {Lo: -1000, Hi: 1000}, "y": {Lo: 0, Hi: 1e6}},
		Epsilon: 0.8, Ledger: l, Now: func() time.Time { return now },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entry.Kind != ledger.KindBounds || res.Entry.Epsilon != 0.8 || res.Entry.Identity == nil || res.Entry.Identity.FileHash != ds.Hash {
		t.Errorf("entry %+v, want kind bounds, ε 0.8 on the dataset", res.Entry)
	}
	h := res.Entry.DatasetHash // the dataset of the records (IdentifyDataset)
	if es := l.Entries(h); len(es) != 1 || es[0].ID != res.Entry.ID {
		t.Fatalf("ledger holds %+v, want exactly the bounds entry", es)
	}
	if eps, _ := l.Spent(h); eps != 0.8 || res.Spent != 0.8 {
		t.Errorf("spent %g (result %g), want 0.8", eps, res.Spent)
	}
	// Reread from disk: the new kind is counted by a fresh reader too.
	l2, err := ledger.Open(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if eps, _ := l2.Spent(h); eps != 0.8 {
		t.Errorf("reopened ledger counts %g, want 0.8", eps)
	}
	for _, c := range []string{"x", "y"} {
		b, p := res.Bounds[c], res.Provenance[c]
		if !(b.Lo < b.Hi) || p.Lo != synopsis.EndPrivate || p.Hi != synopsis.EndPrivate ||
			p.LoEstimate.Quantile != 0.01 || p.HiEstimate.Quantile != 0.99 || p.LoEstimate.Epsilon != 0.2 {
			t.Errorf("%s: bounds %+v, provenance %+v %+v %+v", c, b, p, p.LoEstimate, p.HiEstimate)
		}
		r := map[string]dataset.Bounds{"x": {Lo: -1000, Hi: 1000}, "y": {Lo: 0, Hi: 1e6}}[c]
		if b.Lo < r.Lo || b.Hi > r.Hi {
			t.Errorf("%s: %+v outside the public range %+v", c, b, r)
		}
	}
}

// TestEstimatePrivateBoundsRefused: a spend over the budget is refused by
// the ledger before anything is estimated; invalid requests spend nothing.
func TestEstimatePrivateBoundsRefused(t *testing.T) {
	ds := releaseTestDataset(t, 100)
	l := chooseLedger(t)
	if err := l.SetBudget(ds.Hash, 0.01); err != nil {
		t.Fatal(err)
	}
	good := PrivateBoundsRequest{Dataset: ds, Ranges: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 100}}, Epsilon: 0.05, Ledger: l}
	res, err := EstimatePrivateBounds(context.Background(), good)
	var be *ledger.BudgetError
	if !errors.As(err, &be) || res != nil {
		t.Fatalf("got %v, %v; want a *BudgetError", res, err)
	}
	for name, mod := range map[string]func(*PrivateBoundsRequest){
		"no columns":      func(r *PrivateBoundsRequest) { r.Ranges = nil },
		"unknown column":  func(r *PrivateBoundsRequest) { r.Ranges = map[string]dataset.Bounds{"nope": {Lo: 0, Hi: 1}} },
		"empty range":     func(r *PrivateBoundsRequest) { r.Ranges = map[string]dataset.Bounds{"x": {Lo: 1, Hi: 1}} },
		"zero ε":          func(r *PrivateBoundsRequest) { r.Epsilon = 0 },
		"quantiles order": func(r *PrivateBoundsRequest) { r.Quantiles = [2]float64{0.9, 0.1} },
		"quantile one":    func(r *PrivateBoundsRequest) { r.Quantiles = [2]float64{0.1, 1} },
		"no ledger":       func(r *PrivateBoundsRequest) { r.Ledger = nil },
	} {
		r := good
		r.AllowOverBudget = true
		mod(&r)
		if _, err := EstimatePrivateBounds(context.Background(), r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if eps, _ := l.Spent(ds.Hash); eps != 0 {
		t.Errorf("spent %g after refusals", eps)
	}
}

// TestReleaseRecordsPerEndProvenance reproduces issue 13 item 4 in the
// release path: {Lo: −1 typed, Hi: the data maximum} must record Hi as from
// the data and Lo as typed, and a privately estimated end its ε.
func TestReleaseRecordsPerEndProvenance(t *testing.T) {
	ds := releaseTestDataset(t, 200)
	max, _ := ds.SuggestBounds("x")
	req := kdeRequest(ds)
	req.Bounds = map[string]dataset.Bounds{"x": {Lo: -1, Hi: max.Hi}}
	req.BoundsProvenance = map[string]synopsis.BoundsProvenance{"x": {Lo: synopsis.EndTyped, Hi: synopsis.EndFromData}}
	if _, err := Prepare(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "acknowledge") {
		t.Fatalf("an end from the data without the acknowledgement: %v", err)
	}
	req.AcknowledgedDataBounds = true
	e := newReleaseEnv(t)
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(res.Path, e.trusted(t))
	if err != nil {
		t.Fatal(err)
	}
	b := v.File.Domain.Features[0]
	if !v.File.Domain.BoundsFromData {
		t.Error("bounds_from_data is false with an end from the data")
	}
	if lo, hi := b.Ends(); lo != synopsis.EndTyped || hi != synopsis.EndFromData || !b.FromData {
		t.Errorf("recorded %+v (ends %s, %s), want lo typed, hi data", b, lo, hi)
	}

	// A privately estimated pair.
	req = kdeRequest(ds)
	est := &synopsis.PrivateEnd{Quantile: 0.01, Epsilon: 0.025, RangeLo: -100, RangeHi: 100}
	req.BoundsProvenance = map[string]synopsis.BoundsProvenance{"x": {Lo: synopsis.EndPrivate, Hi: synopsis.EndTyped, LoEstimate: est}}
	p, err = Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Domain.Features[0]
	if got.LoSource != synopsis.EndPrivate || got.HiSource != synopsis.EndTyped || got.LoEstimate == nil || got.LoEstimate.Epsilon != 0.025 || got.FromData {
		t.Errorf("private end recorded as %+v", got)
	}
}

// TestUniformStandInIsPublic: the stand-in depends only on n, the columns,
// the bounds and the seed: two datasets with the same n and different
// values give the same stand-in, inside the bounds.
func TestUniformStandInIsPublic(t *testing.T) {
	a := releaseTestDataset(t, 100)
	b := releaseTestDataset(t, 100)
	for i := range b.Data["x"] {
		b.Data["x"][i] = 1000 + float64(i)
	}
	spec := mustSpec(t, kdeRequest(a))
	sa, err := UniformStandIn(kdeRequest(a), spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := UniformStandIn(kdeRequest(b), spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sa.Data["x"], sb.Data["x"]) || sa.Rows != 100 || sa.Path != UniformStandInPath {
		t.Fatal("the stand-in depends on the data values")
	}
	for _, v := range sa.Data["x"] {
		if v < 0 || v > 10 {
			t.Fatalf("stand-in value %v outside the bounds [0, 10]", v)
		}
	}
	req := kdeRequest(a)
	req.Bounds = nil
	if _, err := UniformStandIn(req, spec, 1); err == nil {
		t.Error("a stand-in without bounds was made")
	}
}

func mustSpec(t *testing.T, req Request) learners.Spec {
	t.Helper()
	l, err := learners.Lookup(req.Learner)
	if err != nil {
		t.Fatal(err)
	}
	return l.Spec()
}

// TestPrivateBoundsChargedByRecords: the bounds spend is charged to the
// ledger dataset of the records, like a release, so two files holding the
// same records (rows reordered, CRLF line ends) share one budget; keyed on
// the file hash, the second file's spend escaped the first's total.
func TestPrivateBoundsChargedByRecords(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	if err := os.WriteFile(a, []byte("x,y\n1,2\n3,4\n5,6\n7,8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("x,y\r\n7,8\r\n5,6\r\n3,4\r\n1,2\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l := chooseLedger(t)
	var hashes []string
	for _, path := range []string{a, b} {
		ds, err := dataset.ReadCSV(path, dataset.CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := EstimatePrivateBounds(context.Background(), PrivateBoundsRequest{
			Dataset: ds, Ranges: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}}, Epsilon: 0.1, Ledger: l,
			Columns: []string{"x", "y"},
		})
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, res.Entry.DatasetHash)
	}
	if hashes[0] != hashes[1] {
		t.Fatalf("the same records were charged to two datasets %v", hashes)
	}
	if eps, _ := l.Spent(hashes[0]); math.Abs(eps-0.2) > 1e-12 {
		t.Errorf("spent %g on the records, want 0.2", eps)
	}
}

// TestPrivateBoundsSameDatasetAsRelease: with a text label and declared
// classes, the bounds spend is charged to the release's ledger dataset,
// read with or without the classes (as the window and the command line
// read the file), in either class order; the identity helper's report
// found the spend keyed apart from the release.
func TestPrivateBoundsSameDatasetAsRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	var b strings.Builder
	b.WriteString("x,diagnosis\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%s\n", i%13, []string{"benign", "malignant"}[i%3%2])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	classes := dataset.Classes{Negative: "benign", Positive: "malignant"}
	swapped := dataset.Classes{Negative: "malignant", Positive: "benign"}
	l := chooseLedger(t)
	asRead, err := dataset.ReadCSV(path, dataset.CSVOptions{KeepInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := EstimatePrivateBounds(context.Background(), PrivateBoundsRequest{
		Dataset: asRead, Ranges: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 20}}, Epsilon: 0.1, Ledger: l,
		Columns: []string{"x", "diagnosis"}, Label: "diagnosis", Classes: &swapped,
	})
	if err != nil {
		t.Fatal(err)
	}
	withClasses, err := dataset.ReadCSV(path, dataset.CSVOptions{KeepInvalid: true, Classes: map[string]dataset.Classes{"diagnosis": classes}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := Identify(Request{Dataset: withClasses, Features: []string{"x"}, Label: "diagnosis", Classes: &classes,
		Learner: learners.KindNaiveBayes, Bounds: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 20}},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := ledger.FindDataset(l, id, false)
	if err != nil {
		t.Fatal(err)
	}
	// By its records, not merely by the file hash (the same file here).
	if !slices.ContainsFunc(f.Charges, func(m ledger.DatasetMatch) bool {
		return m.DatasetHash == res.Entry.DatasetHash && m.Match == ledger.MatchRecords
	}) {
		t.Errorf("the release's records are matched to %+v, not by records to the bounds spend's dataset %s", f.Charges, res.Entry.DatasetHash)
	}
}
