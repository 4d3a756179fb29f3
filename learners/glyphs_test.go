package learners

import (
	"context"
	"strings"
	"testing"
)

// TestCuratorTextsAvoidNaryProduct: the parameter help and the sensitivity
// notes the curator shows do not use ∏ (U+220F), which Fyne's text font
// (Noto Sans) lacks, so that the system fallback drew it as an odd glyph
// in the bandwidth help; they say "the product over the axes" instead.
func TestCuratorTextsAvoidNaryProduct(t *testing.T) {
	texts := map[string]string{}
	for _, l := range All() {
		for _, p := range l.Spec().Params {
			texts[string(l.Spec().Kind)+" "+p.Name+" help"] = p.Help
		}
	}
	ctx := context.Background()
	kde, err := NewKDE().Fit(ctx, Dataset{Dim: 2, X: []float64{0.2, 0.3, 0.6, 0.9}}, Values{"bandwidth": {0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	texts["kde note"] = kde.SensitivityNote
	nb, err := NewNaiveBayes().Fit(ctx, Dataset{Dim: 2, X: []float64{0.2, 0.3, 0.8, 0.7, 0.4, 0.5}, Labels: []float64{1, -1, 1}}, Values{"bandwidth": {0.1}})
	if err != nil {
		t.Fatal(err)
	}
	texts["naive-bayes note"] = nb.SensitivityNote
	gp, err := RKHSPeer(KindKDE, 100, Values{"bandwidth": {0.1, 0.2}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	texts["kde RKHS note"] = gp.Note
	for what, s := range texts {
		if strings.ContainsRune(s, '∏') {
			t.Errorf("%s uses ∏: %q", what, s)
		}
	}
	for _, what := range []string{"kde bandwidth help", "kde note", "naive-bayes note", "kde RKHS note"} {
		if !strings.Contains(texts[what], "product over the") {
			t.Errorf("%s does not name the product in words: %q", what, texts[what])
		}
	}
}
