package release

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

func TestTuningGrid(t *testing.T) {
	res := func(kind learners.Kind, v learners.Values, dim int) (learners.Spec, learners.Resolved) {
		l, err := learners.Lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		r, err := l.Spec().Resolve(v, dim)
		if err != nil {
			t.Fatal(err)
		}
		return l.Spec(), r
	}
	for _, c := range []struct {
		kind learners.Kind
		v    learners.Values
		want string
	}{
		// C = ⅓ and 1 give the same SVM classifier (C·κ² ≤ 1): only C = 1.
		{learners.KindSVM, learners.Values{"C": {1}, "sigma": {0.3}},
			"[h=0 k=0 C=1 sigma=0.15 h=0 k=0 C=1 sigma=0.3 h=0 k=0 C=1 sigma=0.6 h=0 k=0 C=3 sigma=0.15 h=0 k=0 C=3 sigma=0.3 h=0 k=0 C=3 sigma=0.6]"},
		// With c = 1, κ² = 2: C = 1.5 leaves the exact regime.
		{learners.KindSVM, learners.Values{"C": {0.5}, "sigma": {80}, "intercept": {1}},
			"[h=0 k=0 C=0.5 sigma=40 h=0 k=0 C=0.5 sigma=80 h=0 k=0 C=1.5 sigma=40 h=0 k=0 C=1.5 sigma=80]"},
		{learners.KindLogistic, learners.Values{"C": {3}},
			"[h=0 k=0 C=1 intercept=0.3333333333333333 h=0 k=0 C=1 intercept=1 h=0 k=0 C=3 intercept=0.3333333333333333 h=0 k=0 C=3 intercept=1 h=0 k=0 C=9 intercept=0.3333333333333333 h=0 k=0 C=9 intercept=1]"},
		{learners.KindRidge, learners.Values{"C": {1}},
			"[h=0 k=0 C=0.1 h=0 k=0 C=1 h=0 k=0 C=10]"},
		{learners.KindKDE, learners.Values{"bandwidth": {0.1}},
			"[h=0 k=0 bandwidth=0.05 h=0 k=0 bandwidth=0.1 h=0 k=0 bandwidth=0.2]"},
	} {
		spec, r := res(c.kind, c.v, 1)
		if got := fmt.Sprint(TuningGrid(spec, r)); got != c.want {
			t.Errorf("%s %v:\n got %s\nwant %s", c.kind, c.v, got, c.want)
		}
	}
}

// TestChooseParametersRecorded: a choice with Parameters compares the
// tunings jointly with h and k (≤ 30 candidates), records every
// candidate's parameters in the ledger entry and names them in its note.
func TestChooseParametersRecorded(t *testing.T) {
	req := classifyBenchmarkRequest(t, learners.KindSVM, 1)
	l := chooseLedger(t)
	res, err := ChooseSettings(context.Background(), req, ChooseOptions{EpsilonSelect: 0.5, Ledger: l, Parameters: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) < 12 || len(res.Candidates) > MaxChooseCandidates {
		t.Errorf("%d candidates, want 12..30", len(res.Candidates))
	}
	if res.Chosen.Params["C"] == nil || res.Chosen.Params["sigma"] == nil {
		t.Errorf("chosen %s has no C and σ", res.Chosen)
	}
	e := res.Entry
	if len(e.Params["candidate_C"]) != len(res.Candidates) || len(e.Params["candidate_sigma"]) != len(res.Candidates) {
		t.Errorf("ledger params %v: want candidate_C and candidate_sigma for each of %d candidates", e.Params, len(res.Candidates))
	}
	if want := "private choice of h, k, C, sigma among"; len(e.Note) < len(want) || e.Note[:len(want)] != want {
		t.Errorf("note %q", e.Note)
	}
	// β is 1/M for classifiers (M = ⌈m/4⌉): the margin keeps the training
	// side below it.
	if M := learners.MinClassSize(res.ValidationN); math.Abs(res.Beta*float64(M)-1) > 1e-12 {
		t.Errorf("β = %g, want 1/M = %g", res.Beta, 1/float64(M))
	}
}
