package release

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// TestScoreWords: every output kind's score is named with "score" once
// (the choose dialog said "the chosen setting's class-score score").
func TestScoreWords(t *testing.T) {
	for _, tc := range []struct {
		kind learners.OutputKind
		want string
	}{
		{learners.OutputClassScore, "balanced-accuracy score"},
		{learners.OutputProbability, "balanced-accuracy score"},
		{learners.OutputDensity, "density score"},
		{learners.OutputRegression, "squared-error score"},
	} {
		got := ScoreWords(tc.kind)
		if got != tc.want || strings.Count(got, "score") != 1 {
			t.Errorf("ScoreWords(%q) = %q, want %q (one \"score\")", tc.kind, got, tc.want)
		}
	}
}
