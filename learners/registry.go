package learners

import (
	"fmt"
	"strings"
)

// All returns one instance of every learner, in the order of Section 6 of
// Aldà & Rubinstein (2017): kde, priestley-chao, naive-bayes, svm, logistic,
// ridge. The slice is freshly allocated; callers may modify it.
//
// TODO(group B): register NewSVM, NewLogistic and NewRidge here once their
// constructors exist in learners/svm*.go, logistic*.go, ridge*.go.
func All() []Learner {
	return []Learner{
		NewKDE(),
		NewPriestleyChao(),
		NewNaiveBayes(),
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
