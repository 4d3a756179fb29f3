package release

import (
	"context"
	"flag"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: test records only
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

// otherRecordsDataset returns n rows of the columns of releaseTestCSV with
// other, random values (seeded): the same public shape (n, columns,
// bounds), different private records.
func otherRecordsDataset(t testing.TB, n int, seed uint64) *dataset.Table {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	b.WriteString("x,y,r,c\n")
	for range n {
		c := 3
		if r.IntN(2) == 1 {
			c = 7
		}
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%d\n", 10*r.Float64(), 10*r.Float64(), 10*r.Float64()-5, c)
	}
	ds, err := dataset.ParseCSV(strings.NewReader(b.String()), "other.csv", dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// mechanismRequests are requests on ds whose candidate lists with
// ChooseOptions.Mechanisms differ in which peers and noise kinds apply,
// with the mechanisms (MechanismName, and "/noise" for Bernstein) each
// list must hold and must not hold.
func mechanismRequests(ds *dataset.Table) []struct {
	name      string
	req       Request
	opt       ChooseOptions
	want, not []string
} {
	logistic := func(p mechanism.Params) Request {
		return Request{
			Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &dataset.Classes{Negative: "3", Positive: "7"},
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}},
			Learner: learners.KindLogistic, Privacy: p, KAuto: true,
		}
	}
	svm := func(p mechanism.Params) Request {
		r := logistic(p)
		r.Learner = learners.KindSVM
		return r
	}
	kde := func(p mechanism.Params) Request {
		r := kdeRequest(ds)
		r.Privacy, r.KAuto = p, true
		return r
	}
	pure := func(eps float64) mechanism.Params {
		return mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, H: 1}
	}
	gauss := func(eps float64) mechanism.Params {
		return mechanism.Params{Epsilon: eps, Delta: 1e-6, Noise: mechanism.NoiseGaussian, H: 1}
	}
	const (
		bl = "bernstein/laplace"
		bg = "bernstein/gaussian"
		op = synopsis.MechanismOutputPerturbation
		gp = synopsis.MechanismGP
		tr = synopsis.MechanismTrig
	)
	return []struct {
		name      string
		req       Request
		opt       ChooseOptions
		want, not []string
	}{
		{"logistic/pure", logistic(pure(1)), ChooseOptions{Mechanisms: true}, []string{bl, op}, []string{bg, gp, tr}},
		{"logistic/pure/parameters", logistic(pure(1)), ChooseOptions{Mechanisms: true, Parameters: true}, []string{bl, op}, []string{bg, gp, tr}},
		{"logistic/gaussian", logistic(gauss(1)), ChooseOptions{Mechanisms: true, Parameters: true}, []string{bl, bg, op}, []string{gp, tr}},
		{"svm/gaussian/eps≤1", svm(gauss(1)), ChooseOptions{Mechanisms: true}, []string{bl, bg, gp}, []string{op, tr}},
		{"svm/gaussian/eps>1", svm(gauss(2)), ChooseOptions{Mechanisms: true}, []string{bl, bg}, []string{op, gp, tr}},
		{"svm/pure", svm(pure(1)), ChooseOptions{Mechanisms: true}, []string{bl}, []string{bg, op, gp, tr}},
		{"kde/gaussian", kde(gauss(0.5)), ChooseOptions{Mechanisms: true}, []string{bl, bg, gp, tr}, []string{op}},
		{"kde/pure", kde(pure(0.5)), ChooseOptions{Mechanisms: true}, []string{bl, tr}, []string{bg, op, gp}},
		{"kde/pure/bandwidths", kde(pure(0.5)), ChooseOptions{Mechanisms: true, Bandwidths: true}, []string{bl, tr}, []string{bg, op, gp}},
		{"logistic/off", logistic(gauss(1)), ChooseOptions{}, []string{bg}, []string{bl, op, gp, tr}},
	}
}

// candidateMechanism names a candidate's mechanism as mechanismRequests
// does.
func candidateMechanism(base mechanism.Params, c Candidate) string {
	if c.peer() {
		return c.Mechanism
	}
	return c.MechanismName() + "/" + string(candidateParams(base, c, 1).Noise)
}

// TestChooseMechanismsCandidatesPublic: with ChooseOptions.Mechanisms the
// candidate list and the selection (checkSelectionRule) depend on public
// settings only (the same for other records of the same shape), holds the
// mechanisms the settings allow,
// never a peer the release's rule refuses (each peer candidate, applied
// to the request by ApplyCandidate, passes CheckMechanism), and stays
// within MaxChooseCandidates.
func TestChooseMechanismsCandidatesPublic(t *testing.T) {
	ds := releaseTestDataset(t, 300)
	other := otherRecordsDataset(t, 300, 1)
	others := mechanismRequests(other)
	for i, tc := range mechanismRequests(ds) {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pv, err := PreviewChoice(ctx, tc.req, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			pv2, err := PreviewChoice(ctx, others[i].req, others[i].opt)
			if err != nil {
				t.Fatal(err)
			}
			list := func(cs []Candidate) []string {
				out := make([]string, len(cs))
				for j, c := range cs {
					out[j] = c.String()
				}
				return out
			}
			if a, b := list(pv.Candidates), list(pv2.Candidates); !slices.Equal(a, b) {
				t.Errorf("candidates depend on the records:\n%v\n%v", a, b)
			}
			checkSelectionRule(t, pv, pv2)
			if len(pv.Candidates) > MaxChooseCandidates {
				t.Errorf("%d candidates, more than %d", len(pv.Candidates), MaxChooseCandidates)
			}
			var got []string
			for _, c := range pv.Candidates {
				if m := candidateMechanism(tc.req.Privacy, c); !slices.Contains(got, m) {
					got = append(got, m)
				}
				if !c.peer() {
					continue
				}
				rel, name := ApplyCandidate(tc.req, c)
				p, err := Prepare(ctx, rel, nil)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				if err := p.CheckMechanism(name); err != nil {
					t.Errorf("candidate %s is refused by the release: %v", c, err)
				}
			}
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("mechanisms %v lack %s", got, w)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("mechanisms %v hold %s, which must not be offered", got, n)
				}
			}
		})
	}
}

// TestChooseMechanismsPeerWins: on well-separated classes (releaseTestCSV,
// n = 1000: class 7 exactly where y > x), logistic regression at release
// ε = 0.1 released by output perturbation (noise of norm ~ 2C/(nε)) is
// clearly better than a Bernstein release on a fine lattice (h = 1,
// k = 30: 961 noisy coefficients), and the choice picks it. The split is
// fixed (a permutation independent of the records) and the simulation
// seed too, so the private scores are deterministic; the score gap is
// checked (> 0.1; over 300 random splits it was 0.143 on average, below
// 0 in a few). Only the selection noise is random: Laplace(2β/ε_sel)
// with β = 1/M = 1/75 (m = 300) and ε_sel = 50, scale 5.3·10⁻⁴, so
// P(wrong) ≤ ½e^{−0.1/5.3·10⁻⁴} < 10⁻⁸⁰ per run. The ledger charges ε_sel
// once, as for any choice, and the chosen candidate passes the release's
// check through ApplyCandidate.
func TestChooseMechanismsPeerWins(t *testing.T) {
	const n = 1000
	ds := releaseTestDataset(t, n)
	req := mechanismRequests(ds)[0].req
	req.Privacy.Epsilon = 0.1
	cands := []Candidate{{H: 1, K: 30}, {Mechanism: synopsis.MechanismOutputPerturbation}}
	ctx := context.Background()
	plan, _ := fixedSplitPlanner(t, req)
	l := chooseLedger(t)
	opt := ChooseOptions{EpsilonSelect: 50, Ledger: l, Candidates: cands, AllowOverBudget: true}
	q, err := plan(opt).scores(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(q[1] > q[0]+0.1) {
		t.Fatalf("scores %v: output perturbation is not clearly better than h = 1, k = 30", q)
	}
	for i := range 3 {
		res, err := plan(opt).run(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if res.Chosen.MechanismName() != synopsis.MechanismOutputPerturbation {
			t.Fatalf("chose %s, want output perturbation", res.Chosen)
		}
		if res.Entry.Epsilon != 50 || len(l.Entries(res.Entry.DatasetHash)) != i+1 || !strings.Contains(res.Entry.Note, "output-perturbation") {
			t.Errorf("ledger entry %+v: want one more entry of ε = 50 naming the mechanisms", res.Entry)
		}
		checkChosenReleases(t, req, res.Chosen)
	}
}

// fixedSplitPlanner prepares req and returns a planner of its private
// choice on a fixed split (V the records 7i mod n, i < m: a permutation
// independent of the records), so that the private scores are
// deterministic for a fixed seed, and the prepared release.
func fixedSplitPlanner(t *testing.T, req Request) (func(ChooseOptions) *choicePlan, *Prepared) {
	t.Helper()
	ctx := context.Background()
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Data.N()
	perm := make([]int, n)
	for i := range perm {
		perm[i] = (i * 7) % n
	}
	return func(opt ChooseOptions) *choicePlan {
		t.Helper()
		if err := opt.validate(); err != nil {
			t.Fatal(err)
		}
		pl, err := planChoice(ctx, p, opt, perm)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}, p
}

// checkChosenReleases applies the chosen candidate to req
// (ApplyCandidate) and checks that the release accepts its mechanism.
func checkChosenReleases(t *testing.T, req Request, chosen Candidate) {
	t.Helper()
	rel, name := ApplyCandidate(req, chosen)
	pp, err := Prepare(context.Background(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.CheckMechanism(name); err != nil {
		t.Fatal(err)
	}
}

var choosePeersMeasure = flag.Int("choosepeers.measure", 0, "TestChooseMechanismsBenchmark: measure the per-run success rate over `N` runs, with and without the mechanism candidates, instead of checking m of r")

// agreementOfRelease returns the share of the records of p where the
// released synopsis at path and the non-private classifier of p (its fit
// on all records) give the same class.
func agreementOfRelease(t testing.TB, p *Prepared, path string) float64 {
	t.Helper()
	v, err := synopsis.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, dim := p.Data.N(), p.Data.Dim
	raw := make([]float64, n*dim)
	for j, name := range p.Request.Features {
		b := p.Request.Bounds[name]
		for i := range n {
			raw[i*dim+j] = b.Lo + (b.Hi-b.Lo)*p.Data.X[i*dim+j]
		}
	}
	vals, stds := make([]float64, n), make([]float64, n)
	if err := v.EvalDataBatch(context.Background(), raw, vals, stds); err != nil {
		t.Fatal(err)
	}
	thr := 0.0
	if p.Fitted.Output.Kind == learners.OutputProbability {
		thr = 0.5
	}
	agree := 0
	for i, v := range vals {
		if (v >= thr) == (p.Fitted.Oracle.Eval(p.Data.X[i*dim:(i+1)*dim]) >= thr) {
			agree++
		}
	}
	return float64(agree) / float64(n)
}

// chooseMechanismAndRelease runs the private choice with opt on req and
// releases the chosen candidate (ApplyCandidate: its mechanism, noise,
// h, k and parameters) for real: crypto-seeded noise, a signed synopsis.
// It returns the chosen candidate and the release's agreement with the
// non-private classifier.
func chooseMechanismAndRelease(t testing.TB, req Request, opt ChooseOptions, dir string) (Candidate, float64) {
	t.Helper()
	ctx := context.Background()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	opt.Ledger, opt.AllowOverBudget = l, true
	ch, err := ChooseSettings(ctx, req, opt)
	if err != nil {
		t.Fatal(err)
	}
	rel, name := ApplyCandidate(req, ch.Chosen)
	p, err := Prepare(ctx, rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Release(ctx, Options{Out: filepath.Join(dir, "release.synopsis"), Overwrite: true, Ledger: l,
		Signer: releaseTestSigner(t), AppVersion: "test", Mechanism: name, AllowOverBudget: true})
	if err != nil {
		t.Fatalf("releasing %s: %v", ch.Chosen, err)
	}
	return ch.Chosen, agreementOfRelease(t, p, res.Path)
}

// TestChooseMechanismsBenchmark measures issue 17's number for logistic
// regression (agreement ≥ 0.9 with the non-private classifier at ε = 1 on
// the generated benchmark, classifyBenchmarkRequest) when the private
// choice (ε_sel = 1, Parameters) may also pick the output perturbation and
// the other noise kinds (Mechanisms), the chosen candidate then released
// for real. With -choosepeers.measure N it runs N choices with and N
// without the mechanism candidates and reports both rates (the figures of
// docs/validation.md, "Choosing among mechanisms"); without it, r = 12
// runs with the mechanism candidates of which m must reach 0.9 (race: 6
// of which 3). False-failure rates at the per-run rates measured on
// 2026-11-24 with the mechanism candidates (and, in parentheses, at the
// lower end of their 95 % Clopper–Pearson interval):
//
//	logistic/pure      194 of 200 (0.970; 0.936)  12/8: 1.6·10⁻⁵ (5.9·10⁻⁴)  race 6/3: 1.2·10⁻⁵ (2.3·10⁻⁴)
//	logistic/gaussian  185 of 200 (0.925; 0.879)  12/7: 1.1·10⁻⁴ (1.5·10⁻³)  race 6/3: 4.2·10⁻⁴ (2.6·10⁻³)
func TestChooseMechanismsBenchmark(t *testing.T) {
	for _, tc := range []struct {
		name       string
		delta      float64
		runs, need int
	}{{"logistic/pure", 0, 12, 8}, {"logistic/gaussian", 1e-6, 12, 7}} {
		t.Run(tc.name, func(t *testing.T) {
			req := classifyBenchmarkRequestNoise(t, learners.KindLogistic, 1, tc.delta)
			runs, need := tc.runs, tc.need
			if raceEnabled {
				runs, need = 6, 3
			}
			modes := []bool{true}
			if *choosePeersMeasure > 0 {
				runs, need, modes = *choosePeersMeasure, 0, []bool{false, true}
			}
			for _, mech := range modes {
				ok := 0
				chosen := map[string]int{}
				for range runs {
					c, ag := chooseMechanismAndRelease(t, req, ChooseOptions{EpsilonSelect: 1, Parameters: true, Mechanisms: mech}, t.TempDir())
					if ag >= 0.9 {
						ok++
					}
					chosen[candidateMechanism(req.Privacy, c)]++
				}
				t.Logf("%s, mechanism candidates %v: agreement ≥ 0.9 in %d of %d runs; chosen %v", tc.name, mech, ok, runs, chosen)
				if ok < need {
					t.Errorf("%s: agreement ≥ 0.9 in %d of %d runs, want ≥ %d", tc.name, ok, runs, need)
				}
			}
		})
	}
}

// TestChooseMechanismsProxyStability audits the stability bound d_i of
// every peer candidate's proxy release directly (the score audit cannot:
// a classifier's β is 1/M whatever d_i is): one training record of the
// prepared data is replaced — label flipped at a corner, moved to the
// opposite corner, to a random point — the plan is rebuilt on the same
// split, both proxies are drawn from the same seed, and the largest change
// at the validation records and on the score's grid must stay ≤ d_i
// (relative 10⁻⁹). The GP proxies reach 0.97–0.99 of d_i (the search must
// reach 0.9: a d_i 10 % too small fails), output perturbation 0.47 of d_i
// for the score (σ's slope ¼: 0.12 for the probability).
func TestChooseMechanismsProxyStability(t *testing.T) {
	ds := releaseTestDataset(t, 120)
	ctx := context.Background()
	gauss := mechanism.Params{Epsilon: 1, Delta: 1e-6, Noise: mechanism.NoiseGaussian, K: []int{6}, H: 1}
	classifier := func(l learners.Kind, params learners.Values) Request {
		return Request{Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &dataset.Classes{Negative: "3", Positive: "7"},
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}},
			Learner: l, Params: params, Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{6}, H: 1}}
	}
	svm := classifier(learners.KindSVM, learners.Values{"sigma": {0.2}})
	svm.Privacy = gauss
	kde := kdeRequest(ds)
	kde.Privacy, kde.Params = gauss, learners.Values{"bandwidth": {0.02}}
	trig := kdeRequest(ds)
	trig.Privacy.K = []int{20}
	for _, tc := range []struct {
		name    string
		req     Request
		reached float64 // the largest ratio to d_i must reach this
	}{
		{"logistic score/" + synopsis.MechanismOutputPerturbation, classifier(learners.KindLogistic, nil), 0.4},
		{"logistic probability/" + synopsis.MechanismOutputPerturbation, classifier(learners.KindLogistic, learners.Values{"output": {1}}), 0.1},
		{"svm/" + synopsis.MechanismGP, svm, 0.9},
		{"kde narrow/" + synopsis.MechanismGP, kde, 0.9},
		// d = 7·S_T (peers.TrigStabilityFactor) is loose: moves of about
		// 1.2·S_T are found (TestTrigStabilityFactor).
		{"kde/" + synopsis.MechanismTrig, trig, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(12, 5))
			p, err := Prepare(ctx, tc.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			opt := ChooseOptions{EpsilonSelect: 1, Ledger: chooseLedger(t), Draws: 1}
			if err := opt.validate(); err != nil {
				t.Fatal(err)
			}
			mech := tc.name[strings.Index(tc.name, "/")+1:]
			for _, c := range p.peerCandidates(Candidate{}) {
				if c.Mechanism == mech {
					opt.Candidates = append(opt.Candidates, c)
				}
			}
			if len(opt.Candidates) != 1 {
				t.Fatalf("peer candidates %v: want one %s", p.peerCandidates(Candidate{}), mech)
			}
			n, dim := p.Data.N(), p.Data.Dim
			perm := r.Perm(n)
			axes := quadratureAxes(dim)
			// proxyAt plans the choice on data and returns the proxy of
			// the peer candidate from seed, at V and on the grid, and d.
			proxyAt := func(data learners.Dataset, seed uint64) ([]float64, float64) {
				pp := *p
				pp.Data = data
				pl, err := planChoice(ctx, &pp, opt, perm)
				if err != nil {
					t.Fatal(err)
				}
				sim, err := pl.sims[0].draw(ctx, mechanism.NewSimulationNoise(seed))
				if err != nil {
					t.Fatal(err)
				}
				out := make([]float64, pl.val.N())
				if err := sim.EvalBatch(ctx, pl.val.X, out); err != nil {
					t.Fatal(err)
				}
				grid, err := sim.EvalGrid(axes)
				if err != nil {
					t.Fatal(err)
				}
				return append(out, grid...), pl.sims[0].d
			}
			worst := 0.0
			m := int(math.Round(opt.ValidationFraction * float64(n))) // V is perm[:m]
			for trial := range 12 {
				idx := perm[m+r.IntN(n-m)] // a training record
				base := p.LearnerData()
				a, b := base, base
				a.X, b.X = slices.Clone(base.X), slices.Clone(base.X)
				if base.Labels != nil {
					a.Labels, b.Labels = slices.Clone(base.Labels), slices.Clone(base.Labels)
					b.Labels[idx] = -a.Labels[idx]
				}
				for j := range dim {
					switch trial % 3 {
					case 0: // the same corner, label flipped
						a.X[idx*dim+j], b.X[idx*dim+j] = 0, 0
					case 1: // opposite corners
						a.X[idx*dim+j], b.X[idx*dim+j] = 0, 1
					default:
						a.X[idx*dim+j], b.X[idx*dim+j] = r.Float64(), r.Float64()
					}
				}
				seed := r.Uint64()
				va, d := proxyAt(a, seed)
				vb, db := proxyAt(b, seed)
				if d != db {
					t.Fatalf("d depends on the data: %g, %g", d, db)
				}
				for i := range va {
					ch := math.Abs(va[i] - vb[i])
					worst = max(worst, ch/d)
					if ch > d*(1+1e-9) {
						t.Fatalf("trial %d: the proxy moved by %g at point %d > d = %g", trial, ch, i, d)
					}
				}
			}
			t.Logf("largest change / d = %.4f", worst)
			if worst < tc.reached {
				t.Errorf("largest change / d = %.4f < %g: the search should come close to d here", worst, tc.reached)
			}
		})
	}
}
