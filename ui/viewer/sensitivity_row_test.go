package viewer

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestViewerSensitivityRow: only a logistic linear-score or SVM release says its
// noise may be calibrated to the lattice bound L(k) ≤ S(F) (the screenshot
// walkthrough found the note on a KDE release, where it does not apply).
func TestViewerSensitivityRow(t *testing.T) {
	for _, c := range []struct {
		learner learners.Kind
		output  learners.OutputKind
		lattice bool
	}{
		{learners.KindKDE, learners.OutputDensity, false},
		{learners.KindSVM, learners.OutputClassScore, true},
		{learners.KindLogistic, learners.OutputProbability, false},
		{learners.KindLogistic, learners.OutputClassScore, true},
	} {
		f := &synopsis.File{Learner: synopsis.LearnerInfo{Kind: string(c.learner), Sensitivity: 0.25},
			Output: synopsis.OutputInfo{Kind: string(c.output)}}
		got := viewerSensitivity(f)
		if strings.Contains(got, "L(k)") != c.lattice || !strings.HasPrefix(got, "0.25 (") || !strings.Contains(got, "S(F)") {
			t.Errorf("%s %s: %q; lattice bound named: want %v", c.learner, c.output, got, c.lattice)
		}
	}
}
