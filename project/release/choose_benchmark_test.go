package release

import (
	"context"
	"flag"
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

var classifyMeasure = flag.Int("classify.measure", 0, "TestClassifierBenchmarkAgreement: measure the per-run success rate over `N` runs per learner instead of checking 6 of 16")

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
	return classifyBenchmarkRequestNoise(t, kind, eps, 0)
}

// classifyBenchmarkRequestNoise is classifyBenchmarkRequest with Gaussian
// noise at (ε, δ) when delta > 0 (Laplace noise, pure ε-DP, when 0).
func classifyBenchmarkRequestNoise(t testing.TB, kind learners.Kind, eps, delta float64) Request {
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
		Privacy: classifyPrivacy(eps, delta),
		KAuto:   true,
		Title:   "benchmark",
	}
}

// classifyPrivacy is the benchmark's release privacy at (ε, δ): Laplace
// noise if δ = 0, Gaussian noise otherwise; h = 1 until chosen.
func classifyPrivacy(eps, delta float64) mechanism.Params {
	if delta > 0 {
		return mechanism.Params{Epsilon: eps, Delta: delta, Noise: mechanism.NoiseGaussian, H: 1}
	}
	return mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1}
}

// classifyRun is one private choice followed by one release on the
// benchmark: the chosen candidate, the agreement of the released classifier
// with the non-private one (same chosen parameters, full data) on the 569
// records, and both accuracies.
type classifyRun struct {
	chosen                    Candidate
	agreement, accuracy, acc0 float64
}

// classifyChooseAndRelease runs ChooseSettings with opt (its ledger set
// here) and then the real release (Prepare, Release: crypto-seeded noise of the
// google-DP library, a signed synopsis) at the release ε of req with the
// chosen h, k and parameters, and measures the synopsis against the
// non-private classifier.
func classifyChooseAndRelease(t testing.TB, req Request, opt ChooseOptions, dir string) classifyRun {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetBudget(req.Dataset.Hash, 100); err != nil {
		t.Fatal(err)
	}
	opt.Ledger = l
	ch, err := ChooseSettings(ctx, req, opt)
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

// classifyBenchmarkCases are the configurations TestClassifierBenchmarkAgreement
// checks: each learner at pure ε = 1 (Laplace noise) and at (ε, δ) =
// (1, 10⁻⁶) (Gaussian noise), with r runs of which m must agree ≥ 0.9
// (raceRuns, raceNeed under -race, about five times slower). falseFailure
// is P(Binomial(r, p) < m) at the per-run success rate p measured on
// 2026-11-24 after the SVM's lattice bounds and lattices and logistic
// regression's intercept grid b ∈ {⅓, 1} (docs/reproduction.md, "What
// holds now (second pass)") and, in parentheses, at the lower end of its
// 95 % Clopper–Pearson interval:
//
//	svm/pure           190 of 200 (0.950; 0.910)  20/15: 3.3·10⁻⁴ (6.8·10⁻³)  race 8/5:  3.7·10⁻⁴ (3.4·10⁻³)
//	logistic/pure      190 of 200 (0.950; 0.910)  40/32: 1.3·10⁻⁴ (8.1·10⁻³)  race 12/8: 1.8·10⁻⁴ (2.7·10⁻³)
//	svm/gaussian       100 of 100 (1.000; 0.964)  12/8:  4.0·10⁻⁵ (at 0.964)   race 4/2:  1.8·10⁻⁴ (at 0.964)
//	logistic/gaussian  187 of 200 (0.935; 0.891)  32/24: 1.5·10⁻⁴ (5.7·10⁻³)  race 10/6: 2.2·10⁻⁴ (2.4·10⁻³)
//
// Together ≤ 7·10⁻⁴ (≤ 0.021 at the lower bounds; under -race ≤ 10⁻³
// and ≤ 0.009). Under -race the SVM's runs take 10–25 s each (larger
// lattices in the choice), hence only 4 Gaussian ones. The checks separate: the SVM's rate before the lattice
// bounds (0.695) passes svm/pure 20/15 with probability 0.40, a per-run
// rate of ½ with 0.021; logistic/gaussian's old rate (0.835) passes
// 32/24 with 0.93, ½ with 3.5·10⁻³.
var classifyBenchmarkCases = []struct {
	name               string
	kind               learners.Kind
	delta              float64
	runs, need         int
	raceRuns, raceNeed int
	falseFailure       string
}{
	{"svm/pure", learners.KindSVM, 0, 20, 15, 8, 5, "3.3·10⁻⁴"},
	{"logistic/pure", learners.KindLogistic, 0, 40, 32, 12, 8, "1.3·10⁻⁴"},
	{"svm/gaussian", learners.KindSVM, 1e-6, 12, 8, 4, 2, "4.0·10⁻⁵"},
	{"logistic/gaussian", learners.KindLogistic, 1e-6, 32, 24, 10, 6, "1.5·10⁻⁴"},
}

// TestClassifierBenchmarkAgreement holds issue 17's number for
// classifiers (docs/reproduction.md, "Classifiers with privately chosen
// parameters"): on the generated benchmark (classifyBenchmarkCSV: n = 569,
// classes 63/37, two overlapping informative features), the private choice
// of h, k and the learner's parameters (ChooseOptions.Parameters around the
// data-independent defaults, ε_sel = 1, the default 30 % validation split
// and 3 draws) followed by the real release at ε = 1 (Prepare and Release:
// the crypto-seeded noise of the google-DP library and a signed synopsis,
// evaluated through synopsis.Open) gives a classifier that agrees with the
// non-private one (same chosen parameters, all records) on ≥ 90 % of the
// 569 records. Nothing can be seeded (split, simulation seed, selection
// noise and release noise all come from crypto/rand), so the test is
// statistical.
//
// It checks the per-run rate of that event for each learner at pure ε = 1
// and at (ε, δ) = (1, 10⁻⁶) with Gaussian noise (classifyBenchmarkCases:
// m of r runs, false-failure rates there; together ≤ 7·10⁻⁴ at the measured
// rates, ≤ 0.021 at their lower 95 % bounds). What it shows: at pure ε = 1
// both learners reach ≥ 0.9 in about 95 % of runs — the SVM since its noise
// is calibrated to the lattice bounds of its kernel score and the choice
// offers it lattices of order h = 4–5 (it was 70 %), logistic regression
// since the choice compares the intercepts b ∈ {⅓, 1} (it was 92 % with
// b ∈ {0, 1}); with Gaussian noise the SVM in every measured run, logistic
// regression in 93.5 %.
//
// With -classify.measure N each configuration runs N times and the test
// reports the success rate, mean agreement and accuracy (the figures of
// docs/reproduction.md) without the m-of-r check.
func TestClassifierBenchmarkAgreement(t *testing.T) {
	for _, tc := range classifyBenchmarkCases {
		t.Run(tc.name, func(t *testing.T) {
			runs, need := tc.runs, tc.need
			if raceEnabled {
				runs, need = tc.raceRuns, tc.raceNeed
			}
			if *classifyMeasure > 0 {
				runs, need = *classifyMeasure, 0
			}
			req := classifyBenchmarkRequestNoise(t, tc.kind, 1, tc.delta)
			ok := 0
			var meanAgree, meanAcc float64
			chosen := map[string]int{} // the chosen parameters (without h, k)
			for i := range runs {
				r := classifyChooseAndRelease(t, req, ChooseOptions{EpsilonSelect: 1, Parameters: true}, t.TempDir())
				if r.agreement >= 0.9 {
					ok++
				}
				chosen[Candidate{Params: r.chosen.Params}.String()[len("h=0 k=0 "):]]++
				meanAgree += r.agreement / float64(runs)
				meanAcc += r.accuracy / float64(runs)
				t.Logf("run %d: chose %s; agreement %.3f, accuracy %.3f (non-private %.3f)", i+1, r.chosen, r.agreement, r.accuracy, r.acc0)
			}
			t.Logf("%s: agreement ≥ 0.9 in %d of %d runs; mean agreement %.3f, mean accuracy of the release %.3f (majority rate 0.627); chosen parameters %v",
				tc.name, ok, runs, meanAgree, meanAcc, chosen)
			if ok < need {
				t.Errorf("%s: agreement ≥ 0.9 in %d of %d runs, want ≥ %d (false-failure rate %s)", tc.name, ok, runs, need, tc.falseFailure)
			}
		})
	}
}

var classifyTradeoff = flag.Bool("classify.tradeoff", false, "TestClassifierAgreementTradeoff: print the table of docs/reproduction.md (every candidate tuning, 200 seeded draws) instead of checking two rows")

// classifyCandidate measures one fixed setting of the benchmark at release
// ε: the non-private classifier (all records) and draws simulated releases
// (mechanism.Simulate, seeded: the release's scale and distribution, not
// its crypto noise), each scored by its agreement with the non-private
// classifier on the 569 records. It returns the share of draws with
// agreement ≥ 0.9, the mean agreement, the mean accuracy of the releases
// and the non-private accuracy.
func classifyCandidate(t testing.TB, kind learners.Kind, eps float64, c Candidate, draws int, seed uint64) (ok, agree, acc, acc0 float64) {
	return classifyCandidateNoise(t, kind, eps, 0, c, draws, seed)
}

// classifyCandidateNoise is classifyCandidate with Gaussian noise at
// (ε, δ) when delta > 0.
func classifyCandidateNoise(t testing.TB, kind learners.Kind, eps, delta float64, c Candidate, draws int, seed uint64) (ok, agree, acc, acc0 float64) {
	t.Helper()
	ctx := context.Background()
	req := classifyBenchmarkRequestNoise(t, kind, eps, delta)
	req.Params = c.Params
	req.Privacy.H, req.Privacy.K, req.KAuto = c.H, []int{c.K, c.K}, false
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Data.N()
	exact := make([]bool, n)
	for i := range n {
		exact[i] = p.Fitted.Oracle.Eval(p.Data.X[2*i:2*i+2]) >= 0
		if exact[i] == (p.Data.Labels[i] > 0) {
			acc0++
		}
	}
	src := mechanism.NewSimulationNoise(seed)
	pred := make([]float64, n)
	for range draws {
		sim, err := mechanism.Simulate(p.Exact, p.Fitted.NoiseSensitivity(p.Params.K, p.Params.Noise), p.Params, src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sim.EvalBatch(ctx, p.Data.X, pred); err != nil {
			t.Fatal(err)
		}
		var ag, ac int
		for i, v := range pred {
			if (v >= 0) == exact[i] {
				ag++
			}
			if (v >= 0) == (p.Data.Labels[i] > 0) {
				ac++
			}
		}
		if float64(ag) >= 0.9*float64(n) {
			ok++
		}
		agree += float64(ag) / float64(n)
		acc += float64(ac) / float64(n)
	}
	d := float64(draws)
	return ok / d, agree / d, acc / d, acc0 / float64(n)
}

// TestClassifierAgreementTradeoff pins the finding behind
// docs/reproduction.md, "Why the agreement falls short": at ε = 1 on the
// benchmark, the release reproduces the non-private classifier reliably
// only where that classifier is close to the majority rule. Two rows, each
// 200 seeded simulated releases (deterministic): the SVM at its
// data-independent defaults (C = 1, σ = 0.2·√2, h = 2, k = 4) agrees ≥ 0.9
// in ≥ 90 % of the draws (100 % since its Laplace noise is calibrated to
// the lattice bound L₁(k); 96 % with S), with accuracy ≤ 0.70 (majority
// 0.627); at σ/2 — non-private accuracy 0.863 — h = 2, k = 4 stays below
// 60 % (32 %; 39 % with S: the lattice is too coarse), while h = 5, k = 6,
// a lattice the private choice now offers, agrees ≥ 0.9 in ≥ 90 % (95 %)
// at an accuracy above 0.8 (0.829). Logistic regression without an intercept (non-private accuracy
// 0.763, exact under the Bernstein approximation at k = 1, so only the
// noise counts, calibrated to the lattice sensitivity of the affine score)
// agrees ≥ 0.9 in 80–95 % of the draws (87 %; 79 % with the sup-norm S).
// With Gaussian noise at (ε, δ) = (1, 10⁻⁶) the SVM at σ = 0.2, h = 3,
// k = 8 agrees ≥ 0.9 in ≥ 90 % of the draws (100 % at L₂(k); 94 % with S)
// with a release accuracy above 0.75 (0.788). With -classify.tradeoff the test prints the whole
// table instead.
func TestClassifierAgreementTradeoff(t *testing.T) {
	const draws = 200
	if *classifyTradeoff {
		for _, c := range []float64{1.0 / 3, 1, 3, 10, 30} {
			for _, b := range []float64{0, 0.3, 0.5, 0.7, 1} {
				cand := Candidate{H: 1, K: 1, Params: learners.Values{"C": {c}, "intercept": {b}}}
				ok, ag, ac, a0 := classifyCandidate(t, learners.KindLogistic, 1, cand, draws, 1)
				t.Logf("logistic %s: agreement ≥ 0.9 in %.2f, mean agreement %.3f, accuracy %.3f (non-private %.3f)", cand, ok, ag, ac, a0)
			}
		}
		for _, c := range []float64{1, 3} {
			for _, s := range []float64{0.1, 0.141, 0.2, 0.283, 0.4} {
				for _, h := range []int{1, 2} {
					for _, k := range []int{1, 2, 3, 4, 6, 8} {
						cand := Candidate{H: h, K: k, Params: learners.Values{"C": {c}, "sigma": {s}}}
						ok, ag, ac, a0 := classifyCandidate(t, learners.KindSVM, 1, cand, draws, 1)
						t.Logf("svm %s: agreement ≥ 0.9 in %.2f, mean agreement %.3f, accuracy %.3f (non-private %.3f)", cand, ok, ag, ac, a0)
					}
				}
			}
		}
		return
	}
	sigma := 0.2 * math.Sqrt2
	for _, tc := range []struct {
		kind           learners.Kind
		delta          float64 // 0: Laplace noise; else Gaussian at (1, δ)
		cand           Candidate
		okLo, okHi     float64
		accLo, accHi   float64 // the release's mean accuracy within
		nonPrivateOver float64 // the non-private accuracy above
	}{
		{learners.KindSVM, 0, Candidate{H: 2, K: 4, Params: learners.Values{"C": {1}, "sigma": {sigma}}}, 0.9, 1, 0, 0.70, 0.7},
		{learners.KindSVM, 0, Candidate{H: 2, K: 4, Params: learners.Values{"C": {1}, "sigma": {sigma / 2}}}, 0, 0.6, 0, 1, 0.85},
		{learners.KindLogistic, 0, Candidate{H: 1, K: 1, Params: learners.Values{"C": {1}, "intercept": {0}}}, 0.8, 0.95, 0, 1, 0.75},
		{learners.KindSVM, 1e-6, Candidate{H: 3, K: 8, Params: learners.Values{"C": {1}, "sigma": {0.2}}}, 0.9, 1, 0.75, 1, 0.8},
		// The lattice the choice now offers the SVM (tuningLayout):
		// σ/2 at h = 5, k = 6 with Laplace noise at L₁(k).
		{learners.KindSVM, 0, Candidate{H: 5, K: 6, Params: learners.Values{"C": {1}, "sigma": {sigma / 2}}}, 0.9, 1, 0.8, 1, 0.85},
	} {
		ok, ag, ac, a0 := classifyCandidateNoise(t, tc.kind, 1, tc.delta, tc.cand, draws, 1)
		t.Logf("%s δ = %g %s: agreement ≥ 0.9 in %.2f of %d draws, mean agreement %.3f, accuracy %.3f (non-private %.3f)", tc.kind, tc.delta, tc.cand, ok, draws, ag, ac, a0)
		if ok < tc.okLo || ok > tc.okHi || ac < tc.accLo || ac > tc.accHi || a0 <= tc.nonPrivateOver {
			t.Errorf("%s δ = %g %s: share %.2f (want in [%g, %g]), accuracy %.3f (want in [%g, %g]), non-private %.3f (want > %g)",
				tc.kind, tc.delta, tc.cand, ok, tc.okLo, tc.okHi, ac, tc.accLo, tc.accHi, a0, tc.nonPrivateOver)
		}
	}
}
