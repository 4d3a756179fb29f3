package dataset

import (
	"math"
	"slices"
)

// missing records a missing value of col (CSVOptions.KeepInvalid) and
// returns NaN, the in-memory mark of a missing value.
func (d *Table) missing(col string) float64 {
	if d.Invalid == nil {
		d.Invalid = make(map[string]int)
	}
	d.Invalid[col]++
	return math.NaN()
}

// withFilled returns a shallow copy of d whose columns in fill have every
// missing value (NaN) replaced by their fill value, and the number of
// values replaced per column (private: curator only). d is not changed.
func (d *Table) WithFilled(fill map[string]float64) (*Table, map[string]int) {
	out := *d
	out.Data = make(map[string][]float64, len(d.Data))
	for col, v := range d.Data {
		out.Data[col] = v
	}
	filled := make(map[string]int, len(fill))
	for col, f := range fill {
		v, ok := d.Data[col]
		if !ok || !slices.ContainsFunc(v, math.IsNaN) {
			continue
		}
		w := slices.Clone(v)
		for i, x := range w {
			if math.IsNaN(x) {
				w[i] = f
				filled[col]++
			}
		}
		out.Data[col] = w
	}
	return &out, filled
}

// numbersOnly returns v without its missing values (NaN), v itself if it
// has none.
func numbersOnly(v []float64) []float64 {
	if !slices.ContainsFunc(v, math.IsNaN) {
		return v
	}
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}
