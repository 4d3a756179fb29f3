package learners

import (
	"fmt"
	"strings"
)

// All returns one instance of every learner, in the order of Section 6 of
// Aldà & Rubinstein (2017): kde, priestley-chao, naive-bayes, svm, logistic,
// ridge. The slice is freshly allocated; callers may modify it.
func All() []Learner {
	return []Learner{
		NewKDE(),
		NewPriestleyChao(),
		NewNaiveBayes(),
		NewSVM(),
		NewLogistic(),
		NewRidge(),
	}
}

// Lookup returns the learner of kind k, or an error naming k and the valid
// kinds if k is unknown (k typically comes from a file or the command line).
func Lookup(k Kind) (Learner, error) {
	all := All()
	names := make([]string, len(all))
	for i, l := range all {
		if l.Spec().Kind == k {
			return l, nil
		}
		names[i] = string(l.Spec().Kind)
	}
	return nil, fmt.Errorf("learners: unknown learner %q; valid learners are %s", string(k), strings.Join(names, ", "))
}
