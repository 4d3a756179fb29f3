package release

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Defaults of the private choice of settings (ChooseSettings).
const (
	// DefaultValidationFraction is the share of records held out for
	// validation.
	DefaultValidationFraction = 0.3
	// DefaultChooseDraws is the number of simulated noise draws averaged
	// per candidate score.
	DefaultChooseDraws = 3
	// DefaultChooseGamma is the failure probability of the reported
	// utility bound.
	DefaultChooseGamma = 0.05
	// MaxChooseCandidates caps the candidate list.
	MaxChooseCandidates = 30
	// maxQuadraturePoints caps the density score's integration grid.
	maxQuadraturePoints = 4096
)

// Candidate is one setting the private choice can pick: the iterated
// Bernstein order h, the cover size k (the same on every axis), for
// learners with a bandwidth, the bandwidth (nil: the request's value) and
// other learner parameters (Params, e.g. C and sigma; nil or a missing name:
// the request's value; choose_params.go). Candidates are public: they
// depend on ε, n, the learner's parameters and the public bounds only.
//
// With ChooseOptions.Mechanisms a candidate may also be another mechanism
// (choose_peers.go): Mechanism is then a published peer's synopsis kind
// (release.Mechanisms; "" is the Bernstein release), and Noise, for a
// Bernstein candidate, a noise kind other than the request's ("": the
// request's; Laplace is released at δ = 0).
type Candidate struct {
	H         int
	K         int
	Bandwidth []float64
	Params    learners.Values
	Mechanism string
	Noise     mechanism.NoiseKind
}

// String formats the candidate as "h=2 k=14 bandwidth=0.05",
// "h=1 k=6 C=1 sigma=0.14" (parameters in name order), "h=1 k=3
// noise=laplace" or, for a peer, "output-perturbation C=1 intercept=0"
// and "hall-gp k=8 sigma=0.2".
func (c Candidate) String() string {
	s := fmt.Sprintf("h=%d k=%d", c.H, c.K)
	switch {
	case c.Mechanism == synopsis.MechanismGP:
		s = fmt.Sprintf("%s k=%d", c.Mechanism, c.K)
	case c.peer():
		s = c.Mechanism
	case c.Noise != "":
		s += " noise=" + string(c.Noise)
	}
	if c.Bandwidth != nil {
		s += " bandwidth=" + formatValues(c.Bandwidth)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Params)) {
		s += " " + name + "=" + formatValues(c.Params[name])
	}
	return s
}

func formatValues(v []float64) string {
	parts := make([]string, len(v))
	for i, b := range v {
		parts[i] = fmt.Sprintf("%g", b)
	}
	return strings.Join(parts, ",")
}

// ChooseOptions configures ChooseSettings.
type ChooseOptions struct {
	// EpsilonSelect is the ε the choice spends (pure ε-DP); required.
	EpsilonSelect float64
	// Ledger records the spend before the choice is made; required.
	Ledger *ledger.Ledger
	// AllowOverBudget lets the choice exceed the dataset's budget (the
	// entry is marked over budget).
	AllowOverBudget bool
	// DifferentPopulation declares the dataset a different population from
	// its near-duplicates in the ledger (see Options).
	DifferentPopulation bool
	// Candidates to choose from; nil means DefaultCandidates.
	Candidates []Candidate
	// Bandwidths adds bandwidths b/2, b, 2b to the default candidates for
	// learners with a bandwidth parameter (kde, priestley-chao,
	// naive-bayes); h is then limited to 1..3 to keep ≤ 30 candidates.
	Bandwidths bool
	// Parameters adds the learner's tuning parameters to the default
	// candidates: public multiples of the request's values (TuningGrid:
	// C and σ for the SVM, C and the intercept feature for logistic
	// regression, C for ridge, the bandwidth for kde, priestley-chao and
	// naive-bayes), jointly with fewer h and k (at most 30 candidates).
	Parameters bool
	// Mechanisms adds, for every tuning, the other mechanisms the release
	// can have (choose_peers.go): the Bernstein release at the other noise
	// kinds the request's δ allows and the published peers peerRule admits
	// (output perturbation for logistic regression, Wang et al.'s
	// trigonometric release for the one-dimensional KDE, Hall et al.'s GP
	// when δ > 0 and ε ≤ 1), with fewer h and k (at most 30 candidates).
	Mechanisms bool
	// ValidationFraction is the share of records held out (0 means
	// DefaultValidationFraction); it must lie in (0, 1).
	ValidationFraction float64
	// Draws is the number of simulated noise draws per candidate score (0
	// means DefaultChooseDraws; at most 20).
	Draws int
	// Gamma is the failure probability of UtilityBound (0 means
	// DefaultChooseGamma).
	Gamma float64
	// Now is the ledger entry's clock (time.Now if nil).
	Now func() time.Time
	// Progress, if not nil, is called with (candidates scored, total).
	Progress func(done, total int)
}

// ChooseResult reports a private choice. It holds the chosen candidate and
// public quantities only: the candidates' scores are private and are never
// returned.
type ChooseResult struct {
	// Chosen is the selected candidate; ChosenIndex its index in Candidates.
	Chosen      Candidate
	ChosenIndex int
	// Candidates are the settings that were compared (public).
	Candidates []Candidate
	// Epsilon is the ε spent; Entry the ledger entry that records it.
	Epsilon float64
	Entry   ledger.Entry
	// Beta is the score sensitivity β (max over candidates of the
	// training- and validation-side bounds) and Scale the Laplace scale of
	// the selection noise: 2β/ε, or with Selection.Generalized 2(1+10⁻⁶)/ε
	// on the normalised scores.
	Beta, Scale float64
	// UtilityBound is t with P(q_chosen < max_i q_i − t) ≤ Gamma
	// (mechanism.NoisyMaxUtilityBound), in score units; with
	// Selection.Generalized, P(q_chosen < q_j − t for some Bernstein
	// candidate j) ≤ Gamma (mechanism.GeneralizedSelection.UtilityBound at
	// β_B).
	UtilityBound, Gamma float64
	// Selection says how the candidate was selected (public).
	Selection ChoiceSelection
	// TrainN and ValidationN are the sizes of the two splits.
	TrainN, ValidationN int
	// ScoreKind is the learner output the score measures (density,
	// regression, class-score, probability).
	ScoreKind learners.OutputKind
	// Spent is the dataset's total ε in the ledger after this choice;
	// Budget its budget (of Entry.DatasetHash).
	Spent, Budget float64
	// Clipped and Filled are Prepared.Clipped and Prepared.Filled:
	// private counts, for the curator only (never standard output).
	Clipped, Filled map[string]int
	// Identity says which ledger datasets were charged (private).
	Identity *ledger.IdentityFinding
}

// ChooseSettings privately chooses the iterated Bernstein order h, the
// cover size k and optionally the bandwidth for the release described by
// req, by the stability-based validation of Chaudhuri & Vinterbo (NIPS
// 2013); see docs/validation.md for the procedure and its proofs. In short:
//
//  1. Prepare(req) validates the request and maps the data to [0,1]^ℓ.
//  2. A crypto-random permutation (independent of the data) splits the n
//     records into a training set T and a validation set V of
//     m = round(ValidationFraction·n) records.
//  3. For each candidate i the learner is fitted on T (F_T, S_T); F_T on the
//     candidate's lattice plus simulated noise at the FINAL release's scale
//     (ε of req, the full data's Fitted.NoiseSensitivity) gives a simulated release P_i; its
//     score q_i on V (learners.ValidationScore, averaged over Draws seeded
//     draws; the seed comes from crypto/rand and is independent of the
//     data) estimates the release's utility.
//  4. β = max_i max(β_V, β_T): β_V = learners.ValidationScore.BetaV(m),
//     β_T = BetaT(Λ_i·S_T,i) with Λ_i = mechanism.LebesgueBoundK(k_i, h_i);
//     for a density whose fit states a lattice-L1 sensitivity L (KDE),
//     β_T = BetaTMean(Λ_i·S_T,i, W_i·L(k_i)) with W_i the basis weight of
//     (k_i, h_i) on the score's integration grid (basisGridWeight).
//  5. The spend ε_sel is reserved in opt.Ledger (KindValidation) BEFORE any
//     score is computed; a refusal (*BudgetError) returns it and nothing is
//     computed or chosen.
//  6. i* = mechanism.NoisyMax(q, β, ε_sel): secure Laplace(2β/ε_sel) —
//     or, when the β_i differ so much that mechanism.PreferGeneralized
//     says so, the generalized selection (mechanism.GeneralizedSelection
//     with the β_i and the score's public bound), which compares each
//     candidate at its own β_i (ChoiceSelection).
//
// With opt.Mechanisms the candidates also hold other mechanisms (the
// Bernstein release at other noise kinds, the published peers; see
// choose_peers.go), each with its own proxy release and stability bound d_i
// in steps 3–4 (docs/validation.md, "Choosing among mechanisms").
//
// Only i* is released, and it is ε_sel-DP (C&V Theorem 1 with δ = 0, since
// the bounds hold for every noise draw). Errors before step 5 spend
// nothing; errors after it keep the spend (over-counting is the safe side).
func ChooseSettings(ctx context.Context, req Request, opt ChooseOptions) (*ChooseResult, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	perm, err := cryptoPermutation(p.Data.N())
	if err != nil {
		return nil, err
	}
	seed, err := cryptoSeed()
	if err != nil {
		return nil, err
	}
	plan, err := planChoice(ctx, p, opt, perm)
	if err != nil {
		return nil, err
	}
	return plan.run(ctx, seed)
}

// ChoicePreview is what the curator can know about a private choice
// before spending anything: the candidates, the split sizes and the score
// sensitivity β, all public (they depend on n, the parameters, the public
// bounds and ε of the release, never on data values). It lets the curator
// see the selection noise 2β/ε_sel and the utility bound for any ε_sel
// before committing to one.
type ChoicePreview struct {
	Candidates          []Candidate
	Beta                float64
	TrainN, ValidationN int
	ScoreKind           learners.OutputKind
	Gamma               float64
	// Selection says how the choice will select (public).
	Selection ChoiceSelection
}

// Scale returns the Laplace scale of the selection noise at ε_sel
// (ChoiceSelection.Scale).
func (c *ChoicePreview) Scale(epsilonSelect float64) float64 {
	return c.Selection.Scale(epsilonSelect, c.Gamma)
}

// UtilityBound returns the selection's utility bound at ε_sel and failure
// probability c.Gamma (ChoiceSelection.UtilityBound). It panics on
// ε_sel ≤ 0 (validate first).
func (c *ChoicePreview) UtilityBound(epsilonSelect float64) float64 {
	return c.Selection.UtilityBound(epsilonSelect, c.Gamma)
}

// PreviewChoice prepares req and plans the private choice as ChooseSettings
// would (fits on a training split, candidates, β) without spending: no
// ledger entry, no score. opt.EpsilonSelect and opt.Ledger are not used.
// The split used is the identity order; β does not depend on which records
// are held out, only on how many.
func PreviewChoice(ctx context.Context, req Request, opt ChooseOptions) (*ChoicePreview, error) {
	if err := opt.validatePlan(); err != nil {
		return nil, err
	}
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	n := p.Data.N()
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	pl, err := planChoice(ctx, p, opt, perm)
	if err != nil {
		return nil, err
	}
	return &ChoicePreview{
		Candidates: slices.Clone(pl.cands), Beta: pl.beta,
		TrainN: pl.train.N(), ValidationN: pl.val.N(),
		ScoreKind: pl.scoreKind(),
		Gamma:     opt.Gamma,
		Selection: pl.selection,
	}, nil
}

// validate checks the options of ChooseSettings and fills the defaults.
func (o *ChooseOptions) validate() error {
	if err := mechanism.ValidateEpsilon(o.EpsilonSelect); err != nil {
		return reqErr("epsilon-select", "%g: %s", o.EpsilonSelect, mechanism.Rule(err))
	}
	if o.Ledger == nil {
		return reqErr("ledger", "no privacy-budget ledger given; the private choice spends budget and must be recorded")
	}
	return o.validatePlan()
}

// validatePlan checks the options that shape the plan (split, draws,
// γ, candidates) and fills their defaults.
func (o *ChooseOptions) validatePlan() error {
	if o.ValidationFraction == 0 {
		o.ValidationFraction = DefaultValidationFraction
	}
	if !(o.ValidationFraction > 0 && o.ValidationFraction < 1) {
		return reqErr("validation-fraction", "%g: must be between 0 and 1 (exclusive)", o.ValidationFraction)
	}
	if o.Draws == 0 {
		o.Draws = DefaultChooseDraws
	}
	if o.Draws < 1 || o.Draws > 20 {
		return reqErr("draws", "%d: must be between 1 and 20", o.Draws)
	}
	if o.Gamma == 0 {
		o.Gamma = DefaultChooseGamma
	}
	if !(o.Gamma > 0 && o.Gamma < 1) {
		return reqErr("gamma", "%g: must be between 0 and 1 (exclusive)", o.Gamma)
	}
	if len(o.Candidates) > MaxChooseCandidates {
		return reqErr("candidates", "%d given; at most %d", len(o.Candidates), MaxChooseCandidates)
	}
	return nil
}

// DefaultCandidates returns h ∈ {1..5} × k ∈ {k*/2, k*, 2k*} with
// k* = mechanism.AutoCoverSize(ε, h, ℓ, S, β, stand-in) of the prepared
// release (S its sensitivity, β its failure probability, the stand-in its
// fit's), clamped to [1, MaxK] and deduplicated. With opt.Parameters
// (TuningGrid) or opt.Bandwidths (bandwidth ∈ {b/2, b, 2b}, capped at the
// parameter's range) each tuning of the learner's parameters is combined
// with fewer h and k so that at most MaxChooseCandidates remain
// (candidateLayout), k* then computed with that tuning's sensitivity and
// stand-in. fullFit returns the full-data fit for a tuning (the
// sensitivity and stand-in depend on n, the parameters and the public
// bounds only); it is not called for the request's own parameters.
func DefaultCandidates(p *Prepared, opt ChooseOptions, fullFit func(tuning Candidate) (*learners.Fitted, error)) ([]Candidate, error) {
	dim := len(p.Params.K)
	beta := p.Request.Beta
	if beta == 0 {
		beta = DefaultBeta
	}
	if err := mechanism.ValidateBeta(beta); err != nil {
		return nil, err
	}
	tunings := []Candidate{{}}
	switch {
	case opt.Parameters:
		tunings = TuningGrid(p.Spec, p.Resolved)
	case opt.Bandwidths && hasBandwidth(p.Spec):
		tunings = bandwidthGrid(p.Spec, p.Resolved)
	}
	var noises []mechanism.NoiseKind
	extras := make([][]Candidate, len(tunings))
	perTuning := 0
	if opt.Mechanisms {
		noises = choiceNoises(p.Params)
		for i, tu := range tunings {
			extras[i] = p.peerCandidates(tu)
			perTuning = max(perTuning, len(noises)+len(extras[i]))
		}
	}
	hs, kFactors := extraLayout(len(tunings), perTuning, p.Spec.Kind, p.Params.Noise)
	var out []Candidate
	for i, tu := range tunings {
		fitted := p.Fitted
		if tu.Bandwidth != nil || tu.Params != nil {
			var err error
			if fitted, err = fullFit(tu); err != nil {
				return nil, err
			}
		}
		add := func(h int, noise mechanism.NoiseKind, factors []float64) {
			c := Candidate{H: h, Bandwidth: tu.Bandwidth, Params: tu.Params, Noise: noise}
			ks := mechanism.AutoCoverSize(candidateParams(p.Params, c, dim), h, dim, fitted.Sensitivity, beta, fitted.StandIn)
			seen := map[int]bool{}
			for _, f := range factors {
				c.K = min(mechanism.MaxK, max(1, int(f*float64(ks))))
				if seen[c.K] {
					continue
				}
				seen[c.K] = true
				if candidateParams(p.Params, c, dim).Validate() != nil {
					continue // e.g. too many coefficients, or laplace-approx composition
				}
				out = append(out, c)
			}
		}
		for _, h := range hs {
			add(h, "", kFactors)
		}
		for _, noise := range noises {
			add(hs[0], noise, []float64{1})
		}
		out = append(out, extras[i]...)
	}
	if len(out) > MaxChooseCandidates {
		out = out[:MaxChooseCandidates]
	}
	if len(out) == 0 {
		return nil, reqErr("candidates", "no valid candidate settings for ε = %g", p.Params.Epsilon)
	}
	return out, nil
}

// candidateLayout returns the orders h and the factors of k* combined with
// each of n tunings: h ∈ {1..5} × {½, 1, 2} for one, fewer for more so that
// n·|h|·|k| ≤ 30 (MaxChooseCandidates): h ∈ {1, 2, 3} for up to 3 tunings,
// {1, 2} for up to 5, {1, 2} × {½, 1} for up to 7, h = 1 beyond.
//
// With fine (the SVM with Gaussian noise) and several tunings the
// lattices are larger: h one higher and the factors {2, 3} for {½, 1}
// ({1, 2, 3} for {½, 1, 2}). Gaussian noise grows like √m with the m
// coefficients, not like m, and k* (which minimises the predicted sup-norm
// error of the stand-in) is small for a kernel classifier, whose agreement
// with the non-private one needs its boundary drawn finely
// (docs/reproduction.md, "Classifiers with privately chosen parameters").
// Logistic regression's affine score is exact at k = 1 and keeps the
// default. The layout depends on n, the learner and the noise kind only.
func candidateLayout(n int, fine bool) ([]int, []float64) {
	all := []float64{0.5, 1, 2}
	var hs []int
	switch {
	case n <= 1:
		return []int{1, 2, 3, 4, 5}, all
	case n <= 3:
		hs = []int{1, 2, 3}
	case n <= 5:
		hs = []int{1, 2}
	case n <= 7:
		hs, all = []int{1, 2}, []float64{0.5, 1}
	default:
		hs = []int{1}
	}
	if fine {
		for i := range hs {
			hs[i]++
		}
		if len(all) == 3 {
			all = []float64{1, 2, 3}
		} else {
			all = []float64{2, 3}
		}
	}
	return hs, all
}

// extraLayout is tuningLayout for n tunings when each also brings
// extra candidates of other mechanisms (ChooseOptions.Mechanisms): the
// largest layout with n·(|h|·|k| + extra) ≤ MaxChooseCandidates, else
// one h and one k per tuning. Public: it depends on n, extra, the learner
// kind and the noise kind only.
func extraLayout(n, extra int, kind learners.Kind, noise mechanism.NoiseKind) ([]int, []float64) {
	if extra == 0 {
		return tuningLayout(n, kind, noise)
	}
	for m := n; m <= MaxChooseCandidates; m++ {
		hs, ks := tuningLayout(m, kind, noise)
		if n*(len(hs)*len(ks)+extra) <= MaxChooseCandidates {
			return hs, ks
		}
	}
	hs, ks := tuningLayout(MaxChooseCandidates, kind, noise)
	return hs[:1], ks[len(ks)/2 : len(ks)/2+1]
}

func hasBandwidth(s learners.Spec) bool {
	return slices.ContainsFunc(s.Params, func(p learners.ParamSpec) bool { return p.Name == "bandwidth" })
}

// fitKey identifies a learner fit by its tuning: the bandwidth and the
// parameters of a candidate (nil: the request's).
func fitKey(c Candidate) string {
	return fmt.Sprint(c.Bandwidth) + " " + Candidate{Params: c.Params}.String()
}

// trainFit is the learner fitted on T for one bandwidth.
type trainFit struct {
	fitted *learners.Fitted
	full   *learners.Fitted // the full-data fit (public: S, its noise sensitivity and stand-in)
	values learners.Values  // the tuning's parameter values
	score  learners.ValidationScore
	exact  map[int][]float64 // F_T on the lattice, by k
}

// choicePlan holds everything of a private choice before the scores: the
// split, the fits on T and the public per-candidate parameters.
type choicePlan struct {
	p          *Prepared
	opt        ChooseOptions
	cands      []Candidate
	sims       []*candidateSim
	fits       map[string]*trainFit
	train, val learners.Dataset
	beta       float64
	betas      []float64
	// accuracy holds, for a classifier, each candidate's accuracy score
	// (margin: the root-mean-square of its release noise); nil otherwise.
	accuracy []learners.AccuracyScore
	// betaSup is the Bernstein candidates' β with the sup-norm bound only
	// (no lattice-L1 bound), for comparison in tests and docs.
	betaSup float64
	// selection is how the plan selects (from the β_i: public).
	selection ChoiceSelection
}

// scoreKind is the learner output the plan's scores measure (the same for
// every candidate: bandwidths do not change a learner's output kind).
func (pl *choicePlan) scoreKind() learners.OutputKind {
	return pl.fits[fitKey(pl.cands[0])].score.Kind
}

// classifier reports whether the plan scores classifiers by accuracy.
func (pl *choicePlan) classifier() bool {
	k := pl.scoreKind()
	return k == learners.OutputClassScore || k == learners.OutputProbability
}

// planChoice splits p.Data by perm (the first m indices of perm are V),
// fits the learner on T for each bandwidth and computes β. It spends
// nothing; errors here (e.g. a fit on T refused) leave the ledger as is.
func planChoice(ctx context.Context, p *Prepared, opt ChooseOptions, perm []int) (*choicePlan, error) {
	n := len(perm)
	m := int(math.Round(opt.ValidationFraction * float64(n)))
	if m < 1 || n-m < 2 {
		return nil, reqErr("validation-fraction", "%g of %d records leaves %d for validation and %d for training; need ≥ 1 and ≥ 2",
			opt.ValidationFraction, n, m, n-m)
	}
	pl := &choicePlan{p: p, opt: opt, fits: map[string]*trainFit{}}
	data := p.LearnerData()
	pl.val = subset(data, perm[:m])
	pl.train = subset(data, perm[m:])
	learner, err := learners.Lookup(p.Spec.Kind)
	if err != nil {
		return nil, err
	}
	fullFit := func(tu Candidate) (*learners.Fitted, error) {
		f, err := pl.fit(ctx, learner, tu)
		if err != nil {
			return nil, err
		}
		return f.full, nil
	}
	pl.cands = opt.Candidates
	if pl.cands == nil {
		if pl.cands, err = DefaultCandidates(p, opt, fullFit); err != nil {
			return nil, err
		}
	}
	if len(pl.cands) == 0 {
		return nil, reqErr("candidates", "no candidate settings given")
	}
	dim := p.Data.Dim
	axes := quadratureAxes(dim)
	weights := map[string]float64{}
	var bound float64 // the largest public bound on a candidate's score
	for i, c := range pl.cands {
		f, err := pl.fit(ctx, learner, c)
		if err != nil {
			return nil, fmt.Errorf("candidate %d (%s): %w", i+1, c, err)
		}
		pr := candidateParams(p.Params, c, dim)
		sim, err := pl.candidateSim(ctx, c, f, pr)
		if err != nil {
			return nil, fmt.Errorf("candidate %d (%s): %w", i+1, c, err)
		}
		d := sim.d
		bV := f.score.BetaV(pl.val.N())
		bSup := max(bV, f.score.BetaT(d))
		b := bSup
		if pl.classifier() {
			// The balanced accuracy at the margin γ = max(RMS of the
			// release noise, M·d/2), so that β_T = d/(2γ) ≤ 1/M = β_V
			// (docs/validation.md, "The accuracy score").
			rms, err := sim.noiseRMS(axes)
			if err != nil {
				return nil, fmt.Errorf("candidate %d (%s): %w", i+1, c, err)
			}
			acc, err := learners.NewAccuracyScore(pl.scoreKind(), max(rms, float64(learners.MinClassSize(pl.val.N()))*d/2))
			if err != nil {
				return nil, fmt.Errorf("candidate %d (%s): %w", i+1, c, err)
			}
			pl.accuracy = append(pl.accuracy, acc)
			b = max(acc.BetaV(pl.val.N()), acc.BetaT(d))
			bSup = b
			bound = max(bound, acc.Bound())
		} else if l1 := f.fitted.LatticeL1Sensitivity; l1 != nil && f.score.NeedsGrid() && !c.peer() {
			// The density integral term via the lattice-L1 sensitivity:
			// grid mean of |P − P′| ≤ W·L (docs/validation.md).
			key := fmt.Sprint(pr.K, pr.H)
			w, ok := weights[key]
			if !ok {
				w = basisGridWeight(pr.K, pr.H, axes)
				weights[key] = w
			}
			b = max(bV, f.score.BetaTMean(d, w*l1(pr.K)))
		}
		if !pl.classifier() {
			bound = max(bound, f.score.Bound())
		}
		if !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("candidate %d (%s): score sensitivity β = %g is not finite and > 0", i+1, c, b)
		}
		pl.sims = append(pl.sims, sim)
		pl.betas = append(pl.betas, b)
		pl.beta = max(pl.beta, b)
		if !c.peer() {
			pl.betaSup = max(pl.betaSup, bSup)
		}
	}
	pl.selection = newChoiceSelection(pl.cands, pl.betas, bound)
	return pl, nil
}

// quadratureAxes returns the axes of the density score's integration grid
// in dim dimensions: the largest per-axis count ≤ 256 with at most
// maxQuadraturePoints points in all (256, 64, 16, 8 for ℓ = 1..4).
func quadratureAxes(dim int) [][]float64 {
	perAxis := 1
	for (perAxis+1) <= 256 && pow(perAxis+1, dim) <= maxQuadraturePoints {
		perAxis++
	}
	return learners.QuadratureAxes(dim, perAxis)
}

// basisGridWeight returns W = ∏_j (k_j+1)·max_ν w_{j,ν} with
//
//	w_{j,ν} = (1/|G_j|)·Σ_{g∈G_j} |b^(h)_{ν,k_j}(g)|,
//
// the grid mean of one iterated Bernstein basis function on axis j of the
// product grid G = ×_j G_j (axes). For the tensor-product basis the grid
// mean of |∏_j b^(h)_{ν_j}(g_j)| is ∏_j w_{j,ν_j}, so for any coefficient
// changes Δc_ν
//
//	(1/|G|)·Σ_g |Σ_ν Δc_ν ∏_j b^(h)_{ν_j}(g_j)| ≤ Σ_ν |Δc_ν|·∏_j w_{j,ν_j} ≤ W·(1/∏_j(k_j+1))·Σ_ν |Δc_ν|.
//
// W depends on k, h and the public grid only. The basis values are
// computed in float64 (mechanism.IteratedBasis.At); W is inflated by a
// relative 10⁻⁹, far above their rounding error, so the computed value is
// an upper bound. docs/validation.md derives it.
func basisGridWeight(k []int, h int, axes [][]float64) float64 {
	w := 1.0
	for j, kj := range k {
		ib := mechanism.NewIteratedBasis(kj, h)
		sum := make([]float64, kj+1)
		b := make([]float64, kj+1)
		for _, g := range axes[j] {
			ib.At(g, b)
			for nu, v := range b {
				sum[nu] += math.Abs(v)
			}
		}
		w *= float64(kj+1) * slices.Max(sum) / float64(len(axes[j]))
	}
	return w * (1 + 1e-9)
}

// fit returns (and caches) the learner fitted on T with the tuning of c
// (its bandwidth and parameters; nil: the request's), the full-data fit
// (for the sensitivity and stand-in) and the score for its output.
func (pl *choicePlan) fit(ctx context.Context, learner learners.Learner, c Candidate) (*trainFit, error) {
	key := fitKey(c)
	if f, ok := pl.fits[key]; ok {
		return f, nil
	}
	values := pl.p.tuningValues(c)
	ft, err := learner.Fit(ctx, pl.train, values)
	if err != nil {
		return nil, fmt.Errorf("fitting on the training split: %w", err)
	}
	if err := mechanism.ValidateSensitivity(ft.Sensitivity); err != nil {
		return nil, err
	}
	full := pl.p.Fitted
	if c.Bandwidth != nil || c.Params != nil {
		// The sensitivity and the stand-in depend on n and the parameters
		// only; fit the full data to read them for this tuning.
		if full, err = learner.Fit(ctx, pl.p.Data, values); err != nil {
			return nil, err
		}
	}
	kind := pl.p.Spec.Output.Kind
	if ft.Output.Kind != "" {
		kind = ft.Output.Kind
	}
	score, err := learners.NewValidationScore(kind, ft.OutputRange)
	if err != nil {
		return nil, err
	}
	f := &trainFit{fitted: ft, full: full, values: values, score: score, exact: map[int][]float64{}}
	pl.fits[key] = f
	return f, nil
}

// subset returns the records of d at the given indices.
func subset(d learners.Dataset, idx []int) learners.Dataset {
	out := learners.Dataset{Dim: d.Dim, X: make([]float64, 0, len(idx)*d.Dim)}
	if d.Labels != nil {
		out.Labels = make([]float64, 0, len(idx))
	}
	for _, i := range idx {
		out.X = append(out.X, d.X[i*d.Dim:(i+1)*d.Dim]...)
		if d.Labels != nil {
			out.Labels = append(out.Labels, d.Labels[i])
		}
	}
	return out
}

// run reserves the spend, scores the candidates and selects one.
func (pl *choicePlan) run(ctx context.Context, seed uint64) (*ChooseResult, error) {
	p, opt := pl.p, pl.opt
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	params := map[string][]float64{}
	for _, c := range pl.cands {
		params["candidate_h"] = append(params["candidate_h"], float64(c.H))
		params["candidate_k"] = append(params["candidate_k"], float64(c.K))
		if c.Bandwidth != nil {
			params["candidate_bandwidth"] = append(params["candidate_bandwidth"], c.Bandwidth[0])
		}
		for name, v := range c.Params {
			params["candidate_"+name] = append(params["candidate_"+name], v[0])
		}
	}
	id, err := p.Identity()
	if err != nil {
		return nil, err
	}
	entries, found, err := ledger.ReserveByIdentity(opt.Ledger, id, ledger.Entry{
		Time:        now(),
		Kind:        ledger.KindValidation,
		DatasetPath: absPath(p.Request.Dataset.Path),
		Epsilon:     opt.EpsilonSelect,
		Learner:     string(p.Spec.Kind),
		Params:      params,
		Noise:       "laplace",
		Note: fmt.Sprintf("private choice of "+pl.choiceWhat()+pl.mechanismsWhat()+" among %d candidates (stability-based validation, %d training / %d validation records, β = %.4g%s)",
			len(pl.cands), pl.train.N(), pl.val.N(), pl.beta, pl.selection.ledgerWords(opt.EpsilonSelect, opt.Gamma)),
	}, opt.AllowOverBudget, opt.DifferentPopulation)
	if err != nil {
		return nil, err
	}
	entry := entries[0]
	// From here on the spend is recorded, whatever happens.
	scores, err := pl.scores(ctx, seed)
	if err != nil {
		return nil, fmt.Errorf("scoring the candidates (the ledger keeps the spend): %w", err)
	}
	sel, err := pl.selection.selectSecure(scores, opt.EpsilonSelect, opt.Gamma)
	if err != nil {
		return nil, fmt.Errorf("selecting (the ledger keeps the spend): %w", err)
	}
	spent, _ := opt.Ledger.Spent(entry.DatasetHash)
	return &ChooseResult{
		Chosen:       pl.cands[sel.Index],
		ChosenIndex:  sel.Index,
		Candidates:   slices.Clone(pl.cands),
		Epsilon:      opt.EpsilonSelect,
		Entry:        entry,
		Beta:         pl.beta,
		Scale:        sel.Scale,
		UtilityBound: pl.selection.UtilityBound(opt.EpsilonSelect, opt.Gamma),
		Gamma:        opt.Gamma,
		Selection:    pl.selection,
		TrainN:       pl.train.N(),
		ValidationN:  pl.val.N(),
		ScoreKind:    pl.scoreKind(),
		Spent:        spent,
		Budget:       opt.Ledger.Budget(entry.DatasetHash),
		Clipped:      pl.p.Clipped,
		Filled:       pl.p.Filled,
		Identity:     found,
	}, nil
}

// scores returns q_i for every candidate: the mean over opt.Draws
// simulated releases (seeded by seed, the same draws for every dataset) of
// the validation score on V. They are PRIVATE.
func (pl *choicePlan) scores(ctx context.Context, seed uint64) ([]float64, error) {
	axes := quadratureAxes(pl.p.Data.Dim)
	out := make([]float64, len(pl.cands))
	pred := make([]float64, pl.val.N())
	for i, c := range pl.cands {
		f := pl.fits[fitKey(c)]
		// One independent stream per candidate, all from the one seed.
		src := mechanism.NewSimulationNoise(seed ^ (uint64(i+1) * 0x9e3779b97f4a7c15))
		var sum float64
		for range pl.opt.Draws {
			sim, err := pl.sims[i].draw(ctx, src)
			if err != nil {
				return nil, err
			}
			if err := sim.EvalBatch(ctx, pl.val.X, pred); err != nil {
				return nil, err
			}
			if pl.accuracy != nil {
				q, err := pl.accuracy[i].Score(pred, pl.val.Labels)
				if err != nil {
					return nil, err
				}
				sum += q
				continue
			}
			var grid []float64
			if f.score.NeedsGrid() {
				if grid, err = sim.EvalGrid(axes); err != nil {
					return nil, err
				}
			}
			q, err := f.score.Score(pred, pl.val.Labels, grid)
			if err != nil {
				return nil, err
			}
			sum += q
		}
		out[i] = sum / float64(pl.opt.Draws)
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, fmt.Errorf("candidate %d (%s): score %g is not finite", i+1, c, out[i])
		}
		if pl.opt.Progress != nil {
			pl.opt.Progress(i+1, len(pl.cands))
		}
	}
	return out, nil
}

func pow(a, b int) int {
	r := 1
	for range b {
		r *= a
	}
	return r
}
