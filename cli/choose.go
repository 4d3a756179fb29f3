package cli

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

type chooseFlags struct {
	datasetFlags
	private             privateBoundsFlags
	ledger              string
	epsSelect, fraction flagvalue.Float
	draws               int
	bandwidths          bool
	parameters          bool
	mechanisms          bool
	allowOver           bool
	differentPopulation bool
	// targetError and targetData: choose_target.go.
	targetError, targetData string
}

func chooseCommand() *command {
	return &command{
		Name: "choose",
		Args: "--data FILE.csv --features A,B [--label Y [--classes NEG,POS]] --bounds A=LO:HI,… --learner KIND --epsilon E --epsilon-select E2 [flags]",
		Summary: "Privately choose the Bernstein order h and cover size k (and optionally the learner's parameters) " +
			"for a release; spends --epsilon-select from the ledger.",
		Details: `Stability-based private validation (Chaudhuri & Vinterbo 2013; docs/validation.md):
the records are split at random (independently of the data) into a training
set (70%) and a validation set (30%); each candidate h ∈ {1..5} × k ∈
{k*/2, k*, 2k*} (× bandwidth ∈ {b/2, b, 2b} with --bandwidths; with
--parameters × the learner's parameters around their values: svm C × σ,
logistic C × intercept, ridge C, the bandwidth of the others, with fewer h
and k) is fitted on the training set, turned into a simulated release with the noise of the final
release (--epsilon), and scored on the validation set; the candidate with the
best score plus Laplace noise is chosen (classifiers are scored by their
balanced accuracy). With --mechanisms the candidates also hold the other
mechanisms the release can have (the Bernstein release at the other noise
kinds --delta allows, output perturbation for logistic regression, Wang et
al.'s trigonometric release for a one-dimensional KDE, Hall et al.'s GP
when δ > 0 and ε ≤ 1), each scored at its own noise on the same
validation set, within the same --epsilon-select; when their score
sensitivities are far above the Bernstein settings', each candidate is
compared at its own (the generalized exponential mechanism). Only the choice is printed, never the
scores. The choice is ε_sel-differentially private and spends --epsilon-select,
recorded in the ledger (kind "validation") before anything is scored; the
later release with the chosen settings spends its own --epsilon.

The dataset, learner, bounds and noise flags are those of 'bernstein release'.

With --target-error X (instead of --epsilon and --epsilon-select) it spends
nothing: it proposes the smallest ε, with the mechanism (Bernstein or a
published peer), the noise kind, h and k, at which
95% of simulated releases have at most the error X (docs/cli.md), on the
public uniform stand-in unless --target-data says otherwise.`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			f := &chooseFlags{}
			f.register(fs, "ε = `E` of the RELEASE the settings are chosen for (required; not spent here)")
			f.private.register(fs)
			fs.Var(&f.epsSelect, "epsilon-select", "ε = `E` spent by this private choice (required; recorded in the ledger)")
			fs.Var(&f.fraction, "validation-fraction", "share `F` of records held out for validation, in (0,1) (default 0.3)")
			flagvalue.WholeVar(fs, &f.draws, "draws", release.DefaultChooseDraws, "simulated noise draws `N` averaged per candidate score, 1 to 20")
			fs.BoolVar(&f.bandwidths, "bandwidths", false, "also choose the bandwidth among b/2, b, 2b (kde, priestley-chao, naive-bayes; h then 1..3)")
			fs.BoolVar(&f.parameters, "parameters", false, "also choose the learner's parameters (svm C and sigma, logistic C and intercept, ridge C, the bandwidth of kde, priestley-chao and naive-bayes) among public multiples of their values, jointly with h and k (≤ 30 candidates)")
			fs.BoolVar(&f.mechanisms, "mechanisms", false, "also compare the other mechanisms the release can have: the Bernstein release at the other noise kinds the request's\nnoise allows (laplace always; gaussian when the request is (ε, δ)-DP: --noise gaussian or laplace-approx with --delta > 0),\noutput perturbation for logistic regression, Wang et al.'s trigonometric release for a one-dimensional KDE and Hall et\nal.'s GP when the request is (ε, δ)-DP and ε ≤ 1; the chosen one is printed as release flags (--mechanism, and --noise\nwhen it differs from the request's)")
			fs.BoolVar(&f.allowOver, "allow-over-budget", false, "choose even when the dataset's total budget would be exceeded (recorded in the ledger)")
			fs.BoolVar(&f.differentPopulation, "different-population", false, "declare the data a different population from the near-duplicate datasets the ledger finds (recorded in the ledger)")
			fs.StringVar(&f.targetError, "target-error", "", "instead of a private choice: the error `X` you can accept (95% sup-norm error in the plot's units, or a percentage\nsuch as 5% of the public range; a classifier's disagreement with the non-private one); proposes the smallest ε, mechanism, noise, h and k\nfrom simulated releases; spends nothing")
			fs.StringVar(&f.targetData, "target-data", "uniform", "what --target-error simulates on: `uniform` (a public stand-in within the bounds), a public CSV FILE of the same columns,\nor private (the records; the proposal then goes to standard error, curator only)")
			fs.StringVar(&f.ledger, "ledger", "", "privacy-budget ledger `FILE` (default: ledger.jsonl in the user config directory)")
			return func(ctx context.Context, _ []string) error { return runChoose(ctx, e, f) }
		},
	}
}

func runChoose(ctx context.Context, e *env, f *chooseFlags) error {
	if f.targetError != "" {
		return runChooseTarget(ctx, e, f)
	}
	if err := f.checkRequired(); err != nil {
		return err
	}
	if !f.epsSelect.Given {
		return usagef("--epsilon-select (the ε this choice spends) is required")
	}
	req, spec, err := f.request(e)
	if err != nil {
		return err
	}
	if err := f.private.check(&f.datasetFlags, spec, false); err != nil {
		return err
	}
	req.Privacy.H, req.KAuto = 1, true
	ledgerPath := f.ledger
	if ledgerPath == "" {
		if ledgerPath, err = ledger.DefaultPath(); err != nil {
			return err
		}
	}
	if f.private.used() {
		if _, err := spec.Resolve(req.Params, len(req.Features)); err != nil {
			return err // a public check, before anything is spent
		}
	}
	if err := f.private.estimate(ctx, e, &req, ledgerPath, f.allowOver, f.epsSelect.Value); err != nil {
		return err
	}
	led, err := ledger.Open(ledgerPath)
	if err != nil {
		return err
	}
	line := newProgressLine(e, "scoring candidates:")
	res, err := release.ChooseSettings(ctx, req, release.ChooseOptions{
		EpsilonSelect:       f.epsSelect.Value,
		Ledger:              led,
		AllowOverBudget:     f.allowOver,
		DifferentPopulation: f.differentPopulation,
		Bandwidths:          f.bandwidths,
		Parameters:          f.parameters,
		Mechanisms:          f.mechanisms,
		ValidationFraction:  f.fraction.Value,
		Draws:               f.draws,
		Now:                 e.Now,
		Progress:            line.callback(),
	})
	line.finish()
	if err != nil {
		return err
	}
	printPrivateCounts(e.Stderr, f.columns(), res.Clipped, res.Filled)
	c := res.Chosen
	chosen, use := chosenMechanism(req, c)
	fmt.Fprint(e.Stdout, "chosen: "+chosen)
	if c.Bandwidth != nil {
		bw := make([]string, len(c.Bandwidth))
		for i, b := range c.Bandwidth {
			bw[i] = fmt.Sprintf("%g", b)
		}
		fmt.Fprintf(e.Stdout, ", bandwidth = %s", strings.Join(bw, ","))
		use += " --param bandwidth=" + strings.Join(bw, ",")
	}
	for _, name := range slices.Sorted(maps.Keys(c.Params)) {
		v := c.Params[name]
		fmt.Fprintf(e.Stdout, ", %s = %g", name, v[0])
		use += fmt.Sprintf(" --param %s=%g", name, v[0])
	}
	fmt.Fprintln(e.Stdout)
	fmt.Fprintf(e.Stdout, "release with: bernstein release … --epsilon %g %s\n", f.epsilon.Value, use)
	fmt.Fprintf(e.Stdout, "ε spent by this choice: %.6g (ledger entry %s, kind %s)\n", res.Epsilon, res.Entry.ID, res.Entry.Kind)
	fmt.Fprintf(e.Stdout, "ledger total for dataset %s: ε %.6g of budget %.6g\n", shortHash(res.Entry.DatasetHash), res.Spent, res.Budget)
	fmt.Fprintf(e.Stderr, "dataset (curator only; from the private records): %s\n", res.Identity.Describe())
	if res.Entry.OverBudget {
		fmt.Fprintln(e.Stdout, "warning: this choice exceeded the dataset's budget (--allow-over-budget); recorded in the ledger")
	}
	if random := res.Selection.RandomWords(res.Epsilon, res.Gamma); random != "" {
		defer fmt.Fprintln(e.Stderr, random)
	}
	if words := res.Selection.GeneralizedWords(res.Epsilon, res.Gamma); words != "" {
		fmt.Fprintf(e.Stderr, "compared %d candidates (%s) on %d training / %d validation records. %s\n",
			len(res.Candidates), release.ScoreWords(res.ScoreKind), res.TrainN, res.ValidationN, words)
		return nil
	}
	fmt.Fprintf(e.Stderr, "compared %d candidates (%s) on %d training / %d validation records; score sensitivity β = %.4g, "+
		"selection noise Laplace(%.4g); with probability %g the chosen score is within %.4g of the best\n",
		len(res.Candidates), release.ScoreWords(res.ScoreKind), res.TrainN, res.ValidationN, res.Beta, res.Scale, 1-res.Gamma, res.UtilityBound)
	return nil
}

// chosenMechanism describes the chosen candidate c for standard output
// and returns the release flags that make it (after "--epsilon E"): h and
// k for a Bernstein candidate, and --mechanism and --noise (--delta for
// the (ε, δ) kinds) when it is another mechanism or noise kind than req's
// (release.ApplyCandidate says what it means).
func chosenMechanism(req release.Request, c release.Candidate) (chosen, use string) {
	rel, name := release.ApplyCandidate(req, c)
	if name != synopsis.MechanismBernstein {
		chosen = fmt.Sprintf("mechanism %s", name)
		use = "--mechanism " + name
		if c.KeepsK() {
			chosen += fmt.Sprintf(", k = %d", c.K)
			use += fmt.Sprintf(" --k %d", c.K)
		}
	} else {
		chosen = fmt.Sprintf("h = %d, k = %d", c.H, c.K)
		use = fmt.Sprintf("--h %d --k %d", c.H, c.K)
	}
	if rel.Privacy.Noise != req.Privacy.Noise || name != synopsis.MechanismBernstein {
		chosen += ", noise = " + string(rel.Privacy.Noise)
		use += " --noise " + string(rel.Privacy.Noise)
		if rel.Privacy.Delta > 0 {
			use += fmt.Sprintf(" --delta %g", rel.Privacy.Delta)
		}
	}
	return chosen, use
}
