package release

import (
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// fillValue returns the public fill value of a numeric used column: the
// curator's (req.Fill) or the midpoint of its bounds b. It must be finite
// and within b, so a filled value is never clipped.
func fillValue(req Request, col string, b dataset.Bounds) (float64, error) {
	v, ok := req.Fill[col]
	if !ok {
		return b.Lo/2 + b.Hi/2, nil
	}
	if !isFinite(v) || v < b.Lo || v > b.Hi {
		return 0, reqErr("fill["+col+"]", "fill value %v must be a finite number within the public bounds [%v, %v]", v, b.Lo, b.Hi)
	}
	return v, nil
}

// checkFillColumns refuses fill values for columns that have none: a
// fill value is for a feature or a real label; a class label's fill is
// FillClass.
func checkFillColumns(req Request, used []string) error {
	for col := range req.Fill {
		if !slices.Contains(used, col) {
			if col == req.Label && req.Label != "" {
				return reqErr("fill["+col+"]", "column %q is a class label: its fill is one of the declared classes (fill class), not a number", col)
			}
			return reqErr("fill["+col+"]", "column %q is not a feature or a real label of this release", col)
		}
	}
	return nil
}

// fillClass resolves the fill class of a binary label: req.FillClass,
// or the negative class if empty. It returns the learner label (−1/+1)
// and the class as declared.
func fillClass(req Request) (float64, string, error) {
	c := *req.Classes
	if req.FillClass == "" {
		return -1, c.Negative, nil
	}
	switch code := c.Code(req.FillClass); code {
	case -1:
		return -1, c.Negative, nil
	case 1:
		return 1, c.Positive, nil
	}
	return 0, "", reqErr("fill class", "%s is neither declared class (%s)", dataset.QuoteShort(req.FillClass), c)
}

// fillData resolves the fill values of the used numeric columns (bounds[j]
// is the bound of used[j]) and returns them by column (what a missing
// value of the column is read as: dataset.Table.WithFilled's map, applied
// where the columns are read, without a filled copy of a column), their
// rules in the synopsis's order, and the private count of values filled
// per column (a column without a missing value has no count, as in
// WithFilled).
func fillData(req Request, used []string, bounds []dataset.Bounds) (map[string]float64, []synopsis.FillRule, map[string]int, error) {
	if err := checkFillColumns(req, used); err != nil {
		return nil, nil, nil, err
	}
	values := make(map[string]float64, len(used))
	rules := make([]synopsis.FillRule, 0, len(used)+1)
	filled := make(map[string]int, len(used))
	for j, col := range used {
		v, err := fillValue(req, col, bounds[j])
		if err != nil {
			return nil, nil, nil, err
		}
		values[col] = v
		rules = append(rules, synopsis.FillRule{Column: col, Value: &v})
		x, err := req.Dataset.Column(col)
		if err != nil {
			continue // the mapping names the column's error
		}
		for _, xi := range x {
			if xi != xi {
				filled[col]++
			}
		}
	}
	return values, rules, filled, nil
}

// checkClasses checks that classes are declared exactly for a binary
// label (public settings only).
func checkClasses(req Request, binary bool) error {
	switch {
	case binary && req.Classes == nil:
		return reqErr("classes", "declare the two values of the label column %q (negative first, positive second, e.g. 0,1 or no,yes); they are public and recorded in the synopsis", req.Label)
	case !binary && req.Classes != nil:
		return reqErr("classes", "class values are only for learners with a binary label")
	case !binary && req.FillClass != "":
		return reqErr("fill class", "a fill class is only for learners with a binary label")
	case binary:
		if err := req.Classes.Validate(); err != nil {
			return reqErr("classes", "%v", err)
		}
	}
	return nil
}

// isFinite reports whether x is neither NaN nor ±Inf.
func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
