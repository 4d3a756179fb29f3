package dataset

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"
)

// TestEvalResultsCSV checks the CSV layout byte for byte: header with
// a renamed clashing feature, shortest round-trip numbers, class column.
func TestEvalResultsCSV(t *testing.T) {
	cases := []struct {
		name string
		r    *EvalResults
		want string
	}{
		{"classifier", &EvalResults{
			Features: []string{"age", "value"},
			X:        []float64{18, 1e-300, 40.25, 0.5, 90, -1e-300},
			Value:    []float64{-0.125, math.Nextafter(0.3, 1), 3e10},
			NoiseStd: []float64{0.5, 1.0 / 3, 0},
			Class:    []string{"no", "yes", `say "yes", please`},
		}, "age,feature:value,value,noise_std,class\n" +
			"18,1e-300,-0.125,0.5,no\n" +
			"40.25,0.5,0.30000000000000004,0.3333333333333333,yes\n" +
			"90,-1e-300,3e+10,0,\"say \"\"yes\"\", please\"\n"},
		{"density", &EvalResults{
			Features: []string{"x,1"},
			X:        []float64{0, 1},
			Value:    []float64{2.5, math.SmallestNonzeroFloat64},
			NoiseStd: []float64{0.01, math.MaxFloat64},
		}, "\"x,1\",value,noise_std\n" +
			"0,2.5,0.01\n" +
			"1,5e-324,1.7976931348623157e+308\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := tc.r.WriteCSV(&buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("CSV:\n%s\nwant:\n%s", buf.String(), tc.want)
			}
			// Every number reads back exactly.
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			dim := len(tc.r.Features)
			for i, row := range rows[1:] {
				for j := range dim {
					if v, _ := strconv.ParseFloat(row[j], 64); v != tc.r.X[i*dim+j] {
						t.Errorf("row %d feature %d: %s", i, j, row[j])
					}
				}
				if v, _ := strconv.ParseFloat(row[dim], 64); v != tc.r.Value[i] {
					t.Errorf("row %d value: %s", i, row[dim])
				}
				if v, _ := strconv.ParseFloat(row[dim+1], 64); v != tc.r.NoiseStd[i] {
					t.Errorf("row %d noise_std: %s", i, row[dim+1])
				}
			}
		})
	}
}

// TestEvalResultsCSVLarge writes more rows than one chunk.
func TestEvalResultsCSVLarge(t *testing.T) {
	n := 10_000
	r := &EvalResults{Features: []string{"x"}, X: make([]float64, n), Value: make([]float64, n), NoiseStd: make([]float64, n)}
	for i := range n {
		r.X[i], r.Value[i], r.NoiseStd[i] = float64(i), float64(2*i), 1
	}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 || rows[n][0] != "9999" || rows[n][1] != "19998" {
		t.Errorf("%d rows, last %v", len(rows), rows[len(rows)-1])
	}
}

func BenchmarkEvalResultsWriteCSV(b *testing.B) {
	n := 100_000
	r := &EvalResults{Features: []string{"x1", "x2"}, X: make([]float64, 2*n), Value: make([]float64, n), NoiseStd: make([]float64, n), Class: make([]string, n)}
	for i := range n {
		r.X[2*i], r.X[2*i+1], r.Value[i], r.NoiseStd[i], r.Class[i] = float64(i)/7, float64(i)/3, math.Sin(float64(i)), 0.01, "1"
	}
	for b.Loop() {
		var buf bytes.Buffer
		if err := r.WriteCSV(&buf); err != nil {
			b.Fatal(err)
		}
	}
}
