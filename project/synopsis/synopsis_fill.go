package synopsis

import (
	"fmt"
	"math"
	"slices"
)

// FillRule is the public rule by which a release replaces an invalid or
// missing value of one used column: the curator states it per column
// before the release (default: the midpoint of the column's public
// bounds; for a class label, the negative class). Every data row is kept,
// so n is the number of data rows in the file, public and independent of
// which rows were invalid. The synopsis records the rules ("fill"),
// never which rows or how many were filled.
//
// Replacing a value by a public constant is a function of that record
// alone, so neighbouring files (one record replaced) stay neighbours after
// filling: every learner's replace-one sensitivity bound holds unchanged
// (docs/sensitivity.md, "Invalid values and fill rules").
type FillRule struct {
	// Column is the column name.
	Column string `json:"column"`
	// Value is the fill value of a numeric column (a feature or a real
	// label), in data units, within the column's bounds.
	Value *float64 `json:"value,omitempty"`
	// Class is the fill class of a binary label: one of
	// output.class_labels.
	Class string `json:"class,omitempty"`
}

// validateFill checks the synopsis's fill rules against its domain and
// output: absent (files written before fill rules), or one rule per
// feature in axis order, then one for the label when there is one (a
// value within its bounds for a real label, one of class_labels for a
// classifier).
func (f *File) validateFill() error {
	if f.Fill == nil {
		return nil
	}
	want := len(f.Domain.Features)
	classifier := len(f.Output.ClassLabels) == 2
	if f.Domain.Label != nil || classifier {
		want++
	}
	if len(f.Fill) != want {
		return fieldErr(ErrMalformed, "fill", "has %d rules; want one per feature and one for the label (%d), or no \"fill\" key", len(f.Fill), want)
	}
	for j, r := range f.Fill {
		field := fmt.Sprintf("fill[%d]", j)
		var b *Bound
		switch {
		case j < len(f.Domain.Features):
			b = &f.Domain.Features[j]
		case f.Domain.Label != nil:
			b = f.Domain.Label
		}
		if b != nil {
			if r.Column != b.Name {
				return fieldErr(ErrMalformed, field+".column", "%q must name the column of its bound, %q", r.Column, b.Name)
			}
			if r.Class != "" || r.Value == nil {
				return fieldErr(ErrMalformed, field, "column %q needs a fill value, not a class", r.Column)
			}
			if v := *r.Value; !isFinite(v) || v < b.Lo || v > b.Hi {
				return fieldErr(ErrMalformed, field+".value", "%v must be a finite number within [%v, %v]", v, b.Lo, b.Hi)
			}
			continue
		}
		// The classifier's label.
		if err := CheckText(field+".column", r.Column, MaxNameRunes, false); err != nil {
			return err
		}
		if r.Column == "" {
			return fieldErr(ErrMalformed, field+".column", "column name is empty")
		}
		if r.Value != nil || !slices.Contains(f.Output.ClassLabels, r.Class) {
			return fieldErr(ErrMalformed, field+".class", "the label's fill must be one of the class labels %q", f.Output.ClassLabels)
		}
	}
	return nil
}

// CloneFill deep-copies fill rules (nil stays nil).
func CloneFill(rules []FillRule) []FillRule {
	if rules == nil {
		return nil
	}
	out := make([]FillRule, len(rules))
	for i, r := range rules {
		out[i] = r
		if r.Value != nil {
			v := *r.Value
			out[i].Value = &v
		}
	}
	return out
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
