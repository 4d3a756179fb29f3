package dataset

import (
	"math"
	rand "math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMappedRowsSameAsMapToUnit checks that MappedRows gives, over any
// range of records, exactly (==) the values Bounds.unit maps each value to
// and MapToUnit returns, and the same clipped counts: the learner reading
// the rows in place sees the data the mapped copy held (issue 20).
func TestMappedRowsSameAsMapToUnit(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1)) // seeded: test data only
	const n = 5000
	d := &Table{Path: "m.csv", Rows: n, Data: map[string][]float64{"a": make([]float64, n), "b": make([]float64, n), "c": make([]float64, n)}}
	for i := range n {
		d.Data["a"][i] = 12 * r.NormFloat64()
		d.Data["b"][i] = math.Ldexp(r.Float64(), r.IntN(40)-20)
		d.Data["c"][i] = float64(r.IntN(7)) - 3
	}
	cols := []string{"c", "a", "b"}
	bounds := []Bounds{{-2, 2}, {-10, 30}, {0, 0.3}}
	x, clipped, err := d.MapToUnit(cols, bounds)
	if err != nil {
		t.Fatal(err)
	}
	m, clipped2, err := d.MappedRows(cols, bounds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != n || !slices.Equal(clipped, clipped2) {
		t.Fatalf("Len %d, clipped %v; want %d, %v", m.Len(), clipped2, n, clipped)
	}
	want := make([]int, len(cols))
	for j, c := range cols {
		for i, v := range d.Data[c] {
			u, cl := bounds[j].unit(v)
			if x[i*len(cols)+j] != u {
				t.Fatalf("MapToUnit record %d column %s = %v; want %v", i, c, x[i*len(cols)+j], u)
			}
			if cl {
				want[j]++
			}
		}
	}
	if !slices.Equal(clipped, want) || want[0] == 0 || want[1] == 0 || want[2] == 0 {
		t.Fatalf("clipped %v; want %v, none zero", clipped, want)
	}
	buf := make([]float64, n*len(cols))
	for range 200 {
		lo := r.IntN(n + 1)
		hi := lo + r.IntN(n+1-lo)
		m.Records(buf, lo, hi)
		if !slices.Equal(buf[:(hi-lo)*len(cols)], x[lo*len(cols):hi*len(cols)]) {
			t.Fatalf("Records(%d, %d) differs from MapToUnit's rows", lo, hi)
		}
	}
	if _, _, err := (&Table{Path: "s.csv", Rows: 3, Data: map[string][]float64{"a": {1, 2}}}).MappedRows([]string{"a"}, []Bounds{{0, 1}}, nil); err == nil {
		t.Error("a column shorter than the table's rows: no error")
	}
}

// TestMappedRowsFillSameAsWithFilled checks that reading missing values as
// their fill values in place (MappedRows, RealLabelsFilled) gives exactly
// the values of the filled copy (WithFilled) and its clipped counts.
func TestMappedRowsFillSameAsWithFilled(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("a,b,r\n1,,3\n,0.5,-9\n2,5,\n-4,,3\n0,0,0\n"), "f.csv", CSVOptions{KeepInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	fill := map[string]float64{"a": 0.25, "b": 1, "r": -1.5}
	filled, _ := d.WithFilled(fill)
	cols, bounds := []string{"a", "b"}, []Bounds{{-1, 1}, {0, 2}}
	want, wantClipped, err := filled.MapToUnit(cols, bounds)
	if err != nil {
		t.Fatal(err)
	}
	m, clipped, err := d.MappedRows(cols, bounds, fill)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, len(want))
	m.Records(got, 0, m.Len())
	if !slices.Equal(got, want) || !slices.Equal(clipped, wantClipped) {
		t.Fatalf("in place %v clipped %v; filled copy %v clipped %v", got, clipped, want, wantClipped)
	}
	yw, cw, err := filled.RealLabels("r", Bounds{-5, 5})
	if err != nil {
		t.Fatal(err)
	}
	yg, cg, err := d.RealLabelsFilled("r", Bounds{-5, 5}, fill)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(yg, yw) || cg != cw || slices.ContainsFunc(yg, math.IsNaN) {
		t.Fatalf("labels in place %v (%d clipped); filled copy %v (%d)", yg, cg, yw, cw)
	}
}
