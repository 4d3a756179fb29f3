package dataset

import (
	"fmt"
	"math"
	"slices"
)

// MappedRows are the features of a Table mapped to [0,1]^ℓ by public
// bounds, read a range of records at a time from the table's columns
// instead of copied (issue 20: a release of 10⁷ rows would otherwise hold
// the table and an n·ℓ mapped copy at once). It satisfies
// learners.RecordSource. Every range holds exactly the values MapToUnit
// returns (MapToUnit is Records over all rows: one rule). It reads the
// table's columns: the table must not change while it is in use.
type MappedRows struct {
	cols   [][]float64
	bounds []Bounds
	fill   []float64 // per column: what a missing value (NaN) is read as; NaN: none
	n      int
}

// MappedRows returns the features cols mapped by bounds, as MapToUnit
// validates them (same errors), and clipped[j], the number of values of
// cols[j] outside its bounds (clipped to 0 or 1): private, for the curator
// only, as MapToUnit's. A missing value (NaN) of a column in fill is read
// as its fill value: the rows of WithFilled(fill), without its copy of
// the column (nil: none filled). It reads each column once to count; no
// copy is made.
func (d *Table) MappedRows(cols []string, bounds []Bounds, fill map[string]float64) (*MappedRows, []int, error) {
	if len(cols) == 0 {
		return nil, nil, &CSVError{File: d.Path, Rule: "no feature columns selected"}
	}
	if len(cols) != len(bounds) {
		return nil, nil, &CSVError{File: d.Path, Rule: fmt.Sprintf("%d feature columns but %d bounds; give one [lo, hi] per column", len(cols), len(bounds))}
	}
	m := &MappedRows{cols: make([][]float64, len(cols)), bounds: slices.Clone(bounds), fill: make([]float64, len(cols)), n: d.Rows}
	for j, c := range cols {
		m.fill[j] = math.NaN()
		if f, ok := fill[c]; ok {
			m.fill[j] = f
		}
		if slices.Index(cols, c) != j {
			return nil, nil, &CSVError{File: d.Path, ColumnName: c, Rule: "column selected twice as a feature"}
		}
		var err error
		if m.cols[j], err = d.Column(c); err != nil {
			return nil, nil, err
		}
		if err := bounds[j].Validate(); err != nil {
			return nil, nil, &CSVError{File: d.Path, ColumnName: c, Rule: "invalid bounds: " + err.Error()}
		}
		if len(m.cols[j]) != d.Rows {
			return nil, nil, &CSVError{File: d.Path, ColumnName: c, Rule: fmt.Sprintf("column has %d values for %d rows", len(m.cols[j]), d.Rows)}
		}
	}
	clipped := make([]int, len(cols))
	for j, col := range m.cols {
		b, f := m.bounds[j], m.fill[j]
		for _, v := range col {
			if v != v {
				v = f
			}
			if _, c := b.unit(v); c {
				clipped[j]++
			}
		}
	}
	return m, clipped, nil
}

// Len returns the number of records.
func (m *MappedRows) Len() int { return m.n }

// Records writes records [lo, hi) mapped to [0,1]^ℓ, row-major, into dst:
// record lo+i is dst[i*ℓ : (i+1)*ℓ], value (v − Lo)/(Hi − Lo) clipped to
// [0, 1], a missing value as its fill value's. It panics if the range or
// dst is too small (programmer misuse).
func (m *MappedRows) Records(dst []float64, lo, hi int) {
	l := len(m.cols)
	dst = dst[:(hi-lo)*l]
	for j, col := range m.cols {
		b, f := m.bounds[j], m.fill[j]
		for i, v := range col[lo:hi] {
			if v != v {
				v = f
			}
			dst[i*l+j], _ = b.unit(v)
		}
	}
}
