package release

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// readKeep reads csv as the command line and the curator window do: every
// row kept, invalid values missing.
func readKeep(t *testing.T, csv string, opts dataset.CSVOptions) *dataset.Table {
	t.Helper()
	opts.KeepInvalid = true
	ds, err := dataset.ParseCSV(strings.NewReader(csv), "t.csv", opts)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// neighbourCSVs returns two raw files that differ in one row: in the
// second, that row has an invalid feature value and a missing label.
func neighbourCSVs() (valid, invalid string) {
	var a, b strings.Builder
	a.WriteString("x,r\n")
	b.WriteString("x,r\n")
	for i := range 60 {
		row := []string{strFloat(float64(i%10) + 0.5), strFloat(float64(i%7) - 3)}
		a.WriteString(strings.Join(row, ",") + "\n")
		if i == 17 {
			row = []string{"n/a", ""}
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	return a.String(), b.String()
}

func strFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TestFillNeighboursSameNAndS is the reproduction of issue 13 item 2:
// two raw files differing in one row, one with an invalid value, used to
// give n = 60 vs 59 (--drop-invalid) and different S. Now both give the
// same n, the same S and the same public metadata; only the private fill
// count differs.
func TestFillNeighboursSameNAndS(t *testing.T) {
	validCSV, invalidCSV := neighbourCSVs()
	for _, kind := range []learners.Kind{learners.KindRidge, learners.KindKDE} {
		t.Run(string(kind), func(t *testing.T) {
			var preps []*Prepared
			for _, csv := range []string{validCSV, invalidCSV} {
				req := Request{
					Dataset: readKeep(t, csv, dataset.CSVOptions{Columns: []string{"x", "r"}}), Features: []string{"x"},
					Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "r": {Lo: -5, Hi: 5}},
					Learner: kind, Fill: map[string]float64{"x": 2.5},
					Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{4}, H: 1},
				}
				if kind == learners.KindRidge {
					req.Label = "r"
				}
				p, err := Prepare(context.Background(), req, nil)
				if err != nil {
					t.Fatal(err)
				}
				preps = append(preps, p)
			}
			a, b := preps[0], preps[1]
			if a.Fitted.N != 60 || b.Fitted.N != 60 {
				t.Errorf("n = %d and %d; want 60 for both (n is the number of data rows)", a.Fitted.N, b.Fitted.N)
			}
			if a.Fitted.Sensitivity != b.Fitted.Sensitivity {
				t.Errorf("S = %v and %v; want equal", a.Fitted.Sensitivity, b.Fitted.Sensitivity)
			}
			now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
			if ma, mb := a.synopsisMeta("t", now), b.synopsisMeta("t", now); !reflect.DeepEqual(ma, mb) {
				t.Errorf("public metadata differs:\n%+v\n%+v", ma, mb)
			}
			if a.Filled["x"] != 0 || b.Filled["x"] != 1 {
				t.Errorf("filled x = %d, %d; want 0, 1 (private counts)", a.Filled["x"], b.Filled["x"])
			}
			// The filled record is the public fill value, mapped like any other.
			if got := b.LearnerData().X[17]; got != 0.25 {
				t.Errorf("filled x maps to %v; want 0.25 (2.5 in [0, 10])", got)
			}
			if kind == learners.KindRidge {
				if b.Filled["r"] != 1 || b.Data.Labels[17] != 0 {
					t.Errorf("label: filled %d, value %v; want 1 filled with the midpoint 0 (→ 0)", b.Filled["r"], b.Data.Labels[17])
				}
				wantFill := []synopsis.FillRule{{Column: "x", Value: fptr(2.5)}, {Column: "r", Value: fptr(0)}}
				if !reflect.DeepEqual(b.Fill, wantFill) {
					t.Errorf("fill rules %+v; want %+v", b.Fill, wantFill)
				}
			}
		})
	}
}

func fptr(x float64) *float64 { return &x }

// TestDeclaredClasses covers issue 13 item 3: a label column with three
// values is no longer refused (the third is invalid and filled), a dataset
// in which only one class occurs is released like any other, text labels
// are read by their declaration, and class_labels come from the
// declaration only.
func TestDeclaredClasses(t *testing.T) {
	const x = "1,2,3,4,5,6,7,8"
	rows := func(labels string) string {
		xs, ls := strings.Split(x, ","), strings.Split(labels, ",")
		var b strings.Builder
		b.WriteString("x,c\n")
		for i := range xs {
			b.WriteString(xs[i] + "," + ls[i] + "\n")
		}
		return b.String()
	}
	cases := []struct {
		name      string
		labels    string
		classes   dataset.Classes
		fillClass string
		read      dataset.CSVOptions // Classes are filled in when text
		want      []float64
		filled    int
	}{
		{"three values", "3,5,7,3,7,5,3,7", dataset.Classes{Negative: "3", Positive: "7"}, "", dataset.CSVOptions{}, []float64{-1, -1, 1, -1, 1, -1, -1, 1}, 2},
		{"three values, fill positive", "3,5,7,3,7,5,3,7", dataset.Classes{Negative: "3", Positive: "7"}, "7", dataset.CSVOptions{}, []float64{-1, 1, 1, -1, 1, 1, -1, 1}, 2},
		{"one class only", "7,7,7,7,7,7,7,7", dataset.Classes{Negative: "3", Positive: "7"}, "", dataset.CSVOptions{}, []float64{1, 1, 1, 1, 1, 1, 1, 1}, 0},
		{"no declared class occurs", "1,1,1,1,1,1,1,1", dataset.Classes{Negative: "3", Positive: "7"}, "", dataset.CSVOptions{}, []float64{-1, -1, -1, -1, -1, -1, -1, -1}, 8},
		{"numbers spelled differently", "0,1.0,1e0, 0 ,,x,0.0,1", dataset.Classes{Negative: "0", Positive: "1"}, "", dataset.CSVOptions{}, []float64{-1, 1, 1, -1, -1, -1, -1, 1}, 2},
		{"text labels", "no,yes, yes ,maybe,NO,no,yes,", dataset.Classes{Negative: "no", Positive: "yes"}, "yes", dataset.CSVOptions{Classes: map[string]dataset.Classes{"c": {Negative: "no", Positive: "yes"}}},
			[]float64{-1, 1, 1, 1, 1, -1, 1, 1}, 3},
		{"text labels M/B, positive first in the file", "M,B,M,B,B,B,M,B", dataset.Classes{Negative: "B", Positive: "M"}, "", dataset.CSVOptions{Classes: map[string]dataset.Classes{"c": {Negative: "B", Positive: "M"}}},
			[]float64{1, -1, 1, -1, -1, -1, 1, -1}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := readKeep(t, rows(tc.labels), tc.read)
			e := newReleaseEnv(t)
			classes := tc.classes
			req := Request{
				Dataset: ds, Features: []string{"x"}, Label: "c", Classes: &classes, FillClass: tc.fillClass,
				Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}},
				Learner: learners.KindNaiveBayes,
				Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1},
			}
			p, err := Prepare(context.Background(), req, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Data.Labels, tc.want) || p.Filled["c"] != tc.filled {
				t.Errorf("labels %v, filled %d; want %v, %d", p.Data.Labels, p.Filled["c"], tc.want, tc.filled)
			}
			res, err := p.Release(context.Background(), e.opt)
			if err != nil {
				t.Fatal(err)
			}
			v, err := synopsis.Open(res.Path, e.trusted(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.File.Output.ClassLabels; !slices.Equal(got, classes.Labels()) {
				t.Errorf("class_labels %q; want the declaration %q", got, classes.Labels())
			}
			wantClass := classes.Negative
			if tc.fillClass != "" {
				wantClass = tc.fillClass
			}
			if f := v.File.Fill; len(f) != 2 || f[1] != (synopsis.FillRule{Column: "c", Class: wantClass}) || f[0].Column != "x" || *f[0].Value != 5 {
				t.Errorf("fill rules %+v; want x → 5 (midpoint), c → %q", f, wantClass)
			}
			if v.File.Learner.N != 8 {
				t.Errorf("n = %d; want 8", v.File.Learner.N)
			}
		})
	}
}

// TestDeclaredClassesReread checks WithClasses: a dataset opened before
// its text classes were declared (the curator window) is read again with
// them; a changed file is refused; settings errors name the rule.
func TestDeclaredClassesReread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("x,c\n1,no\n2,yes\n3,yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(opts dataset.CSVOptions) *dataset.Table {
		opts.KeepInvalid = true
		ds, err := dataset.ReadCSV(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	req := func(ds *dataset.Table, c dataset.Classes, fill string) Request {
		return Request{
			Dataset: ds, Features: []string{"x"}, Label: "c", Classes: &c, FillClass: fill,
			Bounds: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}}, Learner: learners.KindNaiveBayes,
			Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1},
		}
	}
	numeric := read(dataset.CSVOptions{})
	other := read(dataset.CSVOptions{Classes: map[string]dataset.Classes{"c": {Negative: "no", Positive: "yes"}}})
	for name, tc := range map[string]struct {
		ds   *dataset.Table
		c    dataset.Classes
		want []float64
	}{
		"text classes on a column read as numbers": {numeric, dataset.Classes{Negative: "no", Positive: "yes"}, []float64{-1, 1, 1}},
		"file read with other classes":             {other, dataset.Classes{Negative: "yes", Positive: "no"}, []float64{1, -1, -1}},
	} {
		p, err := Prepare(context.Background(), req(tc.ds, tc.c, ""), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(p.Data.Labels, tc.want) {
			t.Errorf("%s: labels %v; want %v", name, p.Data.Labels, tc.want)
		}
	}
	if _, err := Prepare(context.Background(), req(other, dataset.Classes{Negative: "no", Positive: "yes"}, "maybe"), nil); err == nil || !strings.Contains(err.Error(), "fill class") {
		t.Errorf("undeclared fill class: err = %v", err)
	}
	if _, err := Prepare(context.Background(), req(numeric, dataset.Classes{Negative: "0 ", Positive: "1"}, ""), nil); err == nil || !strings.Contains(err.Error(), "surrounding spaces") {
		t.Errorf("class with a space: err = %v", err)
	}
	if err := os.WriteFile(path, []byte("x,c\n1,no\n2,yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(context.Background(), req(numeric, dataset.Classes{Negative: "no", Positive: "yes"}, ""), nil); err == nil || !strings.Contains(err.Error(), "changed since it was opened") {
		t.Errorf("changed file: err = %v", err)
	}
}

func TestParseClasses(t *testing.T) {
	for in, want := range map[string]dataset.Classes{"0,1": {Negative: "0", Positive: "1"}, " no , yes ": {Negative: "no", Positive: "yes"}, "M,B": {Negative: "M", Positive: "B"}} {
		if got, err := dataset.ParseClasses(in); err != nil || got != want {
			t.Errorf("ParseClasses(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{"1": "two class values", "a,b,c": "two class values", ",1": "negative class value is empty",
		"1,": "positive class value is empty", "1,1.0": "same value", "a,a": "same value", "a,\x01": "control character"} {
		if _, err := dataset.ParseClasses(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseClasses(%q) err = %v; want %q", in, err, want)
		}
	}
}

// TestSynopsisFillRules checks the format rules of "fill": absent in old
// files, otherwise one valid rule per used column.
func TestSynopsisFillRules(t *testing.T) {
	v := releasedClassifier(t)
	f := v.File
	if len(f.Fill) != 3 {
		t.Fatalf("fill = %+v; want rules for x, y and c", f.Fill)
	}
	old := *f
	old.Fill = nil
	if err := old.Validate(); err != nil {
		t.Errorf("a file without fill rules (older format-1 files) is refused: %v", err)
	}
	for name, edit := range map[string]func(g *synopsis.File){
		"empty list":             func(g *synopsis.File) { g.Fill = []synopsis.FillRule{} },
		"one missing":            func(g *synopsis.File) { g.Fill = g.Fill[:2] },
		"wrong column":           func(g *synopsis.File) { g.Fill[0].Column = "z" },
		"value outside bounds":   func(g *synopsis.File) { g.Fill[1].Value = fptr(100) },
		"NaN value":              func(g *synopsis.File) { g.Fill[0].Value = fptr(math.NaN()) },
		"feature with a class":   func(g *synopsis.File) { g.Fill[0].Class = "3" },
		"label class undeclared": func(g *synopsis.File) { g.Fill[2].Class = "5" },
		"label with a value":     func(g *synopsis.File) { g.Fill[2].Value = fptr(3) },
	} {
		g := *f
		g.Fill = synopsis.CloneFill(f.Fill)
		edit(&g)
		err := g.Validate()
		var fe *synopsis.FormatError
		if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, "fill") {
			t.Errorf("%s: Validate = %v; want a *FormatError on fill", name, err)
		}
	}
}

// TestSuggestBoundsSkipsMissing: bounds suggested from the data ignore
// missing values instead of becoming NaN.
func TestSuggestBoundsSkipsMissing(t *testing.T) {
	ds := readKeep(t, "x\n3\nabc\n-1\n\"\"\n", dataset.CSVOptions{})
	b, err := ds.SuggestBounds("x")
	if err != nil || b != (dataset.Bounds{Lo: -1, Hi: 3}) {
		t.Errorf("SuggestBounds = %v, %v; want [-1, 3]", b, err)
	}
}
