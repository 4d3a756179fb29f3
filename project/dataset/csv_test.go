package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseCSVGood(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		opts    CSVOptions
		columns []string
		delim   rune
		data    map[string][]float64
		rows    int
		dropped int
		dlines  []int
	}{
		{name: "comma", input: "a,b\n1,2\n3,4\n", columns: []string{"a", "b"}, delim: ',',
			data: map[string][]float64{"a": {1, 3}, "b": {2, 4}}, rows: 2},
		{name: "semicolon", input: "a;b\n1.5;2\n", columns: []string{"a", "b"}, delim: ';',
			data: map[string][]float64{"a": {1.5}, "b": {2}}, rows: 1},
		{name: "tab", input: "a\tb\n1\t-2e3\n", columns: []string{"a", "b"}, delim: '\t',
			data: map[string][]float64{"a": {1}, "b": {-2000}}, rows: 1},
		{name: "single column", input: "x\n0.25\n", columns: []string{"x"}, delim: ',',
			data: map[string][]float64{"x": {0.25}}, rows: 1},
		{name: "delimiter inside quoted header ignored", input: "\"a;b\",c\n1,2\n", columns: []string{"a;b", "c"}, delim: ',',
			data: map[string][]float64{"a;b": {1}, "c": {2}}, rows: 1},
		{name: "explicit delimiter", input: "a;b,c\n1,2\n", opts: CSVOptions{Import: ImportOptions{Delimiter: ','}}, columns: []string{"a;b", "c"}, delim: ',',
			data: map[string][]float64{"a;b": {1}, "c": {2}}, rows: 1},
		{name: "BOM stripped, CRLF, no final newline", input: "\xEF\xBB\xBFa,b\r\n1,2\r\n3,4", columns: []string{"a", "b"}, delim: ',',
			data: map[string][]float64{"a": {1, 3}, "b": {2, 4}}, rows: 2},
		{name: "spaces and quotes around numbers", input: "a , b\n 1 ,\"2\"\n", columns: []string{"a", "b"}, delim: ',',
			data: map[string][]float64{"a": {1}, "b": {2}}, rows: 1},
		{name: "blank lines skipped", input: "a\n\n1\n\n2\n", columns: []string{"a"}, delim: ',',
			data: map[string][]float64{"a": {1, 2}}, rows: 2},
		{name: "text column kept as text when columns nil", input: "name,v\nann,1\nbob,2\n", columns: []string{"name", "v"}, delim: ',',
			data: map[string][]float64{"v": {1, 2}}, rows: 2},
		{name: "only listed columns parsed", input: "name,v,w\nann,1,x\n", opts: CSVOptions{Columns: []string{"v"}}, columns: []string{"name", "v", "w"}, delim: ',',
			data: map[string][]float64{"v": {1}}, rows: 1},
		{name: "quoted newline in a text column", input: "note,v\n\"two\nlines\",1\n3,4\n", opts: CSVOptions{Columns: []string{"v"}}, columns: []string{"note", "v"}, delim: ',',
			data: map[string][]float64{"v": {1, 4}}, rows: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseCSV(strings.NewReader(tc.input), "t.csv", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Columns, tc.columns) {
				t.Errorf("Columns = %q, want %q", d.Columns, tc.columns)
			}
			if d.Delimiter != tc.delim {
				t.Errorf("Delimiter = %q, want %q", d.Delimiter, tc.delim)
			}
			if !reflect.DeepEqual(d.Data, tc.data) {
				t.Errorf("Data = %v, want %v", d.Data, tc.data)
			}
			if d.Rows != tc.rows || d.Invalid != nil {
				t.Errorf("Rows, Invalid = %d, %v; want %d, none", d.Rows, d.Invalid, tc.rows)
			}
			sum := sha256.Sum256([]byte(tc.input))
			if d.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("Hash = %s, want SHA-256 of the input bytes", d.Hash)
			}
			if d.Path != "t.csv" {
				t.Errorf("Path = %q", d.Path)
			}
		})
	}
}

func TestParseCSVPreview(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,name\n")
	for i := range 250 {
		fmt.Fprintf(&b, "%d,n%d\n", i, i)
	}
	d, err := ParseCSV(strings.NewReader(b.String()), "p.csv", CSVOptions{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows != 250 || len(d.Preview) != PreviewRows {
		t.Fatalf("Rows = %d, len(Preview) = %d; want 250, %d", d.Rows, len(d.Preview), PreviewRows)
	}
	if got := d.Preview[99]; !reflect.DeepEqual(got, []string{"99", "n99"}) {
		t.Errorf("Preview[99] = %q", got)
	}
}

func TestDatasetColumn(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("name,v\nann,1\n7,2\n"), "c.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.NumericColumns(); !reflect.DeepEqual(got, []string{"v"}) {
		t.Errorf("NumericColumns = %q", got)
	}
	tests := []struct {
		col, wantErr string
	}{
		{"v", ""},
		{"name", `c.csv:2:1 (column "name"): column is not numeric: "ann" is not a number`},
		{"zzz", `c.csv (column "zzz"): no such column (columns: "name", "v")`},
	}
	for _, tc := range tests {
		_, err := d.Column(tc.col)
		if got := fmt.Sprint(err); (tc.wantErr == "" && err != nil) || (tc.wantErr != "" && got != tc.wantErr) {
			t.Errorf("Column(%q) err = %v, want %q", tc.col, err, tc.wantErr)
		}
	}
	d2, err := ParseCSV(strings.NewReader("name,v\nann,1\n"), "c.csv", CSVOptions{Columns: []string{"v"}})
	if err != nil {
		t.Fatal(err)
	}
	var ce *CSVError
	if _, err := d2.Column("name"); !errors.As(err, &ce) || !strings.Contains(ce.Rule, "read as text") {
		t.Errorf("text column: err = %v", err)
	}
}

func TestMapToUnit(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("a,b,s\n0,10,x\n5,20,y\n10,40,z\n-1,25,w\n"), "m.csv", CSVOptions{Columns: []string{"a", "b"}})
	if err != nil {
		t.Fatal(err)
	}
	x, clipped, err := d.MapToUnit([]string{"a", "b"}, []Bounds{{0, 10}, {20, 30}})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0, 0.5, 0, 1, 1, 0, 0.5}
	const tol = 1e-15
	for i := range want {
		if math.Abs(x[i]-want[i]) > tol {
			t.Errorf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
	if !reflect.DeepEqual(clipped, []int{1, 2}) {
		t.Errorf("clipped = %v, want [1 2]", clipped)
	}

	bad := []struct {
		name   string
		cols   []string
		bounds []Bounds
		want   string
	}{
		{"no columns", nil, nil, "no feature columns"},
		{"length mismatch", []string{"a"}, []Bounds{{0, 1}, {0, 1}}, "1 feature columns but 2 bounds"},
		{"unknown column", []string{"q"}, []Bounds{{0, 1}}, "no such column"},
		{"text column", []string{"s"}, []Bounds{{0, 1}}, "read as text"},
		{"duplicate column", []string{"a", "a"}, []Bounds{{0, 1}, {0, 1}}, "selected twice"},
		{"lo = hi", []string{"a"}, []Bounds{{1, 1}}, "lower bound 1 must be less than upper bound 1"},
		{"lo > hi", []string{"a"}, []Bounds{{2, 1}}, "must be less than"},
		{"NaN", []string{"a"}, []Bounds{{math.NaN(), 1}}, "lower bound NaN is not a finite number"},
		{"Inf", []string{"a"}, []Bounds{{0, math.Inf(1)}}, "upper bound +Inf is not a finite number"},
		{"too wide", []string{"a"}, []Bounds{{-math.MaxFloat64, math.MaxFloat64}}, "too wide"},
	}
	for _, tc := range bad {
		_, _, err := d.MapToUnit(tc.cols, tc.bounds)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

func TestSuggestBounds(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("a,c\n3,7\n-1,7\n2,7\n"), "s.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		col  string
		want Bounds
		err  bool
	}{
		{"a", Bounds{-1, 3}, false},
		{"c", Bounds{6.5, 7.5}, false},
		{"nope", Bounds{}, true},
	}
	for _, tc := range tests {
		got, err := d.SuggestBounds(tc.col)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("SuggestBounds(%q) = %v, %v; want %v, error %v", tc.col, got, err, tc.want, tc.err)
		}
	}
}

func TestBinaryLabels(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("y,z,w\n0,1,1\n1,2,1\n0,3,1\n"), "l.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.BinaryLabels("y", 1)
	if err != nil || !reflect.DeepEqual(got, []float64{-1, 1, -1}) {
		t.Errorf("BinaryLabels(y, 1) = %v, %v", got, err)
	}
	got, err = d.BinaryLabels("y", 0)
	if err != nil || !reflect.DeepEqual(got, []float64{1, -1, 1}) {
		t.Errorf("BinaryLabels(y, 0) = %v, %v", got, err)
	}
	for _, tc := range []struct {
		col  string
		pos  float64
		want string
	}{
		{"z", 1, "exactly two distinct values, found 1, 2, 3, …"},
		{"w", 1, "exactly two distinct values, found 1"},
		{"y", 2, "positive class 2 is not one of the label values 0 and 1"},
		{"q", 1, "no such column"},
	} {
		if _, err := d.BinaryLabels(tc.col, tc.pos); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("BinaryLabels(%s, %v) err = %v, want %q", tc.col, tc.pos, err, tc.want)
		}
	}
}

func TestRealLabels(t *testing.T) {
	d, err := ParseCSV(strings.NewReader("y\n0\n5\n10\n12\n"), "r.csv", CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	y, clipped, err := d.RealLabels("y", Bounds{0, 10})
	if err != nil || !reflect.DeepEqual(y, []float64{-1, 0, 1, 1}) || clipped != 1 {
		t.Errorf("RealLabels = %v, %d, %v; want [-1 0 1 1], 1", y, clipped, err)
	}
	if _, _, err := d.RealLabels("y", Bounds{1, 0}); err == nil || !strings.Contains(err.Error(), "invalid label bounds") {
		t.Errorf("bad bounds: err = %v", err)
	}
}

func TestDetectDelimiter(t *testing.T) {
	tests := []struct {
		head string
		want rune
	}{
		{"", ','},
		{"a", ','},
		{"a;b;c\n1,2", ';'},
		{"a\tb\n", '\t'},
		{"a,b;c\n", ','}, // tie: comma
		{"\"x,y,z\";b;c\n", ';'},
		{"a;b\n1,2,3,4,5\n", ';'}, // only the first line counts
	}
	for _, tc := range tests {
		if got, _ := detectDelimiter([]byte(tc.head), ImportOptions{}); got != tc.want {
			t.Errorf("detectDelimiter(%q) = %q, want %q", tc.head, got, tc.want)
		}
	}
}
