package dataset

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Classes are the two values of a binary label column, declared by the
// curator like the public bounds (never read from the data): Negative is
// learner label −1, Positive +1 (Aldà & Rubinstein 2017, Section 6 use
// labels ±1). The synopsis records them as output.class_labels, in this
// order. Any other value in the column is invalid and is replaced by the
// declared fill class (release.Request.FillClass); so whether one or both
// classes occur in the data changes nothing that is published.
type Classes struct {
	Negative, Positive string
}

// ParseClasses parses "NEG,POS" (the negative class first, the positive
// second; spaces around each value are ignored) and validates it.
func ParseClasses(s string) (Classes, error) {
	neg, pos, ok := strings.Cut(s, ",")
	if !ok || strings.Contains(pos, ",") {
		return Classes{}, fmt.Errorf("%s: want two class values NEG,POS (the negative class first, the positive second)", QuoteShort(s))
	}
	c := Classes{Negative: strings.TrimSpace(neg), Positive: strings.TrimSpace(pos)}
	return c, c.Validate()
}

// String returns "NEG,POS".
func (c Classes) String() string { return c.Negative + "," + c.Positive }

// Labels returns [Negative, Positive], the synopsis's output.class_labels.
func (c Classes) Labels() []string { return []string{c.Negative, c.Positive} }

// Validate checks that both values are non-empty, have no surrounding
// spaces, obey the synopsis rules for class labels (at most 200
// characters, no control characters) and are distinct under Code's
// matching (so "1" and "1.0" are the same value).
func (c Classes) Validate() error {
	for _, v := range []struct{ name, s string }{{"negative", c.Negative}, {"positive", c.Positive}} {
		if v.s == "" {
			return fmt.Errorf("the %s class value is empty", v.name)
		}
		if strings.TrimSpace(v.s) != v.s {
			return fmt.Errorf("the %s class value %s has surrounding spaces", v.name, QuoteShort(v.s))
		}
		if err := synopsis.CheckText(v.name+" class", v.s, synopsis.MaxNameRunes, false); err != nil {
			return err
		}
	}
	n, r1 := parseNumber(c.Negative)
	p, r2 := parseNumber(c.Positive)
	if c.Negative == c.Positive || r1 == "" && r2 == "" && n == p {
		return fmt.Errorf("the two class values %s and %s are the same value", QuoteShort(c.Negative), QuoteShort(c.Positive))
	}
	return nil
}

// Code returns the learner label of one raw CSV value: −1 for the
// negative class, +1 for the positive class, NaN for anything else (an
// invalid value). A value matches a class when, after trimming spaces, it
// is the same text, or both are finite numbers with the same value
// ("1.0" matches a declared "1"). The negative class is tried first.
func (c Classes) Code(raw string) float64 {
	t := strings.TrimSpace(raw)
	switch t {
	case c.Negative:
		return -1
	case c.Positive:
		return 1
	}
	v, rule := parseNumber(t)
	if rule != "" {
		return math.NaN()
	}
	if n, r := parseNumber(c.Negative); r == "" && n == v {
		return -1
	}
	if p, r := parseNumber(c.Positive); r == "" && p == v {
		return 1
	}
	return math.NaN()
}

// classValue is the parser's reading of one value of a declared class
// column: its Code, counting an invalid value as missing.
func (d *Table) classValue(col string, c Classes, raw string) float64 {
	if v := c.Code(raw); !math.IsNaN(v) {
		return v
	}
	return d.missing(col)
}

// validateClasses checks CSVOptions.Classes (see there).
func (o CSVOptions) validateClasses(name string) error {
	for col, c := range o.Classes {
		if err := c.Validate(); err != nil {
			return &CSVError{File: name, ColumnName: col, Rule: "declared classes: " + err.Error()}
		}
		if !o.KeepInvalid {
			return &CSVError{File: name, ColumnName: col, Rule: "a column read as declared classes needs KeepInvalid (other values are invalid and filled)"}
		}
		if o.Columns != nil && !slices.Contains(o.Columns, col) {
			return &CSVError{File: name, ColumnName: col, Rule: "a column read as declared classes must be one of the listed columns"}
		}
	}
	return nil
}

// DeclaredLabels maps the binary label column col to learner labels by
// the declared classes: −1 for c.Negative, +1 for c.Positive, and fill
// (−1 or +1, the declared fill class) for every other or missing value;
// filled counts those (private: curator only). It never fails because of
// the values: a column where only one class, or none, occurs is mapped
// like any other.
//
// A column read with CSVOptions.Classes must have been read with these
// classes. A column read as numbers matches numerically, which needs both
// classes to be numbers; text classes need the file read with
// CSVOptions.Classes. Both are checks of public settings, not of data.
func (d *Table) DeclaredLabels(col string, c Classes, fill float64) (y []float64, filled int, err error) {
	if err := c.Validate(); err != nil {
		return nil, 0, &CSVError{File: d.Path, ColumnName: col, Rule: "declared classes: " + err.Error()}
	}
	if fill != -1 && fill != 1 {
		return nil, 0, &CSVError{File: d.Path, ColumnName: col, Rule: fmt.Sprintf("fill label %v must be −1 or +1", fill)}
	}
	var code func(x float64) float64
	if read, ok := d.classes[col]; ok {
		if read != c {
			return nil, 0, &CSVError{File: d.Path, ColumnName: col,
				Rule: fmt.Sprintf("the file was read with classes %s, the release declares %s; read it again with the declared classes", read, c)}
		}
		code = func(x float64) float64 { return x }
	} else {
		neg, r1 := parseNumber(c.Negative)
		pos, r2 := parseNumber(c.Positive)
		if r1 != "" || r2 != "" {
			return nil, 0, &CSVError{File: d.Path, ColumnName: col,
				Rule: fmt.Sprintf("the label column was read as numbers but the declared classes %s are text; read the file with the declared classes (CSVOptions.Classes)", c)}
		}
		code = func(x float64) float64 {
			switch x {
			case neg:
				return -1
			case pos:
				return 1
			}
			return math.NaN()
		}
	}
	v, err := d.Column(col)
	if err != nil {
		return nil, 0, err
	}
	y = make([]float64, len(v))
	for i, x := range v {
		y[i] = code(x)
		if math.IsNaN(y[i]) {
			y[i] = fill
			filled++
		}
	}
	return y, filled, nil
}

// WithClasses returns a dataset whose label column col can be mapped by
// DeclaredLabels with the classes c: d itself when d was read with these
// classes, or when col was read as numbers and both classes are numbers;
// otherwise the file d.Path is read again with c declared for col (every
// column kept, invalid values missing) and must still have d's Hash. This
// lets a dataset opened before the classes were declared (the curator
// window) use text classes such as "no"/"yes".
func (d *Table) WithClasses(col string, c Classes) (*Table, error) {
	if read, ok := d.classes[col]; ok && read == c {
		return d, nil
	}
	_, r1 := parseNumber(c.Negative)
	_, r2 := parseNumber(c.Positive)
	if _, numeric := d.Data[col]; numeric && r1 == "" && r2 == "" && d.classes[col] == (Classes{}) {
		return d, nil
	}
	if err := c.Validate(); err != nil {
		return nil, &CSVError{File: d.Path, ColumnName: col, Rule: "declared classes: " + err.Error()}
	}
	imp := d.Import
	imp.Delimiter = d.Delimiter
	again, err := ReadCSV(d.Path, CSVOptions{KeepInvalid: true, Import: imp, Classes: map[string]Classes{col: c}})
	if err != nil {
		return nil, err
	}
	if again.Hash != d.Hash {
		return nil, &CSVError{File: d.Path, Rule: "the file changed since it was opened; open it again"}
	}
	return again, nil
}

// AddClassColumn appends the label column col with values already coded by
// the declared classes c (−1 negative, +1 positive), as ReadCSV with c
// declared for col reads them, so that WithClasses and DeclaredLabels treat
// it as such. For synthetic datasets (the preview's stand-in); a column
// named col must not exist yet.
func (d *Table) AddClassColumn(col string, c Classes, coded []float64) {
	d.Columns = append(d.Columns, col)
	d.Data[col] = coded
	if d.classes == nil {
		d.classes = map[string]Classes{}
	}
	d.classes[col] = c
}
