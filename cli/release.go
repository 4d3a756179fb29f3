package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
)

type releaseFlags struct {
	datasetFlags
	private                                       privateBoundsFlags
	agg                                           aggregateFlags
	out, key, title, note, passphraseFile, ledger string
	mechanism                                     string // --mechanism: the synopsis kind (release.Mechanisms)
	units                                         boundsUnits
	k                                             flagvalue.K
	budget, deltaBudget                           flagvalue.Float
	h                                             int
	force, allowOver, differentPopulation         bool
}

func releaseCommand() *command {
	return &command{
		Name: "release",
		Args: "--data FILE.csv --features A,B [--label Y [--classes NEG,POS]] --bounds A=LO:HI,… --learner KIND --epsilon E --out FILE.synopsis [flags]",
		Summary: "Fit a learner to a CSV dataset and publish it as a signed, " +
			"differentially private synopsis; prints ε spent and the ledger total.",
		Details: `Steps, in this order: read and validate everything; fit the learner; evaluate it
on the Bernstein lattice; check the output file can be written; record the
spend in the privacy-budget ledger (refused when over the dataset's budget);
add secure noise; write the signed synopsis. If the last step fails, the
spend stays recorded.

Every data row is used (n is the number of rows in the file, public): a
missing or non-numeric value is replaced by the column's public fill value
(--fill; default the midpoint of its bounds), a label that is neither
declared class (--classes NEG,POS) by the fill class (--fill-class; default
the negative class). How many values were clipped or filled is private: it
is printed on standard error only.

The budget follows the records, not the file: the values of the used columns,
whatever the file's format, row order or other columns. A dataset sharing at
least half its rows with one in the ledger (estimated from keyed sketches kept
beside the ledger) is charged to that dataset's budget and the finding is
shown on standard error, unless --different-population declares otherwise.

With --aggregates FILE instead of --data, the release reads the aggregate
table that the query of 'bernstein aggregate-sql' (same learner, columns,
bounds, fill values, classes, --bins, --table and --dialect) returned on the
curator's own engine (kde, naive-bayes, ridge; docs/aggregates.md). n is
declared (--n) and the table's counts must add up to it; the ledger dataset
is declared too (--dataset-id), since the ledger cannot recognise records it
never reads; the synopsis records the dialect and the query's SHA-256.

The engine is chosen for you, from public inputs only (docs/aggregates.md):
--data may also be a Parquet file or a folder of Parquet files, which the
embedded DuckDB reads (Linux builds), like a CSV file of at least
--duckdb-csv-bytes when the learner has an aggregate path (kde, naive-bayes,
ridge); the release is then a release from aggregates (the synopsis records
it), charged to --dataset-id or to the file's SHA-256. priestley-chao and svm
keep every record in memory, up to a public row limit.

Bounds must be public: chosen from domain knowledge, not from the data. COL=data
takes them from the data's minimum and maximum, which leaks those values
outside ε; it is refused unless --acknowledge-data-bounds is given, and the
synopsis records it.

Learners (--learner) and their parameters (--param NAME=V or NAME=V1,V2,… for
one value per feature):
` + learnerHelp(),
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			f := &releaseFlags{h: release.DefaultH}
			f.k.Auto = true
			f.register(fs, "privacy parameter ε = `E` > 0 spent by this release (required)")
			f.private.register(fs)
			f.agg.register(fs)
			fs.Var(&f.units, "units", "units `A=UNIT,B=UNIT` of the columns, recorded in the synopsis (optional)")
			fs.Var(&f.k, "k", "lattice cover size: `auto` (least predicted error, docs/sensitivity.md), one K for every axis, or K1,K2,… per axis")
			flagvalue.WholeVar(fs, &f.h, "h", f.h, "iterated Bernstein order `H`, 1 to "+strconv.Itoa(mechanism.MaxH))
			fs.StringVar(&f.title, "title", "", "the synopsis's public one-line `TITLE`")
			fs.StringVar(&f.note, "note", "", "the synopsis's public free-text `NOTE`")
			fs.StringVar(&f.out, "out", "", "the synopsis file `FILE.synopsis` to write (required)")
			fs.StringVar(&f.mechanism, "mechanism", "bernstein", "the released `KIND`: bernstein, gp (Hall et al., ε ≤ 1, needs δ), trig (Wang et al., 1-D KDE) or output-perturbation (logistic)")
			fs.BoolVar(&f.force, "force", false, "overwrite an existing output file")
			fs.BoolVar(&f.allowOver, "allow-over-budget", false, "release even when the dataset's total budget would be exceeded (recorded in the ledger)")
			fs.BoolVar(&f.differentPopulation, "different-population", false, "declare the data a different population from the near-duplicate datasets the ledger finds: not charged to their budgets (recorded in the ledger)")
			fs.Var(&f.budget, "budget", "set the dataset's total ε budget to `E` before this release (recorded in the ledger)")
			fs.Var(&f.deltaBudget, "delta-budget", "set the dataset's total δ budget to `D` in (0, 1) before this release (recorded in the ledger; default budget 1e-6)")
			fs.StringVar(&f.ledger, "ledger", "", "privacy-budget ledger `FILE` (default: ledger.jsonl in the user config directory)")
			fs.StringVar(&f.key, "key", "", "the curator's private signing key `FILE` (default: the key 'bernstein keygen' writes)")
			fs.StringVar(&f.passphraseFile, "passphrase-file", "", "read the key passphrase from `FILE` (else $"+passphraseEnv+", else a prompt)")
			return func(ctx context.Context, _ []string) error {
				if err := f.agg.check(fs, f); err != nil {
					return err
				}
				return runRelease(ctx, e, f)
			}
		},
	}
}

// boundsUnits is --units A=UNIT,B=UNIT.
type boundsUnits map[string]string

func (u *boundsUnits) String() string {
	if u == nil {
		return ""
	}
	var parts []string
	for k, v := range *u {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

func (u *boundsUnits) Set(s string) error {
	if *u == nil {
		*u = boundsUnits{}
	}
	for _, item := range strings.Split(s, ",") {
		name, unit, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("%q: want COLUMN=UNIT", item)
		}
		(*u)[strings.TrimSpace(name)] = strings.TrimSpace(unit)
	}
	return nil
}

func learnerKinds() []string {
	var kinds []string
	for _, l := range learners.All() {
		kinds = append(kinds, string(l.Spec().Kind))
	}
	return kinds
}

// learnerHelp describes every learner and its parameters, from the
// learners' own metadata.
func learnerHelp() string {
	var b strings.Builder
	for _, l := range learners.All() {
		s := l.Spec()
		label := "no label"
		switch s.Label {
		case learners.LabelReal:
			label = "real label (needs bounds)"
		case learners.LabelBinary:
			label = "binary label (declared with --classes)"
		}
		dims := fmt.Sprintf("%d–%d features", s.MinDim, s.MaxDim)
		if s.MinDim == s.MaxDim {
			dims = fmt.Sprintf("%d feature(s)", s.MinDim)
		}
		fmt.Fprintf(&b, "  %s: %s; %s, %s; output %s.\n", s.Kind, s.Title, dims, label, s.Output.Kind)
		for _, p := range s.Params {
			rng := fmt.Sprintf("[%g, %g]", p.Min, p.Max)
			if p.MinExclusive {
				rng = fmt.Sprintf("(%g, %g]", p.Min, p.Max)
			}
			if len(p.Choices) > 0 {
				var cs []string
				for i, c := range p.Choices {
					s := fmt.Sprintf("%g", c)
					if i < len(p.ChoiceLabels) {
						s += "=" + p.ChoiceLabels[i]
					}
					cs = append(cs, s)
				}
				rng = "one of " + strings.Join(cs, ", ")
			}
			per := ""
			if p.PerAxis {
				per = ", per feature"
			}
			def := fmt.Sprintf("%g", p.Default)
			if p.AutoRule != "" {
				def = p.AutoRule // the data-independent default from n, ℓ and ε
			}
			fmt.Fprintf(&b, "      %s (default %s, %s%s): %s\n", p.Name, def, rng, per, p.Help)
		}
	}
	return b.String()
}

func runRelease(ctx context.Context, e *env, f *releaseFlags) error {
	if err := f.checkRequired(); err != nil {
		return err
	}
	if f.out == "" {
		return usagef("--out FILE.synopsis is required")
	}
	if err := refuseDashOut(f.out, "a synopsis"); err != nil {
		return err
	}
	if f.beta.Given && !f.k.Auto {
		return usagef("--beta only applies to --k auto")
	}
	for col := range f.units {
		if !slices.Contains(f.features, col) && col != f.label {
			return f.notAColumn("--units", col)
		}
	}
	req, spec, err := f.request(e)
	if err != nil {
		return err
	}
	if err := f.private.check(&f.datasetFlags, spec, f.budget.Given || f.deltaBudget.Given); err != nil {
		return err
	}
	embedded := f.engine == release.EngineDuckDB
	switch {
	case embedded && (f.private.used() || len(f.private.estimated.Order) > 0):
		return usagef("%s goes through the embedded DuckDB (docs/aggregates.md): --bounds-private and --bounds-estimated need the records in memory; give typed public bounds", f.data)
	case embedded && f.differentPopulation:
		return usagef("%s goes through the embedded DuckDB: --different-population applies to records read into memory; this release is charged to --dataset-id or the file's SHA-256", f.data)
	case f.engine == release.EngineMemory && f.agg.datasetID != "":
		return usagef("--dataset-id: %s is read into memory, where the records identify their ledger dataset; --dataset-id applies to --aggregates and to the embedded DuckDB", f.data)
	case embedded:
		fmt.Fprintf(e.Stderr, "engine: the embedded DuckDB reads %s (Parquet, or a CSV of at least %d bytes; docs/aggregates.md)\n", f.data, f.agg.csvBytes)
	}
	if f.agg.given() {
		req.Aggregates = f.agg.source()
	}
	req.Units = f.units
	req.Privacy.K, req.Privacy.H, req.KAuto = f.k.Sizes, f.h, f.k.Auto
	req.Title, req.Note = f.title, f.note

	// Order: validate and fit (Prepare), then check the key, the output
	// and the budget, all before the passphrase prompt; the passphrase is
	// checked (the key loaded) before anything is written to the ledger.
	ledgerPath := f.ledger
	if ledgerPath == "" {
		if ledgerPath, err = ledger.DefaultPath(); err != nil {
			return err
		}
	}
	keyPath := f.key
	if keyPath == "" {
		if keyPath, err = keys.DefaultKeyPath(); err != nil {
			return err
		}
	}
	sourcePath := f.data
	if f.agg.given() {
		sourcePath = f.agg.path
	}
	source := release.DatasetProtected(sourcePath)
	if err := checkOutputs([]string{f.out}, source,
		release.LedgerProtected(ledgerPath), release.KeyProtected(keyPath),
		release.PassphraseProtected(f.passphraseFile)); err != nil {
		return err
	}
	if err := checkLedgerPath(ledgerPath, source, release.KeyProtected(keyPath),
		release.PassphraseProtected(f.passphraseFile)); err != nil {
		return err
	}
	if f.private.used() {
		// Spending on bounds for a release that cannot be made wastes ε:
		// the public checks that Prepare and Release would fail come first.
		if _, err := spec.Resolve(req.Params, len(req.Features)); err != nil {
			return err
		}
		if err := checkKeyAndOut(keyPath, f); err != nil {
			return err
		}
	}
	if err := f.private.estimate(ctx, e, &req, ledgerPath, f.allowOver, f.epsilon.Value); err != nil {
		return err
	}
	fitLine := newProgressLine(e, "fitting and evaluating F_D on the lattice:")
	prep, err := release.Prepare(ctx, req, fitLine.callback())
	fitLine.finish()
	if err != nil {
		return err
	}
	if k := prep.Params.K; f.k.Auto {
		if prep.Fitted.StandIn.Known(len(k)) {
			fmt.Fprintf(e.Stderr, "k = %d per axis (automatic: least predicted error for the learner's public stand-in, docs/sensitivity.md)\n", k[0])
		} else {
			fmt.Fprintf(e.Stderr, "k = %d per axis (k* of Section 4.1, β = %g)\n", k[0], orDefault(f.beta, release.DefaultBeta))
		}
	}
	if w := prep.NoiseWarning(); w != "" {
		fmt.Fprintln(e.Stderr, "warning: "+w)
	}
	if req.Aggregates == nil {
		printPrivateCounts(e.Stderr, f.columns(), prep.Clipped, prep.Filled)
	}
	if err := prep.CheckMechanism(f.mechanism); err != nil {
		return err // outside the kind's theorem: refused before the budget and the key
	}
	keyEncrypted, err := checkSigningKey(e, keyPath)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(f.out); err == nil && !f.force {
		return &fileio.ExistsError{Path: f.out} // checked again, authoritatively, by Release
	}
	led, err := ledger.Open(ledgerPath)
	if err != nil {
		return err
	}
	charges, finding, err := prep.LedgerDatasets(led, f.differentPopulation)
	if err != nil {
		return err
	}
	key := charges[0]
	if f.agg.given() || embedded && f.agg.datasetID != "" {
		fmt.Fprintf(e.Stderr, "dataset (declared by you, --dataset-id): %s\n", finding)
	} else if embedded {
		fmt.Fprintf(e.Stderr, "dataset (the records file's SHA-256): %s\n", finding)
	} else {
		fmt.Fprintf(e.Stderr, "dataset (curator only; from the private records): %s\n", finding)
	}
	for _, h := range charges {
		if err := budgetPrecheck(led, h, prep.Params, f); err != nil {
			return err
		}
	}
	signer, err := unlockSigningKey(e, keyPath, keyEncrypted, f.passphraseFile)
	if err != nil {
		return err
	}
	if err := setReleaseBudgets(e, led, key, f); err != nil {
		return err
	}
	noiseLine := newProgressLine(e, "drawing secure noise:")
	defer noiseLine.finish()
	res, err := prep.Release(ctx, release.Options{
		NoiseProgress:       noiseLine.callback(),
		Mechanism:           f.mechanism,
		Out:                 f.out,
		Overwrite:           f.force,
		AllowOverBudget:     f.allowOver,
		DifferentPopulation: f.differentPopulation,
		Ledger:              led,
		Signer:              signer,
		Protected:           release.KeyProtected(keyPath),
		AppVersion:          e.Version,
		Now:                 e.Now,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "wrote %s\n", res.Path)
	fmt.Fprintf(e.Stdout, "ε spent by this release: %.6g", res.Spent)
	if prep.Params.Delta > 0 {
		fmt.Fprintf(e.Stdout, " (δ %.6g)", prep.Params.Delta)
	}
	fmt.Fprintln(e.Stdout)
	charged := res.Entry.DatasetHash
	fmt.Fprintf(e.Stdout, "ledger total for dataset %s: ε %.6g of budget %.6g\n", shortHash(charged), res.Total, res.Budget)
	if prep.Params.Delta > 0 {
		_, totalDelta := led.Spent(charged)
		fmt.Fprintf(e.Stdout, "ledger total for dataset %s: δ %.6g of budget %.6g\n", shortHash(charged), totalDelta, led.DeltaBudget(charged))
	}
	if res.OverBudget {
		fmt.Fprintln(e.Stdout, "warning: this release exceeded the dataset's budget (--allow-over-budget); recorded in the ledger")
	}
	return nil
}

// setReleaseBudgets records --budget and --delta-budget, if given. It runs
// after every input, the passphrase included, has been checked, so that a
// release refused for any other reason leaves the ledger unchanged.
func setReleaseBudgets(e *env, l *ledger.Ledger, hash string, f *releaseFlags) error {
	if !f.budget.Given && !f.deltaBudget.Given {
		return nil
	}
	if err := l.SetBudgets(hash, f.budget.Value, f.deltaBudget.Value); err != nil {
		return err
	}
	if f.budget.Given {
		fmt.Fprintf(e.Stderr, "budget of dataset %s set to ε %g (recorded in the ledger)\n", shortHash(hash), f.budget.Value)
	}
	if f.deltaBudget.Given {
		fmt.Fprintf(e.Stderr, "δ budget of dataset %s set to %g (recorded in the ledger)\n", shortHash(hash), f.deltaBudget.Value)
	}
	return nil
}

// checkKeyAndOut refuses, before anything is spent, a release without a
// signing key or whose output exists (without --force).
func checkKeyAndOut(keyPath string, f *releaseFlags) error {
	if _, err := os.Stat(keyPath); err != nil {
		return fmt.Errorf("no signing key: %w; create one with 'bernstein keygen' or name it with --key", err)
	}
	if _, err := os.Lstat(f.out); err == nil && !f.force {
		return &fileio.ExistsError{Path: f.out} // checked again, authoritatively, by Release
	}
	return nil
}

// budgetPrecheck refuses, before the passphrase prompt, a release that the
// ledger will certainly refuse: damaged, torn, cut at its end (tip file),
// hard-linked, or over budget by both of its accounts: basic
// composition and zCDP, docs/ledger.md). Without budget flags it asks the
// ledger's own admission rule (Ledger.Admits, Reserve's rule), so it never
// refuses a release the ledger would allow. With --budget or --delta-budget
// (recorded only after the passphrase) it checks basic composition against
// the new budgets, with a relative slack of 1e-6, and lets a Gaussian
// release through to Reserve, whose zCDP account may admit it; Reserve
// remains the one authoritative check.
func budgetPrecheck(l *ledger.Ledger, hash string, p mechanism.Params, f *releaseFlags) error {
	if d := l.Damaged(); d != nil {
		return d
	}
	if t := l.Torn(); t != nil {
		return t
	}
	if t := l.TipProblem(); t != nil {
		return t
	}
	if h := l.HardLinked(); h != nil {
		return h
	}
	if f.allowOver {
		return nil
	}
	if !f.budget.Given && !f.deltaBudget.Given {
		return l.Admits(ledger.Entry{Kind: ledger.KindRelease, DatasetHash: hash,
			Epsilon: p.Epsilon, Delta: p.Delta, Noise: string(p.Noise)})
	}
	if p.Noise == mechanism.NoiseGaussian {
		return nil
	}
	spent, spentDelta := l.Spent(hash)
	budget, deltaBudget := l.Budget(hash), l.DeltaBudget(hash)
	if f.budget.Given {
		budget = f.budget.Value
	}
	if f.deltaBudget.Given {
		deltaBudget = f.deltaBudget.Value
	}
	if spent+p.Epsilon > budget*(1+1e-6) {
		return &ledger.BudgetError{File: l.Path(), DatasetHash: hash, Spent: spent, Requested: p.Epsilon, Budget: budget}
	}
	if spentDelta+p.Delta > deltaBudget*(1+1e-6) {
		return &ledger.BudgetError{File: l.Path(), DatasetHash: hash, Delta: true, Spent: spentDelta, Requested: p.Delta, Budget: deltaBudget}
	}
	return nil
}

func orDefault(f flagvalue.Float, def float64) float64 {
	if f.Given {
		return f.Value
	}
	return def
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
