package dataset

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Bounds is a public interval [Lo, Hi] for one column. The curator chooses
// it from domain knowledge; values outside are clipped to it. The Bernstein
// mechanism's sensitivity bounds assume every record lies in [0,1]^ℓ after
// mapping by these bounds (Aldà & Rubinstein 2017, Section 3), so the bounds
// must not depend on the data unless the curator accepts that leak.
type Bounds struct {
	Lo, Hi float64
}

// Validate checks Lo < Hi and that both are finite.
func (b Bounds) Validate() error {
	switch {
	case !isFinite(b.Lo):
		return fmt.Errorf("lower bound %v is not a finite number", b.Lo)
	case !isFinite(b.Hi):
		return fmt.Errorf("upper bound %v is not a finite number", b.Hi)
	case !(b.Lo < b.Hi):
		return fmt.Errorf("lower bound %v must be less than upper bound %v", b.Lo, b.Hi)
	case math.IsInf(b.Hi-b.Lo, 0):
		return fmt.Errorf("bounds [%v, %v] are too wide: their width overflows a float64", b.Lo, b.Hi)
	}
	return nil
}

// unit maps v to [0,1] by b, clipping; clipped reports whether it did.
func (b Bounds) unit(v float64) (u float64, clipped bool) {
	switch {
	case v < b.Lo:
		return 0, true
	case v > b.Hi:
		return 1, true
	}
	u = (v - b.Lo) / (b.Hi - b.Lo)
	return min(max(u, 0), 1), false
}

// MapToUnit returns the features cols mapped to [0,1]^ℓ (ℓ = len(cols)) by
// the public bounds, row-major: record i is x[i*ℓ : (i+1)*ℓ], with
// x = (v − Lo)/(Hi − Lo). Values outside their bounds are clipped to 0 or 1,
// and clipped[j] counts the clipped values of cols[j].
//
// This is the domain assumption of the Bernstein mechanism (the data lie in
// [0,1]^ℓ; Aldà & Rubinstein 2017, Section 2): clipping to public bounds
// keeps every record in the domain, so the learners' sensitivity holds.
// The clipped counts depend on the private data: show them to the curator
// only, never release them.
//
// Errors: cols empty or of a different length than bounds, a column
// missing or not numeric, or invalid bounds (each error names the column).
func (d *Table) MapToUnit(cols []string, bounds []Bounds) (x []float64, clipped []int, err error) {
	m, clipped, err := d.MappedRows(cols, bounds, nil)
	if err != nil {
		return nil, nil, err
	}
	x = make([]float64, m.Len()*len(cols))
	m.Records(x, 0, m.Len())
	return x, clipped, nil
}

// SuggestBounds returns the smallest and largest value of a numeric column
// (widened to [v−0.5, v+0.5] for a constant column).
//
// Privacy: these bounds are derived from the private data, so using them
// leaks the minimum and maximum, which is NOT covered by the ε of any
// release. Callers must show this to the curator and record their
// acknowledgement (the workspace stores it with the bounds) before using a
// suggestion; prefer bounds from domain knowledge.
func (d *Table) SuggestBounds(col string) (Bounds, error) {
	v, err := d.Column(col)
	if err != nil {
		return Bounds{}, err
	}
	v = numbersOnly(v) // missing values (CSVOptions.KeepInvalid) are not data
	if len(v) == 0 {
		return Bounds{}, &CSVError{File: d.Path, ColumnName: col, Rule: "column has no values"}
	}
	b := Bounds{Lo: slices.Min(v), Hi: slices.Max(v)}
	if b.Lo == b.Hi {
		b.Lo, b.Hi = b.Lo-0.5, b.Hi+0.5
	}
	return b, nil
}

// BinaryLabels maps a label column with exactly two distinct values to
// +1 (the value positive) and −1 (the other value), the label domain of the
// classification learners (Aldà & Rubinstein 2017, Section 6).
//
// Errors: the column missing or not numeric, not exactly two distinct
// values (the first few are listed), or positive not among them.
func (d *Table) BinaryLabels(col string, positive float64) ([]float64, error) {
	v, err := d.Column(col)
	if err != nil {
		return nil, err
	}
	var distinct []float64
	for _, x := range v {
		if !slices.Contains(distinct, x) {
			distinct = append(distinct, x)
			if len(distinct) > 2 {
				break
			}
		}
	}
	if len(distinct) != 2 {
		var got []string
		for _, x := range distinct {
			got = append(got, strconv.FormatFloat(x, 'g', -1, 64))
		}
		more := ""
		if len(distinct) > 2 {
			more = ", …"
		}
		return nil, &CSVError{File: d.Path, ColumnName: col,
			Rule: fmt.Sprintf("a binary label needs exactly two distinct values, found %s%s", strings.Join(got, ", "), more)}
	}
	if !slices.Contains(distinct, positive) {
		return nil, &CSVError{File: d.Path, ColumnName: col,
			Rule: fmt.Sprintf("positive class %v is not one of the label values %v and %v", positive, distinct[0], distinct[1])}
	}
	out := make([]float64, len(v))
	for i, x := range v {
		if x == positive {
			out[i] = 1
		} else {
			out[i] = -1
		}
	}
	return out, nil
}

// RealLabels maps a real label column to [−1, 1] by public bounds:
// y = 2(v − Lo)/(Hi − Lo) − 1, clipping values outside the bounds (their
// number is returned; it is private, for the curator only). This is the
// label domain assumed by the regression learners' sensitivity bounds.
func (d *Table) RealLabels(col string, b Bounds) (y []float64, clipped int, err error) {
	return d.RealLabelsFilled(col, b, nil)
}

// RealLabelsFilled is RealLabels of WithFilled(fill) without its copy of
// the column: a missing value (NaN) of col is read as fill[col] if there
// is one (nil: none filled).
func (d *Table) RealLabelsFilled(col string, b Bounds, fill map[string]float64) (y []float64, clipped int, err error) {
	f, ok := fill[col]
	if !ok {
		f = math.NaN()
	}
	v, err := d.Column(col)
	if err != nil {
		return nil, 0, err
	}
	if err := b.Validate(); err != nil {
		return nil, 0, &CSVError{File: d.Path, ColumnName: col, Rule: "invalid label bounds: " + err.Error()}
	}
	y = make([]float64, len(v))
	for i, x := range v {
		if x != x {
			x = f
		}
		u, c := b.unit(x)
		y[i] = 2*u - 1
		if c {
			clipped++
		}
	}
	return y, clipped, nil
}

// isFinite reports whether x is neither NaN nor ±Inf.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
