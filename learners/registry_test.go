package learners

import (
	"strings"
	"testing"
)

func TestAllOrderAndLookup(t *testing.T) {
	want := []Kind{KindKDE, KindPriestleyChao, KindNaiveBayes, KindSVM, KindLogistic, KindRidge}
	all := All()
	if len(all) != len(want) {
		t.Fatalf("All() has %d learners, want %d", len(all), len(want))
	}
	for i, l := range all {
		s := l.Spec()
		if s.Kind != want[i] {
			t.Errorf("All()[%d] is %q, want %q", i, s.Kind, want[i])
		}
		got, err := Lookup(s.Kind)
		if err != nil || got.Spec().Kind != s.Kind {
			t.Errorf("Lookup(%q) = %v, %v", s.Kind, got, err)
		}
		if s.MinDim < 1 || s.MaxDim < s.MinDim || s.Title == "" || s.Output.Kind == "" {
			t.Errorf("%s: incomplete spec %+v", s.Kind, s)
		}
		for _, p := range s.Params {
			if err := p.Check(p.Default); err != nil {
				t.Errorf("%s: default of %s = %g is invalid: %v", s.Kind, p.Name, p.Default, err)
			}
		}
	}
	_, err := Lookup("knn")
	if err == nil || !strings.Contains(err.Error(), `"knn"`) || !strings.Contains(err.Error(), "naive-bayes") {
		t.Errorf("Lookup(knn) error = %v, want one naming knn and the valid kinds", err)
	}
}
