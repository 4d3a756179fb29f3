package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// removedDropInvalid is the refusal of the removed --drop-invalid flag.
const removedDropInvalid = "--drop-invalid was removed: dropping rows made n depend on the private data. " +
	"Every row is now kept and a missing or non-numeric value is replaced by a public fill value " +
	"(--fill COL=V; default the midpoint of the column's bounds; for a class label --fill-class, default the negative class)"

// removedPositive is the refusal of --positive without --classes.
const removedPositive = "--positive was replaced by --classes NEG,POS: declare both label values, the positive class second"

// checkFillFlags checks --fill, --classes, --fill-class and the removed
// flags against the learner's label kind and the used columns.
func (f *datasetFlags) checkFillFlags(binary bool) error {
	switch {
	case f.dropInvalid:
		return usagef("%s", removedDropInvalid)
	case f.positive.Given:
		return usagef("%s", removedPositive)
	case binary && f.label != "" && !f.classes.Given:
		return usagef("--label %s of a binary-label learner needs --classes NEG,POS (the two label values, positive second; e.g. 0,1 or no,yes)", f.label)
	case !binary && f.classes.Given:
		return usagef("--classes applies only to learners with a binary label")
	case !binary && f.fillClass != "":
		return usagef("--fill-class applies only to learners with a binary label")
	}
	for _, name := range f.fill.Order {
		if name == f.label && binary {
			return usagef("--fill names the class label %q: use --fill-class CLASS", name)
		}
		if !slices.Contains(f.columns(), name) {
			return f.notAColumn("--fill", name)
		}
	}
	return nil
}

// printPrivateCounts writes the clip and fill counts of the used columns
// to w, which must be standard error: they depend on the private data and
// are not covered by ε, so they are for the curator only and never printed
// to standard output, written to the synopsis or to the ledger.
func printPrivateCounts(w io.Writer, cols []string, clipped, filled map[string]int) {
	var total [2]int
	var detail []string
	for _, col := range cols {
		c, f := clipped[col], filled[col]
		total[0] += c
		total[1] += f
		var parts []string
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d clipped", c))
		}
		if f > 0 {
			parts = append(parts, fmt.Sprintf("%d filled", f))
		}
		if len(parts) > 0 {
			detail = append(detail, fmt.Sprintf("%s: %s", col, strings.Join(parts, ", ")))
		}
	}
	fmt.Fprintf(w, "private (not covered by ε): %s clipped, %d filled", plural(total[0], "value"), total[1])
	if len(detail) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(detail, "; "))
	}
	fmt.Fprintln(w)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// describeFill is a synopsis's fill rules in words, for inspect:
// "age → 60, outcome → class no".
func describeFill(rules []synopsis.FillRule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		if r.Value != nil {
			parts[i] = fmt.Sprintf("%s → %g", r.Column, *r.Value)
		} else {
			parts[i] = fmt.Sprintf("%s → class %s", r.Column, r.Class)
		}
	}
	return strings.Join(parts, ", ") + " (replacing missing or invalid values; every row kept)"
}
