package release

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: the benchmark's records only
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// classifyBenchmarkCSV returns the generated classification benchmark of
// issue 17 ("Numbers to hold"; docs/reproduction.md, "Classifiers with
// privately chosen parameters") as a CSV in data units: n = 569 records,
// 357 of class 0 (62.7 %) and 212 of class 1, two informative features with
// overlapping classes — Gaussian clouds modelled on the two-feature
// breast-cancer table (mean radius in [5, 30], mean texture in [5, 45],
// correlation 0.3): class 0 around (12.15, 17.92) with standard deviations
// (1.78, 4.0), class 1 around (17.45, 21.6) with (3.2, 3.8). The same model
// as the learners' intercept benchmark, here in data units behind public
// bounds, read through the CSV parser like a curator's file.
func classifyBenchmarkCSV(seed uint64) string {
	const n, nPos = 569, 212
	r := rand.New(rand.NewPCG(seed, 569))
	var b strings.Builder
	b.WriteString("radius,texture,malignant\n")
	for i := range n {
		c, m0, m1, s0, s1 := 0, 12.15, 17.92, 1.775, 4.0
		if i < nPos {
			c, m0, m1, s0, s1 = 1, 17.45, 21.6, 3.2, 3.8
		}
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		x0 := m0 + s0*z0
		x1 := m1 + s1*(0.3*z0+math.Sqrt(1-0.3*0.3)*z1)
		fmt.Fprintf(&b, "%.3f,%.3f,%d\n", min(max(x0, 5), 30), min(max(x1, 5), 45), c)
	}
	return b.String()
}

// classifyBenchmarkRequest is the release request of the benchmark for a
// learner at release ε, with the learner's default parameters.
func classifyBenchmarkRequest(t testing.TB, kind learners.Kind, eps float64) Request {
	t.Helper()
	ds, err := dataset.ParseCSV(strings.NewReader(classifyBenchmarkCSV(1)), "benchmark.csv", dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Request{
		Dataset: ds, Features: []string{"radius", "texture"}, Label: "malignant",
		Classes: &dataset.Classes{Negative: "0", Positive: "1"},
		Bounds:  map[string]dataset.Bounds{"radius": {Lo: 5, Hi: 30}, "texture": {Lo: 5, Hi: 45}},
		Learner: kind,
		Privacy: mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1},
		KAuto:   true,
		Title:   "benchmark",
	}
}

// classifyRun is one private choice followed by one release on the
// benchmark: the chosen candidate, the agreement of the released classifier
// with the non-private one (same chosen parameters, full data) on the 569
// records, and both accuracies.
type classifyRun struct {
	chosen                     Candidate
	agreement, accuracy, acc0 float64
}

// classifyChooseAndRelease runs ChooseSettings (opt.Parameters, ε_sel)
// and then the real release (Prepare, Release: crypto-seeded noise of the
// google-DP library, a signed synopsis) at the release ε of req with the
// chosen h, k and parameters, and measures the synopsis against the
// non-private classifier.
func classifyChooseAndRelease(t testing.TB, req Request, epsSel float64, dir string) classifyRun {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetBudget(req.Dataset.Hash, 100); err != nil {
		t.Fatal(err)
	}
	ch, err := ChooseSettings(ctx, req, ChooseOptions{EpsilonSelect: epsSel, Ledger: l, Parameters: true})
	if err != nil {
		t.Fatal(err)
	}
	rel := req
	rel.Params = learners.Values{}
	for k, v := range ch.Chosen.Params {
		rel.Params[k] = slices.Clone(v)
	}
	rel.Privacy.H, rel.Privacy.K, rel.KAuto = ch.Chosen.H, []int{ch.Chosen.K, ch.Chosen.K}, false
	p, err := Prepare(ctx, rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "release.synopsis")
	res, err := p.Release(ctx, Options{Out: out, Overwrite: true, Ledger: l, Signer: releaseTestSigner(t), AppVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(res.Path, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Data.N()
	raw := make([]float64, 2*n)
	for i := range n {
		for j, b := range []dataset.Bounds{rel.Bounds["radius"], rel.Bounds["texture"]} {
			raw[2*i+j] = b.Lo + (b.Hi-b.Lo)*p.Data.X[2*i+j]
		}
	}
	vals, stds := make([]float64, n), make([]float64, n)
	if err := v.EvalDataBatch(ctx, raw, vals, stds); err != nil {
		t.Fatal(err)
	}
	thr := 0.0
	if p.Fitted.Output.Kind == learners.OutputProbability {
		thr = 0.5
	}
	var agree, acc, acc0 int
	for i := range n {
		released := vals[i] >= thr
		exact := p.Fitted.Oracle.Eval(p.Data.X[2*i:2*i+2]) >= thr
		truth := p.Data.Labels[i] > 0
		if released == exact {
			agree++
		}
		if released == truth {
			acc++
		}
		if exact == truth {
			acc0++
		}
	}
	return classifyRun{chosen: ch.Chosen, agreement: float64(agree) / float64(n),
		accuracy: float64(acc) / float64(n), acc0: float64(acc0) / float64(n)}
}

