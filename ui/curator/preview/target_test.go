package preview

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/study"
)

// The search scores a classifier on the preview's records (and takes the
// sup-norm on the preview's grid: tradeoffGrid is study.TargetGrid).
func TestTargetSamePointsAsPreview(t *testing.T) {
	if study.TargetMaxPoints != previewMaxPoints {
		t.Errorf("target scores %d records, the preview %d", study.TargetMaxPoints, previewMaxPoints)
	}
}

func kde1D(kAuto bool) Input {
	return Input{Request: release.Request{
		Dataset: dataset.DemoKDE1D(1), Features: []string{"x"},
		Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 1}},
		Learner: learners.KindKDE, Params: learners.Values{"bandwidth": {0.05}}, KAuto: kAuto,
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, H: 1, K: []int{12}},
	}}
}

func TestEngineFindEpsilon(t *testing.T) {
	e := NewEngine()
	for _, tc := range []struct {
		name   string
		in     Input
		target float64
		share  bool
		k      int // 0: automatic
	}{
		{"10% of the public range, automatic k", kde1D(true), 0.1, true, 0},
		{"plot units, manual k = 12: as study on the same fit", kde1D(false), 0.8, false, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.FindEpsilon(context.Background(), tc.in, tc.target, tc.share, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Reached {
				t.Fatalf("not reached: %+v", got.Proposal)
			}
			p := got.Proposal
			want := tc.target / got.Units.Scale
			if tc.share {
				want = tc.target * got.Units.Width()
			}
			if got.Target != want || p.Error > want {
				t.Errorf("target %g (learner units %g, want %g), proposal error %g", tc.target, got.Target, want, p.Error)
			}
			if tc.k > 0 && p.K[0] != tc.k {
				t.Errorf("k = %v, want the manual %d", p.K, tc.k)
			}
			if txt := got.ErrorText(p.Error); !strings.Contains(txt, "of the public range") {
				t.Errorf("error text %q lacks the share of the range", txt)
			}
			if tc.k == 0 {
				return // the automatic k costs most: compared once, below
			}
			// The same search as the command line's on the same fit: the
			// same releases (seed, grid), the same proposal.
			prep, err := release.Prepare(context.Background(), tc.in.Request, nil)
			if err != nil {
				t.Fatal(err)
			}
			pr, err := study.TargetProblemOf(context.Background(), prep.Fitted, prep.Spec.Output.Kind, prep.LearnerData())
			if err != nil {
				t.Fatal(err)
			}
			pr.K, pr.Seed = tc.k, previewSeed
			direct, err := study.FindEpsilon(context.Background(), pr, want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(direct.Proposal, p) {
				t.Errorf("engine %+v, study directly %+v", p, direct.Proposal)
			}
		})
	}
}
