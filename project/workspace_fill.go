package project

import (
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

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
