package project

import (
	"fmt"
	"slices"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// fillValue returns the public fill value of a numeric used column: the
// curator's (req.Fill) or the midpoint of its bounds b. It must be finite
// and within b, so a filled value is never clipped.
func fillValue(req ReleaseRequest, col string, b dataset.Bounds) (float64, error) {
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
func checkFillColumns(req ReleaseRequest, used []string) error {
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
func fillClass(req ReleaseRequest) (float64, string, error) {
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
// is the bound of used[j]) and returns the dataset with missing values
// replaced, their rules in the synopsis's order, and the private count of
// values filled per column.
func fillData(req ReleaseRequest, used []string, bounds []dataset.Bounds) (*dataset.Table, []synopsis.FillRule, map[string]int, error) {
	if err := checkFillColumns(req, used); err != nil {
		return nil, nil, nil, err
	}
	values := make(map[string]float64, len(used))
	rules := make([]synopsis.FillRule, 0, len(used)+1)
	for j, col := range used {
		v, err := fillValue(req, col, bounds[j])
		if err != nil {
			return nil, nil, nil, err
		}
		values[col] = v
		rules = append(rules, synopsis.FillRule{Column: col, Value: &v})
	}
	ds, filled := req.Dataset.WithFilled(values)
	return ds, rules, filled, nil
}

// checkClasses checks that classes are declared exactly for a binary
// label (public settings only).
func checkClasses(req ReleaseRequest, binary bool) error {
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

// checkFillChoices checks a project file's fill values (within their
// bounds) and declared classes (two valid values; the fill class one of
// them). It returns the offending field and rule, or "".
func (w *Workspace) checkFillChoices() (field, rule string) {
	for i, b := range w.Bounds {
		if b.Fill != nil && (!isFinite(*b.Fill) || *b.Fill < b.Lo || *b.Fill > b.Hi) {
			return fmt.Sprintf("bounds[%d].fill", i), fmt.Sprintf("%v must be a finite number within [%v, %v]", *b.Fill, b.Lo, b.Hi)
		}
	}
	l := w.Learner
	if l.Classes == nil {
		if l.FillClass != "" {
			return "learner.fill_class", "a fill class needs declared classes"
		}
		return "", ""
	}
	if len(l.Classes) != 2 {
		return "learner.classes", fmt.Sprintf("has %d values; want the negative and the positive class", len(l.Classes))
	}
	c := dataset.Classes{Negative: l.Classes[0], Positive: l.Classes[1]}
	if err := c.Validate(); err != nil {
		return "learner.classes", err.Error()
	}
	if l.FillClass != "" && l.FillClass != c.Negative && l.FillClass != c.Positive {
		return "learner.fill_class", fmt.Sprintf("%s is neither declared class (%s)", dataset.QuoteShort(l.FillClass), c)
	}
	return "", ""
}
