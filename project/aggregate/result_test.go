package aggregate

import (
	"context"
	"errors"
	"fmt"
	"math"
	rand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func kdeSpec2(n int) Spec {
	s := goldenSpecs()["kde"]
	s.Bins = 8
	s.N = n
	return s
}

// TestResultNIsDeclared checks the public-n rule: the counts of the table
// must add up to the declared n; a table never defines n.
func TestResultNIsDeclared(t *testing.T) {
	p := writeFile(t, "agg.csv", "bin_1,bin_2,records\n0,3,2\n5,1,3\n")
	for _, tc := range []struct {
		n    int
		want string
	}{
		{5, ""},
		{6, "the aggregates count 5 records but the declared n is 6"},
		{4, "count more than 4 records but the declared n is 4"},
		{0, "declare the public number of records n"},
	} {
		r, err := ReadResultCSV(p, kdeSpec2(tc.n), DuckDB)
		if err != nil {
			t.Fatal(err)
		}
		f, err := r.Fit(context.Background(), learners.Values{"bandwidth": {0.1}})
		if tc.want == "" {
			if err != nil || f.N != 5 {
				t.Errorf("n = %d: %v", tc.n, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("n = %d: Fit = %v, want an error containing %q", tc.n, err, tc.want)
		}
	}
	rs := goldenSpecs()["ridge"]
	rs.N = 11
	p = writeFile(t, "ridge.csv", "records,sum_x1,sum_x2,sum_x1_x1,sum_x1_x2,sum_x2_x2,sum_x1_y,sum_x2_y,sum_y\n10,5,5,3,2.5,3,0.1,0.2,0.3\n")
	r, err := ReadResultCSV(p, rs, Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "count 10 records but the declared n is 11") {
		t.Errorf("ridge: Fit = %v, want the n refusal", err)
	}
}

// TestReadResultCSVRefusals checks that a malformed table is refused with
// the file, line and column.
func TestReadResultCSVRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		spec       Spec
		want       string
		line       int
	}{
		{"bin too large", "bin_1,bin_2,records\n0,8,2\n", kdeSpec2(2), "not a whole number in [0, 7]", 2},
		{"bin fraction", "bin_1,bin_2,records\n0,1,2\n0.5,1,1\n", kdeSpec2(3), "not a whole number", 3},
		{"count zero", "bin_1,bin_2,records\n0,1,0\n", kdeSpec2(1), "not a whole number in [1,", 2},
		{"duplicate cell", "bin_1,bin_2,records\n0,1,1\n2,2,1\n0,1,1\n", kdeSpec2(3), "the same cell as line 2", 4},
		{"first duplicate", "bin_1,bin_2,records\n0,1,1\n2,2,1\n2,2,1\n0,1,1\n", kdeSpec2(4), "the same cell as line 3", 4},
		{"nb duplicate", "class,feature,bin,records\n1,1,3,1\n-1,1,3,1\n1,1,3,2\n", goldenSpecs()["naive-bayes"], "the same cell as line 2", 4},
		{"not a number", "bin_1,bin_2,records\n0,x,1\n", kdeSpec2(1), "not a number", 2},
		{"missing column", "bin_1,records\n0,1\n", kdeSpec2(1), "bin_2", 0},
		{"extra column", "bin_1,bin_2,records,other\n0,1,1,5\n", kdeSpec2(1), "not a column of the kde aggregate table", 0},
		{"ridge two rows", "records,sum_x1,sum_x2,sum_x1_x1,sum_x1_x2,sum_x2_x2,sum_x1_y,sum_x2_y,sum_y\n1,0,0,0,0,0,0,0,0\n1,0,0,0,0,0,0,0,0\n", goldenSpecs()["ridge"], "2 data rows", 0},
		{"nb class", "class,feature,bin,records\n0,1,3,1\n", goldenSpecs()["naive-bayes"], "not a learner class", 2},
		{"nb feature", "class,feature,bin,records\n1,3,3,1\n", goldenSpecs()["naive-bayes"], "not a whole number in [1, 2]", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, "agg.csv", tc.text)
			_, err := ReadResultCSV(p, tc.spec, DuckDB)
			var ce *dataset.CSVError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("ReadResultCSV = %v, want a CSVError naming the file and containing %q", err, tc.want)
			}
			if tc.line != 0 && ce.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", ce.Line, tc.line, err)
			}
		})
	}
}

// mappedRidgeData returns n records of spec's columns as a dataset.Table
// read from CSV (with missing and non-numeric values), and the learner
// dataset the in-memory release fits: filled, mapped and clipped.
func mappedRidgeData(t *testing.T, spec Spec, n int, seed uint64) (string, learners.Dataset) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 20))
	var b strings.Builder
	names := []string{}
	for _, f := range spec.Features {
		names = append(names, f.Name)
	}
	names = append(names, spec.Label.Name)
	b.WriteString(strings.Join(names, ",") + "\n")
	for range n {
		row := make([]string, len(names))
		var s float64
		for j, f := range spec.Features {
			v := f.Bounds.Lo + (f.Bounds.Hi-f.Bounds.Lo)*(1.2*r.Float64()-0.1) // some outside the bounds
			s += v
			row[j] = strconv.FormatFloat(v, 'g', -1, 64)
			if r.IntN(30) == 0 {
				row[j] = []string{"", "NaN", "abc", "1_0"}[r.IntN(4)]
			}
		}
		row[len(row)-1] = strconv.FormatFloat(0.5*s+r.NormFloat64(), 'g', -1, 64)
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := writeFile(t, "data.csv", b.String())
	tab, err := dataset.ReadCSV(p, dataset.CSVOptions{Columns: names, KeepInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string]float64{spec.Label.Name: spec.Label.Fill}
	bounds := make([]dataset.Bounds, len(spec.Features))
	for j, f := range spec.Features {
		fill[f.Name] = f.Fill
		bounds[j] = f.Bounds
	}
	tab, _ = tab.WithFilled(fill)
	x, _, err := tab.MapToUnit(names[:len(spec.Features)], bounds)
	if err != nil {
		t.Fatal(err)
	}
	y, _, err := tab.RealLabels(spec.Label.Name, spec.Label.Bounds)
	if err != nil {
		t.Fatal(err)
	}
	return p, learners.Dataset{Dim: len(spec.Features), X: x, Labels: y}
}

// ridgeTable writes the ridge aggregate table of d as an engine would
// (sums as decimals).
func ridgeTable(d learners.Dataset) string {
	n, l := d.N(), d.Dim
	sums := map[string]float64{}
	for i := range n {
		x := d.X[i*l : (i+1)*l]
		for j := range l {
			sums[fmt.Sprintf("sum_x%d", j+1)] += x[j]
			sums[fmt.Sprintf("sum_x%d_y", j+1)] += x[j] * d.Labels[i]
			for k := j; k < l; k++ {
				sums[fmt.Sprintf("sum_x%d_x%d", j+1, k+1)] += x[j] * x[k]
			}
		}
		sums["sum_y"] += d.Labels[i]
	}
	spec := Spec{Learner: learners.KindRidge, Features: make([]Feature, l)}
	cols := Columns(spec)
	vals := []string{strconv.Itoa(n)}
	for _, c := range cols[1:] {
		vals = append(vals, strconv.FormatFloat(sums[c], 'f', 24, 64))
	}
	return strings.Join(cols, ",") + "\n" + strings.Join(vals, ",") + "\n"
}

// TestRidgeResultSameFitAsInMemory checks that ridge from its aggregate
// table gives the in-memory release's fit: same S and range, the same
// function to 1e-9 relative.
func TestRidgeResultSameFitAsInMemory(t *testing.T) {
	spec := goldenSpecs()["ridge"]
	spec.N = 900
	_, data := mappedRidgeData(t, spec, spec.N, 1)
	p := writeFile(t, "ridge.csv", ridgeTable(data))
	for _, d := range Dialects {
		r, err := ReadResultCSV(p, spec, d)
		if err != nil {
			t.Fatal(err)
		}
		vals := learners.Values{"C": {2}}
		agg, err := r.Fit(context.Background(), vals)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := learners.NewRidge().Fit(context.Background(), data, vals)
		if err != nil {
			t.Fatal(err)
		}
		if agg.Sensitivity != mem.Sensitivity || agg.OutputRange != mem.OutputRange {
			t.Errorf("%s: S %v range %v; in memory %v %v", d, agg.Sensitivity, agg.OutputRange, mem.Sensitivity, mem.OutputRange)
		}
		assertSameFunction(t, agg.Oracle, mem.Oracle, mem.OutputRange[1], 1e-9)
	}
}

// assertSameFunction compares two oracles on a 9^ℓ grid to tol of scale.
func assertSameFunction(t *testing.T, a, b interface{ Eval([]float64) float64 }, scale, tol float64) {
	t.Helper()
	dim := 2
	y := make([]float64, dim)
	for i := range 81 {
		y[0], y[1] = float64(i/9)/8, float64(i%9)/8
		fa, fb := a.Eval(y), b.Eval(y)
		if math.Abs(fa-fb) > tol*scale {
			t.Fatalf("F(%v): aggregates %v, in memory %v", y, fa, fb)
		}
	}
}
