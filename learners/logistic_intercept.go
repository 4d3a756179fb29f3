package learners

import "fmt"

// Intercept of logistic regression (issue 17 item 5): a public constant
// feature b appended to the mapped features before the rescaling to the
// unit ball, x̃ = (2x − 1, b)/√(ℓ + b²) (ermLiftB). ‖x̃‖ ≤ 1 for every b ≥ 0,
// so the sensitivity S(F) does not depend on b (docs/sensitivity.md,
// "Intercepts"). b = 1 is the lift used before the parameter existed, so a
// synopsis or project that does not record "intercept" means b = 1
// (logisticInterceptLegacy).

const (
	// logisticInterceptDefault is the default constant feature b.
	logisticInterceptDefault = 1
	// logisticInterceptLegacy is the b of fits recorded without the
	// parameter (the lift (2x − 1, 1)/√(ℓ+1) of earlier versions).
	logisticInterceptLegacy = 1
)

func logisticParamIntercept() ParamSpec {
	return ermParamIntercept("Intercept feature b",
		"Public constant feature appended to every record before the rescaling to the unit ball, (2x − 1, b)/√(ℓ + b²); "+
			"its weight is a regularised intercept (bias). 0: no intercept. Larger b makes the intercept cheaper for the "+
			"regulariser and the slopes dearer; S(F) does not change. Files made without this parameter used b = 1.",
		logisticInterceptDefault)
}

// logisticInterceptNote is the intercept's part of the sensitivity note.
func logisticInterceptNote(b float64) string {
	return fmt.Sprintf("; x̃ = (2x − 1, b)/√(ℓ + b²) with public intercept feature b = %g", b)
}
