package release

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// fillAuditSlack is the relative slack on |F_D − F_D′|/S, as in the
// learners' audits (learners/audit_test.go, auditSlack: rounding of sums of
// at most 50 terms).
const fillAuditSlack = 1e-12

// fillAuditCase is one learner configuration of the end-to-end audit.
type fillAuditCase struct {
	kind   learners.Kind
	dim    int
	label  string // "", "real" or "binary"
	params learners.Values
	pairs  int
}

// rawValue draws one raw CSV field of a feature or real label with public
// bounds [0, 10]: mostly a number (sometimes outside the bounds, or exactly
// the fill value), often an invalid or missing value.
func rawValue(r *rand.Rand, fill float64) string {
	switch r.IntN(10) {
	case 0:
		return ""
	case 1:
		return []string{"abc", "NaN", "-Inf", "1e400", "n/a", " "}[r.IntN(6)]
	case 2:
		return strconv.FormatFloat(fill, 'g', -1, 64)
	case 3:
		return []string{"-5", "0", "10", "25"}[r.IntN(4)]
	}
	return strconv.FormatFloat(10*r.Float64(), 'g', 6, 64)
}

// rawClass draws one raw label of a binary column declared "no,yes".
func rawClass(r *rand.Rand) string {
	return []string{"no", "yes", " yes", "no ", "maybe", "", "1", "YES"}[r.IntN(8)]
}

// rawRow draws one data row of the audit's CSV: dim features x0…, then the
// label column y (if any).
func rawRow(r *rand.Rand, c fillAuditCase) string {
	f := make([]string, 0, c.dim+1)
	for range c.dim {
		f = append(f, rawValue(r, 2.5))
	}
	switch c.label {
	case "real":
		f = append(f, rawValue(r, 7.5))
	case "binary":
		f = append(f, rawClass(r))
	}
	for i, s := range f {
		f[i] = strconv.Quote(s) // quoted: spaces survive, commas cannot split
	}
	return strings.Join(f, ",")
}

// prepareRaw reads raw CSV rows as the command line does (every row kept,
// classes declared) and prepares the release of case c.
func prepareRaw(t *testing.T, c fillAuditCase, rows []string) *Prepared {
	t.Helper()
	var hdr []string
	bounds := map[string]dataset.Bounds{}
	fill := map[string]float64{}
	for j := range c.dim {
		col := "x" + strconv.Itoa(j)
		hdr = append(hdr, col)
		bounds[col] = dataset.Bounds{Lo: 0, Hi: 10}
		fill[col] = 2.5
	}
	opts := dataset.CSVOptions{KeepInvalid: true}
	req := Request{
		Features: append([]string(nil), hdr...), Bounds: bounds, Fill: fill, Learner: c.kind, Params: c.params,
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1},
	}
	switch c.label {
	case "real":
		hdr = append(hdr, "y")
		req.Label, bounds["y"], fill["y"] = "y", dataset.Bounds{Lo: 0, Hi: 10}, 7.5
	case "binary":
		hdr = append(hdr, "y")
		classes := dataset.Classes{Negative: "no", Positive: "yes"}
		req.Label, req.Classes, req.FillClass = "y", &classes, "yes"
		opts.Classes = map[string]dataset.Classes{"y": classes}
	}
	csv := strings.Join(hdr, ",") + "\n" + strings.Join(rows, "\n") + "\n"
	ds, err := dataset.ParseCSV(strings.NewReader(csv), "audit.csv", opts)
	if err != nil {
		t.Fatalf("%v\n%s", err, csv)
	}
	req.Dataset = ds
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, csv)
	}
	return p
}

// TestFillAuditEndToEnd is the replace-one audit of issue 13 item 2 on raw
// files with invalid values: for random CSV files D and D′ that differ in
// one data row — either row possibly missing or invalid in any column —
// read and prepared exactly as a release is, it checks that n and S are
// equal, that the learners' datasets differ in at most that one record
// (the reduction proved in docs/sensitivity.md, "Invalid values and fill
// rules"), and that the exact lattice values differ by at most S (ratio
// ≤ 1 + fillAuditSlack). Deterministic seeds: the test cannot fail by
// chance.
func TestFillAuditEndToEnd(t *testing.T) {
	cases := []fillAuditCase{
		{kind: learners.KindKDE, dim: 1, params: learners.Values{"bandwidth": {0.1}}, pairs: 3000},
		{kind: learners.KindKDE, dim: 2, params: learners.Values{"bandwidth": {0.2}}, pairs: 2000},
		{kind: learners.KindRidge, dim: 1, label: "real", pairs: 2000},
		{kind: learners.KindPriestleyChao, dim: 1, label: "real", pairs: 2000},
		{kind: learners.KindNaiveBayes, dim: 1, label: "binary", pairs: 3000},
		{kind: learners.KindLogistic, dim: 2, label: "binary", pairs: 1000},
		{kind: learners.KindSVM, dim: 1, label: "binary", pairs: 1000},
	}
	if testing.Short() {
		for i := range cases {
			cases[i].pairs /= 5
		}
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%s/ℓ=%d", c.kind, c.dim), func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, uint64(ci)))
			worst, filledPairs := 0.0, 0
			for range c.pairs {
				n := []int{2, 3, 5, 8, 13, 21}[r.IntN(6)]
				rows := make([]string, n)
				for i := range rows {
					rows[i] = rawRow(r, c)
				}
				i := r.IntN(n)
				rows2 := append([]string(nil), rows...)
				rows2[i] = rawRow(r, c)
				a, b := prepareRaw(t, c, rows), prepareRaw(t, c, rows2)
				if a.Fitted.N != n || b.Fitted.N != n {
					t.Fatalf("n = %d, %d; want %d (every row kept)", a.Fitted.N, b.Fitted.N, n)
				}
				if a.Fitted.Sensitivity != b.Fitted.Sensitivity {
					t.Fatalf("S = %v, %v; want equal", a.Fitted.Sensitivity, b.Fitted.Sensitivity)
				}
				for _, f := range []map[string]int{a.Filled, b.Filled} {
					for _, v := range f {
						if v > 0 {
							filledPairs++
						}
					}
				}
				// The learners see neighbouring datasets: only record i differs.
				for k := range n {
					if k == i {
						continue
					}
					for j := range c.dim {
						if a.LearnerData().X[k*c.dim+j] != b.LearnerData().X[k*c.dim+j] {
							t.Fatalf("record %d (not the replaced %d) differs after filling", k, i)
						}
					}
					if a.Data.Labels != nil && a.Data.Labels[k] != b.Data.Labels[k] {
						t.Fatalf("label %d (not the replaced %d) differs after filling", k, i)
					}
				}
				s := a.Fitted.Sensitivity
				for q := range a.Exact {
					ratio := math.Abs(a.Exact[q]-b.Exact[q]) / s
					worst = max(worst, ratio)
					if ratio > 1+fillAuditSlack {
						t.Fatalf("|F_D − F_D′| / S = %v > 1 at lattice point %d\nD:  %q\nD′: %q", ratio, q, rows, rows2)
					}
				}
			}
			if filledPairs == 0 {
				t.Fatal("no pair had a filled value: the audit did not exercise filling")
			}
			t.Logf("%d pairs, largest ratio %.4f", c.pairs, worst)
		})
	}
}
