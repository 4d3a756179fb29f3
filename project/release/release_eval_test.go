package release

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// releasedClassifier releases naive Bayes on columns x, y of the test data
// and opens the synopsis.
func releasedClassifier(t *testing.T) *synopsis.Verified {
	t.Helper()
	ds := releaseTestDataset(t, 80)
	e := newReleaseEnv(t)
	req := Request{
		Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &dataset.Classes{Negative: "3", Positive: "7"},
		Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: -5, Hi: 15}},
		Learner: learners.KindNaiveBayes,
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{4, 3}, H: 2},
	}
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(res.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEvalReleaseAt(t *testing.T) {
	v := releasedClassifier(t)
	x := []float64{0, -5, 10, 15, 2.5, 7, 7.25, 0.5}
	r, err := dataset.EvalReleaseAt(context.Background(), v, x)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Features, []string{"x", "y"}) || r.Len() != 4 || len(r.Class) != 4 {
		t.Fatalf("results %+v", r)
	}
	for i := range 4 {
		val, std, err := v.EvalData(x[2*i : 2*i+2])
		if err != nil {
			t.Fatal(err)
		}
		class, _ := v.Class(val)
		if r.Value[i] != val || math.Abs(r.NoiseStd[i]-std) > 1e-15*std || r.Class[i] != class {
			t.Errorf("point %d: %v %v %q, want %v %v %q", i, r.Value[i], r.NoiseStd[i], r.Class[i], val, std, class)
		}
		if want := map[bool]string{true: "7", false: "3"}[val >= 0]; class != want {
			t.Errorf("point %d: score %v gives class %q, want %q", i, val, class, want)
		}
	}
	// Out of bounds: an error naming the feature, nothing returned.
	_, err = dataset.EvalReleaseAt(context.Background(), v, []float64{1, 1, 11, 1})
	var oob *synopsis.OutOfBoundsError
	if !errors.As(err, &oob) || oob.Feature != "x" || oob.Value != 11 {
		t.Errorf("out of bounds: %v", err)
	}
	if _, err := dataset.EvalReleaseAt(context.Background(), v, []float64{1, 2, 3}); err == nil {
		t.Error("3 coordinates for 2 features accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := dataset.EvalReleaseAt(ctx, v, slices.Repeat([]float64{1, 1}, 5000)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
