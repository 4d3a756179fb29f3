package release

import "github.com/bernsteinrelease/bernstein/learners"

// ScoreWords names, for the curator and the CLI, the validation score
// ChooseSettings compares for a learner output kind (ChoosePreview.ScoreKind,
// ChooseResult.ScoreKind), ending in "score" once: classifiers ("class-score"
// and "probability" outputs) by the smoothed balanced accuracy
// (learners.AccuracyScore), the other kinds by learners.ValidationScore —
// the density by the L2 score of Chaudhuri & Vinterbo (Eq. 6), regression
// by the squared error (docs/validation.md). An unknown kind is named as is.
func ScoreWords(kind learners.OutputKind) string {
	switch kind {
	case learners.OutputClassScore, learners.OutputProbability:
		return "balanced-accuracy score"
	case learners.OutputDensity:
		return "density score"
	case learners.OutputRegression:
		return "squared-error score"
	}
	return string(kind) + " score"
}
