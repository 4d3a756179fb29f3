package learners

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// paramError reports a parameter value that breaks its ParamSpec rule, as a
// *mechanism.ParamError scoped to the learner: "kde: parameter bandwidth =
// 0.001: rule". value "" means no single value to show.
func paramError(kind Kind, name, value, rule string) *mechanism.ParamError {
	e := &mechanism.ParamError{Scope: string(kind), Field: name, Rule: rule}
	if value != "" {
		e.Value = value
	}
	return e
}

// Resolved holds validated parameter values: every parameter of the spec is
// present; a PerAxis parameter has exactly dim values, others exactly one.
type Resolved map[string][]float64

// Scalar returns the single value of a non-per-axis parameter. It panics if
// the name is not in the spec the values were resolved against (programmer
// misuse).
func (r Resolved) Scalar(name string) float64 {
	v, ok := r[name]
	if !ok || len(v) == 0 {
		panic("learners: unknown parameter " + name)
	}
	return v[0]
}

// Resolve validates values against the spec for a dataset of dimension dim,
// fills defaults for missing parameters and broadcasts single values of
// PerAxis parameters. Unknown names, wrong counts, NaN/Inf, out-of-range,
// non-integral and non-choice values are errors naming the parameter, the
// value and the rule.
func (s Spec) Resolve(values Values, dim int) (Resolved, error) {
	if dim < s.MinDim || dim > s.MaxDim {
		return nil, paramError(s.Kind, "features", fmt.Sprint(dim),
			fmt.Sprintf("this learner needs between %d and %d feature columns", s.MinDim, s.MaxDim))
	}
	known := make(map[string]bool, len(s.Params))
	for _, p := range s.Params {
		known[p.Name] = true
	}
	var unknown []string
	for name := range values {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		names := make([]string, len(s.Params))
		for i, p := range s.Params {
			names[i] = p.Name
		}
		return nil, paramError(s.Kind, strings.Join(unknown, ", "), "",
			"unknown parameter; valid parameters are "+strings.Join(names, ", "))
	}
	out := make(Resolved, len(s.Params))
	for _, p := range s.Params {
		v, ok := values[p.Name]
		if !ok || len(v) == 0 {
			v = []float64{p.Default}
		}
		switch {
		case p.PerAxis && len(v) == 1:
			b := make([]float64, dim)
			for i := range b {
				b[i] = v[0]
			}
			v = b
		case p.PerAxis && len(v) != dim:
			return nil, paramError(s.Kind, p.Name, fmt.Sprint(v),
				fmt.Sprintf("give one value or one per feature (%d)", dim))
		case !p.PerAxis && len(v) != 1:
			return nil, paramError(s.Kind, p.Name, fmt.Sprint(v), "takes a single value")
		default:
			v = slices.Clone(v)
		}
		for _, x := range v {
			if err := p.Check(x); err != nil {
				return nil, paramError(s.Kind, p.Name, formatValue(x), err.Error())
			}
		}
		out[p.Name] = v
	}
	return out, nil
}

// Check reports whether x satisfies the spec's rule; the error text is the
// rule, suitable for a form field.
func (p ParamSpec) Check(x float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("must be a finite number")
	case len(p.Choices) > 0 && !slices.Contains(p.Choices, x):
		return fmt.Errorf("must be one of %s", p.choiceList())
	case p.MinExclusive && x <= p.Min:
		return fmt.Errorf("must be > %s and ≤ %s", formatValue(p.Min), formatValue(p.Max))
	case x < p.Min || x > p.Max:
		return fmt.Errorf("must be between %s and %s", formatValue(p.Min), formatValue(p.Max))
	case p.Integer && x != math.Trunc(x):
		return fmt.Errorf("must be a whole number")
	}
	return nil
}

func (p ParamSpec) choiceList() string {
	parts := make([]string, len(p.Choices))
	for i, c := range p.Choices {
		parts[i] = formatValue(c)
		if i < len(p.ChoiceLabels) {
			parts[i] += " (" + p.ChoiceLabels[i] + ")"
		}
	}
	return strings.Join(parts, ", ")
}

func formatValue(x float64) string { return fmt.Sprintf("%g", x) }
