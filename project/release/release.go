package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// DefaultBeta is the failure probability β used for the automatic cover size
// k* when Request.Beta is 0 (mechanism.DefaultBeta).
const DefaultBeta = mechanism.DefaultBeta

// DefaultH is the order h of the iterated Bernstein polynomial used when the
// curator does not choose one: the command line's --h and the curator
// window's new projects both start from it (one default, docs/cli.md).
// h = 1 is the plain Bernstein polynomial of Algorithm 1 (Aldà and
// Rubinstein 2017, Section 4): its noise is never amplified, so it is the
// safe start; higher h trades noise amplification (up to (2^h−1)^ℓ) for a
// smaller approximation error, which the curator's tradeoff plot and
// bernstein choose compare.
const DefaultH = 1

// Request is everything the curator decided for one release. It is
// filled by the command line (bernstein release) or the curator window and
// validated once, by Prepare.
type Request struct {
	// Dataset is the private data, from ReadCSV (with CSVOptions.Columns
	// listing at least the features and the label, and KeepInvalid so that
	// every row is kept; the label may be read with CSVOptions.Classes).
	// Nil exactly when Aggregates is set.
	Dataset *dataset.Table
	// Aggregates, if set, is the aggregate table computed by the curator's
	// own engine that the release uses instead of Dataset (aggregates.go;
	// docs/aggregates.md): kde, naive-bayes and ridge only.
	Aggregates *Aggregates
	// Features are the feature columns, in axis order (ℓ = len(Features)).
	Features []string
	// Label is the label column; "" for unsupervised learners (KDE).
	Label string
	// Classes declares the two values of a binary label column (negative,
	// positive), public like the bounds; required exactly for learners with
	// a binary label. The synopsis's class_labels come from here only.
	Classes *dataset.Classes
	// ClassesFromData says the curator declared Classes after seeing the
	// values found in the label column (the curator's Data step offers
	// them only on request): that those values occur in the data is then
	// not covered by ε, and the synopsis records it
	// (output.class_labels_from_data). Typed classes leave it false.
	ClassesFromData bool
	// FillClass is the class that replaces any other or missing value of a
	// binary label column: one of Classes ("" means Classes.Negative).
	FillClass string
	// Fill holds the public fill value of used numeric columns (features
	// and a real label) replacing their missing or non-numeric values; a
	// column not listed is filled with the midpoint of its bounds. Every
	// row is kept (see FillRule).
	Fill map[string]float64
	// Bounds holds the public bounds of every used column: each feature and,
	// for real labels (regression), the label. Binary labels need none.
	Bounds map[string]dataset.Bounds
	// Units optionally names each column's unit (e.g. "years"); recorded in
	// the synopsis, empty unless given.
	Units map[string]string
	// BoundsFromData marks the columns whose bounds were (or, if missing
	// from Bounds, are to be) suggested from the data (SuggestBounds). That
	// leaks the data's minimum and maximum outside ε, so Prepare refuses it
	// unless AcknowledgedDataBounds is set; the synopsis records it.
	BoundsFromData map[string]bool
	// BoundsProvenance, if it names a column, says per end where its
	// bounds came from (typed, data, private); columns it does not name
	// follow BoundsFromData (both ends) or are typed. An end from the data
	// needs AcknowledgedDataBounds like BoundsFromData.
	BoundsProvenance map[string]synopsis.BoundsProvenance
	// AcknowledgedDataBounds is the curator's acceptance of that leak.
	AcknowledgedDataBounds bool
	// Learner and Params choose the target function F_D; Params are
	// validated by the learner's Spec (missing ones take their defaults).
	Learner learners.Kind
	Params  learners.Values
	// Privacy holds ε, δ, the noise kind, h and (unless KAuto) k. A single
	// k is used on every axis.
	Privacy mechanism.Params
	// KAuto chooses k by mechanism.ResolveK's rule (mechanism.AutoCoverSize:
	// the smallest predicted error for the learner's public stand-in, or the
	// paper's k* with failure probability Beta, DefaultBeta if 0, when the
	// learner states none), the same k on every axis.
	KAuto bool
	Beta  float64
	// Title and Note are the curator's public description of the release.
	Title, Note string
}

// Prepared is a validated, fitted release waiting for its noise: the exact
// lattice values of F_D are computed, nothing is spent or written yet.
//
// Exact holds noiseless values of F_D: they are private. They may feed
// previews inside this process (mechanism.Simulate) but must never be
// written, logged or shown as such; only (*Prepared).Release turns them
// into a publishable, noisy synopsis.
type Prepared struct {
	Request Request
	// Data is the dataset as the learner saw it (mapped to [0,1]^ℓ). For
	// a learner that reads the records in place (learners.ReadsSource:
	// the KDE) its features are Data.Source, read from the table, and
	// Data.X is nil; LearnerData returns the dataset with X for the
	// callers that read X.
	Data learners.Dataset
	// materialized holds LearnerData's copy of a Source dataset.
	materialized *materializedData
	// Fitted is the learner's result (oracle, sensitivity, output range).
	Fitted *learners.Fitted
	// Resolved are the learner parameters with defaults filled in.
	Resolved learners.Resolved
	// Spec is the learner's self-description.
	Spec learners.Spec
	// Lattice is the cover of Definition 9 for Params.K.
	Lattice mechanism.Lattice
	// Exact are F_D at the lattice points, in lattice order (private!).
	Exact []float64
	// Params are the validated release parameters (K filled in).
	Params mechanism.Params
	// Clipped counts, per used column, the values clipped to the public
	// bounds; Filled the missing or invalid values replaced by the
	// column's fill rule. Both are private, curator only: never written to
	// the synopsis, the ledger or standard output.
	Clipped map[string]int
	Filled  map[string]int
	// Fill are the public fill rules, as recorded in the synopsis.
	Fill []synopsis.FillRule
	// Domain holds the public bounds as recorded in the synopsis.
	Domain synopsis.DomainInfo
	// ClassLabels names the negative and positive class (classifiers).
	ClassLabels []string
	// Source records that the values came from an aggregate table (nil
	// for a release from the records); written into the synopsis.
	Source *synopsis.Source
	// identity identifies the records used, for the ledger (computed on
	// first use: previews never need it); see (*Prepared).Identity. Nil
	// for a release from aggregates, whose ledger dataset is declared
	// (aggregates).
	identity *lazyIdentity
	// aggregates is the aggregate table a release from aggregates was
	// read from, and what the ledger records of it.
	aggregates *aggregateOrigin
}

// RequestError is a release request that breaks a rule; Field names the
// part of the request (e.g. "features", "bounds[age]", "epsilon").
type RequestError struct {
	Field string
	Rule  string
	// Need, when set, is Rule in a few words for a list of choices (e.g.
	// "needs δ > 0"): the curator's Mechanism list marks a refused peer
	// with it before the curator picks it. Error does not print it.
	Need string
}

// needs sets e's Need and returns e.
func (e *RequestError) needs(words string) *RequestError {
	e.Need = words
	return e
}

func (e *RequestError) Error() string {
	if e.Field == "" {
		return e.Rule
	}
	return e.Field + ": " + e.Rule
}

func reqErr(field, format string, args ...any) *RequestError {
	return &RequestError{Field: field, Rule: fmt.Sprintf(format, args...)}
}

// Prepare validates the request, maps the data to [0,1]^ℓ by the public
// bounds, fits the learner, chooses k and evaluates F_D on the lattice
// (Algorithm 1, lines 1–2 of Aldà & Rubinstein 2017). Nothing is written
// and no budget is spent; call (*Prepared).Release to add noise and publish.
//
// Validation (errors name the field and rule): a dataset; 1 ≤ ℓ ≤
// min(learner MaxDim, mechanism.MaxDim) distinct feature columns; a label
// column exactly when the learner needs one, distinct from the features;
// finite public bounds lo < hi for every feature and for a real label;
// bounds from the data only with AcknowledgedDataBounds; learner parameters
// per its Spec; release parameters per mechanism.Params.Validate and the
// sensitivity per mechanism.ValidateSensitivity; a title and note per the
// synopsis rules (checkDescription), as *RequestError; declared classes
// exactly for a binary label (checkClasses) and fill values within the
// bounds (fillValue). Missing values (NaN, from CSVOptions.KeepInvalid) are
// replaced by the public fill rules, so no value of the data refuses a
// release read that way.
//
// progress (may be nil) reports the lattice evaluation; ctx cancels it.
func Prepare(ctx context.Context, req Request, progress func(done, total int)) (*Prepared, error) {
	if req.Aggregates != nil {
		return prepareAggregates(ctx, req, progress)
	}
	if req.Dataset == nil {
		return nil, reqErr("dataset", "no dataset given")
	}
	p, learner, pub, err := preparePublic(req)
	if err != nil {
		return nil, err
	}
	if err := CheckRowLimit(req.Learner, req.Dataset.Rows); err != nil {
		return nil, err
	}
	spec, dim := p.Spec, len(req.Features)
	used, bounds, prov := pub.used, pub.bounds, pub.prov

	// Replace missing values by the public fill rules, then map the
	// private data to the learner's domain.
	ds := req.Dataset
	fillValues, fill, filled, err := fillData(req, used, bounds)
	if err != nil {
		return nil, err
	}
	p.Fill, p.Filled = fill, filled
	if err := p.mapFeatures(ds, bounds[:dim], fillValues); err != nil {
		return nil, err
	}
	switch spec.Label {
	case learners.LabelReal:
		lb := bounds[dim]
		y, c, err := ds.RealLabelsFilled(req.Label, lb, fillValues)
		if err != nil {
			return nil, err
		}
		p.Clipped[req.Label] = c
		p.Data.Labels = y
		l := boundWithProvenance(req.Label, req.Units[req.Label], lb, prov[dim])
		p.Domain.Label = &l
	case learners.LabelBinary:
		fill, class, err := fillClass(req)
		if err != nil {
			return nil, err
		}
		lds, err := req.Dataset.WithClasses(req.Label, *req.Classes)
		if err != nil {
			return nil, err
		}
		y, n, err := lds.DeclaredLabels(req.Label, *req.Classes, fill)
		if err != nil {
			return nil, err
		}
		p.Filled[req.Label] = n
		p.Data.Labels = y
		p.ClassLabels = req.Classes.Labels()
		p.Fill = append(p.Fill, synopsis.FillRule{Column: req.Label, Class: class})
	}
	for _, b := range p.Domain.Features {
		p.Domain.BoundsFromData = p.Domain.BoundsFromData || b.FromData
	}
	if p.Domain.Label != nil {
		p.Domain.BoundsFromData = p.Domain.BoundsFromData || p.Domain.Label.FromData
	}

	p.identity = &lazyIdentity{req: req, fill: fillValues}

	// Fit F_D (the learner validates its parameters and the dataset). A
	// parameter given no value takes its data-independent default from n,
	// ℓ and ε (learners.Spec.PublicDefaults); the resolved values are what
	// the ledger and the synopsis record.
	values := p.Spec.PublicDefaults(req.Params, learners.Public{N: p.Data.N(), Dim: len(req.Features), Epsilon: req.Privacy.Epsilon})
	if err := p.fitAndEvaluate(ctx, values, func() (*learners.Fitted, error) { return learner.Fit(ctx, p.Data, values) }, progress); err != nil {
		return nil, err
	}
	return p, nil
}

// publicSettings are the public parts of a request that preparePublic
// resolved: the used numeric columns (features, then a real label), their
// bounds and the bounds' provenance.
type publicSettings struct {
	used   []string
	bounds []dataset.Bounds
	prov   []synopsis.BoundsProvenance
}

// preparePublic checks the public settings of a request, the same for
// every source of the data: learner, columns, title and note, declared
// classes and the bounds of the used numeric columns (data-derived ones
// only with the acknowledgement); it returns the Prepared with its
// request, learner spec and the features' domain set.
func preparePublic(req Request) (*Prepared, learners.Learner, publicSettings, error) {
	var pub publicSettings
	learner, err := learners.Lookup(req.Learner)
	if err != nil {
		return nil, nil, pub, reqErr("learner", "%v", err)
	}
	spec := learner.Spec()
	if err := checkColumns(req, spec); err != nil {
		return nil, nil, pub, err
	}
	if err := checkDescription(req.Title, req.Note); err != nil {
		return nil, nil, pub, err
	}
	if err := checkClasses(req, spec.Label == learners.LabelBinary); err != nil {
		return nil, nil, pub, err
	}
	p := &Prepared{Request: req, Spec: spec, Clipped: map[string]int{}}
	p.Request.Features = slices.Clone(req.Features)

	pub.used = slices.Clone(req.Features)
	if spec.Label == learners.LabelReal {
		pub.used = append(pub.used, req.Label)
	}
	for _, col := range pub.used {
		b, pv, err := columnBounds(req, col)
		if err != nil {
			return nil, nil, pub, err
		}
		pub.bounds, pub.prov = append(pub.bounds, b), append(pub.prov, pv)
	}
	for j, col := range req.Features {
		p.Domain.Features = append(p.Domain.Features, boundWithProvenance(col, req.Units[col], pub.bounds[j], pub.prov[j]))
	}
	return p, learner, pub, nil
}

// fitAndEvaluate fits F_D with fit (from the records or from aggregates),
// records the parameter values it fits with (values, resolved against the
// spec) as p.Resolved, checks its sensitivity, resolves k (mechanism.ResolveK), checks δ
// against n and the synopsis's public fields, and evaluates F_D on the
// lattice: the steps after the data are read, the same for every source.
func (p *Prepared) fitAndEvaluate(ctx context.Context, values learners.Values, fit func() (*learners.Fitted, error), progress func(done, total int)) error {
	req, spec, dim := p.Request, p.Spec, len(p.Request.Features)
	var err error
	p.Resolved, err = spec.Resolve(values, dim)
	if err != nil {
		return err
	}
	p.Fitted, err = fit()
	if err != nil {
		return err
	}
	if p.Fitted == nil || p.Fitted.Oracle == nil {
		return fmt.Errorf("learner %s returned no fitted function", spec.Kind)
	}
	if err := mechanism.ValidateSensitivity(p.Fitted.Sensitivity); err != nil {
		return fmt.Errorf("learner %s: %w", spec.Kind, err)
	}
	if p.Fitted.Output.Kind != "" {
		// The fit knows what its values mean when a parameter decides it
		// (logistic score or probability); everything downstream reads Spec.
		p.Spec.Output = p.Fitted.Output
	}

	// Release parameters, k auto or given (the one rule: mechanism.ResolveK).
	if n := len(req.Privacy.K); !req.KAuto && n != 1 && n != dim {
		return reqErr("k", "%d cover sizes given for %d features; give one, one per feature, or auto", n, dim)
	}
	params, err := mechanism.ResolveK(req.Privacy, dim, req.KAuto, req.Beta, p.Fitted.Sensitivity, p.Fitted.StandIn)
	if err != nil {
		return err
	}
	if err := CheckDeltaForN(params.Delta, p.Fitted.N); err != nil {
		return err
	}
	p.Params = params
	p.Lattice, err = mechanism.NewLattice(params.K)
	if err != nil {
		return err
	}
	// Title, note, domain and output are checked now (with a placeholder
	// app version), so that a mistake surfaces before the lattice work.
	if err := p.checkMeta(p.synopsisMeta("0", time.Now())); err != nil {
		return err
	}
	p.Exact, err = mechanism.EvaluateLattice(ctx, p.Fitted.Oracle, p.Lattice, progress)
	return err
}

// checkColumns validates the feature and label columns against the learner.
func checkColumns(req Request, spec learners.Spec) error {
	dim := len(req.Features)
	maxDim := min(spec.MaxDim, mechanism.MaxDim)
	if dim < spec.MinDim || dim > maxDim {
		return reqErr("features", "%d feature column(s) given; learner %s needs between %d and %d", dim, spec.Kind, spec.MinDim, maxDim)
	}
	for j, c := range req.Features {
		if c == "" {
			return reqErr("features", "feature %d has an empty column name", j+1)
		}
		if slices.Index(req.Features, c) != j {
			return reqErr("features", "column %q is selected twice", c)
		}
		if req.Dataset != nil && !slices.Contains(req.Dataset.Columns, c) {
			return reqErr("features", "no column %q in %s (columns: %s)", c, req.Dataset.Path, strings.Join(req.Dataset.Columns, ", "))
		}
	}
	switch spec.Label {
	case learners.LabelNone:
		if req.Label != "" {
			return reqErr("label", "learner %s is unsupervised and takes no label column (got %q)", spec.Kind, req.Label)
		}
	default:
		if req.Label == "" {
			return reqErr("label", "learner %s needs a %s label column", spec.Kind, spec.Label)
		}
		if slices.Contains(req.Features, req.Label) {
			return reqErr("label", "column %q cannot be both a feature and the label", req.Label)
		}
		if req.Dataset != nil && !slices.Contains(req.Dataset.Columns, req.Label) {
			return reqErr("label", "no column %q in %s (columns: %s)", req.Label, req.Dataset.Path, strings.Join(req.Dataset.Columns, ", "))
		}
	}
	return nil
}

// columnBounds returns the public bounds of a used column and their
// provenance per end, suggesting them from the data only when the request
// marks them so and acknowledges it.
func columnBounds(req Request, col string) (dataset.Bounds, synopsis.BoundsProvenance, error) {
	field := "bounds[" + col + "]"
	b, ok := req.Bounds[col]
	prov, err := provenanceOf(req, col)
	if err != nil {
		return dataset.Bounds{}, prov, err
	}
	if prov.HasData() {
		if !req.AcknowledgedDataBounds {
			return dataset.Bounds{}, prov, reqErr(field, "bounds taken from the data reveal its minimum and maximum, which ε does not cover; "+
				"give public bounds from domain knowledge, or acknowledge the leak (--acknowledge-data-bounds)")
		}
		if !ok && req.BoundsFromData[col] {
			if b, err = req.Dataset.SuggestBounds(col); err != nil {
				return dataset.Bounds{}, prov, err
			}
			ok = true
		}
	}
	if !ok {
		return dataset.Bounds{}, prov, reqErr(field, "no public bounds for column %q; every used column needs bounds LO:HI from domain knowledge", col)
	}
	if err := b.Validate(); err != nil {
		return dataset.Bounds{}, prov, reqErr(field, "%v", err)
	}
	return b, prov, nil
}

// Options says where and how a prepared release is published.
type Options struct {
	// Out is the synopsis file to write.
	Out string
	// Overwrite allows replacing an existing Out (--force).
	Overwrite bool
	// AllowOverBudget lets a release exceed the dataset's total budget; the
	// ledger entry records that it did.
	AllowOverBudget bool
	// Ledger records the spend before anything is published. Required.
	Ledger *ledger.Ledger
	// Signer signs the synopsis (keys.LoadSigner). Required.
	Signer ssh.Signer
	// Protected are further files Out must never be, such as the signing
	// key (KeyProtected); see releaseProtected for the ones always added.
	Protected []ProtectedFile
	// AppVersion is written into the synopsis.
	AppVersion string
	// Now is the clock for the ledger entry and the synopsis (time.Now if
	// nil).
	Now func() time.Time
	// DifferentPopulation is the curator's declaration that the dataset is
	// a different population from the near-duplicate ledger datasets found
	// (IdentityFinding): they are not charged, and the declaration is
	// recorded in the ledger entry.
	DifferentPopulation bool
	// Mechanism is the synopsis kind to release (Mechanisms; "" means
	// synopsis.MechanismBernstein): release_peers.go.
	Mechanism string
	// NoiseProgress, if not nil, is called while the secure noise is drawn
	// (about 10 µs per lattice value) with the number of values perturbed
	// so far and the total, from worker goroutines.
	NoiseProgress func(done, total int)
}

// Result reports a published release.
type Result struct {
	// Path is the synopsis file written.
	Path string
	// Synopsis is its content (noisy values and public metadata only).
	Synopsis *synopsis.File
	// Spent is this release's ε; Total the dataset's ε spent so far in the
	// ledger, this release included; Budget the dataset's total budget.
	Spent, Total, Budget float64
	// OverBudget reports that the release exceeded the budget (allowed by
	// Options.AllowOverBudget).
	OverBudget bool
	// Entry is the ledger entry that records this release's spend (on the
	// dataset whose Total and Budget are reported); Entries are all entries
	// it recorded, one per ledger dataset charged (Identity.Charges).
	Entry   ledger.Entry
	Entries []ledger.Entry
	// Identity says which ledger datasets the records were matched to
	// (private: for the curator only).
	Identity *ledger.IdentityFinding
}

// writeSynopsisFile is the synopsis writer used by Release; fault-injection
// tests replace it to simulate a crash after the ledger entry.
var writeSynopsisFile = synopsis.Write

// Release adds secure noise to the prepared lattice values and publishes
// the signed synopsis. The order of its steps is the privacy contract:
//
//  1. check that opt.Out can be written (it is not a protected file such as
//     the dataset, the ledger or a key — CheckOutputPath; the write's exact
//     steps work in its directory; it does not exist unless
//     opt.Overwrite), so a release is not spent for a file that cannot or
//     must not be created;
//  2. reserve ε and δ in the ledger (opt.Ledger.Reserve): the budget check
//     and the entry, synced to disk; a refusal returns the ledger's
//     *BudgetError and nothing is spent;
//  3. draw the noise: mechanism.SanitizeValues (Algorithm 1, lines 3–5,
//     secure noise only), or for a peer kind (opt.Mechanism, checked against
//     its theorem before step 2) its plan's secure draws (release_peers.go);
//  4. build the synopsis.File (noisy values and public metadata only);
//  5. write it atomically and signed (synopsis.Write).
//
// A failure or crash after step 2 leaves the spend recorded and no
// synopsis: the ledger never under-counts (sequential composition over all
// recorded entries). Each call is a new release and spends again.
func (p *Prepared) Release(ctx context.Context, opt Options) (*Result, error) {
	if p == nil || p.Fitted == nil || p.Exact == nil {
		return nil, errors.New("release: nothing prepared; call Prepare first")
	}
	if opt.Out == "" {
		return nil, reqErr("out", "no output file given")
	}
	if opt.Ledger == nil {
		return nil, reqErr("ledger", "no privacy-budget ledger given; every release must be recorded")
	}
	if opt.Signer == nil {
		return nil, reqErr("key", "no signing key given")
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	if err := CheckOutputPath(opt.Out, releaseProtected(p, opt)); err != nil {
		return nil, err
	}
	if err := checkWritable(opt.Out, opt.Overwrite); err != nil {
		return nil, err
	}
	created := now()
	meta := p.synopsisMeta(opt.AppVersion, created)
	if err := p.checkMeta(meta); err != nil {
		return nil, err
	}
	plan, err := p.planPeer(opt.Mechanism)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	eps := p.Params.Epsilon
	params := make(map[string][]float64, len(p.Resolved)+2)
	for name, v := range p.Resolved {
		params[name] = slices.Clone(v)
	}
	params["h"] = []float64{float64(p.Params.H)}
	params["k"] = intsToFloats(p.Params.K)
	charge := ledger.Entry{
		Time:    created,
		Kind:    ledger.KindRelease,
		Epsilon: eps,
		Delta:   p.Params.Delta,
		Learner: string(p.Spec.Kind),
		Params:  params,
		Noise:   string(p.Params.Noise),
		Output:  absPath(opt.Out),
	}
	if plan != nil {
		plan.ledgerEntry(&charge)
	}
	entries, found, err := p.reserve(opt, charge)
	if err != nil {
		return nil, err
	}
	entry := entries[0]

	// From here on the spend is recorded, whatever happens.
	// Cancelling ctx now stops the noise but not the spend: the ledger
	// already records it (over-counting is the safe side).
	file, err := p.noisyFile(ctx, plan, meta, opt.NoiseProgress)
	if err != nil {
		return nil, err
	}
	if err := writeSynopsisFile(opt.Out, file, opt.Signer, opt.Overwrite); err != nil {
		return nil, fmt.Errorf("writing the synopsis (the ledger keeps the spend): %w", err)
	}
	total, _ := opt.Ledger.Spent(entry.DatasetHash)
	over := false
	for _, e := range entries {
		over = over || e.OverBudget
	}
	return &Result{
		Path:       opt.Out,
		Synopsis:   file,
		Spent:      eps,
		Total:      total,
		Budget:     opt.Ledger.Budget(entry.DatasetHash),
		OverBudget: over,
		Entry:      entry,
		Entries:    entries,
		Identity:   found,
	}, nil
}

// noisyFile draws the release noise (step 3 of Release: the Bernstein
// lattice's, or the peer kind's plan) and builds the synopsis (step 4).
func (p *Prepared) noisyFile(ctx context.Context, plan *peerPlan, meta synopsis.Meta, progress func(done, total int)) (*synopsis.File, error) {
	if plan != nil {
		rel, err := plan.draw(ctx)
		if err != nil {
			return nil, fmt.Errorf("adding noise (the ledger keeps the spend): %w", err)
		}
		file, err := synopsis.NewPeerFile(rel, meta)
		if err != nil {
			return nil, fmt.Errorf("building the synopsis (the ledger keeps the spend): %w", err)
		}
		return file, nil
	}
	rel, err := mechanism.SanitizeValuesContext(ctx, p.Exact, p.Fitted.NoiseSensitivity(p.Params.K, p.Params.Noise), p.Params, progress)
	if err != nil {
		return nil, fmt.Errorf("adding noise (the ledger keeps the spend): %w", err)
	}
	file, err := synopsis.NewFile(rel, meta)
	if err != nil {
		return nil, fmt.Errorf("building the synopsis (the ledger keeps the spend): %w", err)
	}
	return file, nil
}

// synopsisMeta is the public description written next to the noisy
// values.
func (p *Prepared) synopsisMeta(appVersion string, created time.Time) synopsis.Meta {
	return synopsis.Meta{
		AppVersion:  appVersion,
		Created:     created,
		Title:       p.Request.Title,
		Note:        p.Request.Note,
		Learner:     p.Spec.Kind,
		Params:      p.Resolved,
		N:           p.Fitted.N,
		Domain:      p.Domain,
		Output:      p.Spec.Output,
		OutputRange: p.Fitted.OutputRange,
		ClassLabels: p.ClassLabels,
		// Only with class labels (a label-free learner has none).
		ClassLabelsFromData: p.Request.ClassesFromData && len(p.ClassLabels) > 0,
		Fill:                p.Fill,
		Source:              p.Source,
	}
}

// checkMeta validates every public field of the synopsis-to-be before
// anything is spent, by building a synopsis with the same metadata around a
// placeholder release: Laplace noise, k = 1 on every axis and all-zero
// values (no data, no noise; the real mechanism parameters were validated
// by Params.Validate). It is never written.
func (p *Prepared) checkMeta(meta synopsis.Meta) error {
	params := mechanism.Params{Epsilon: p.Params.Epsilon, Noise: mechanism.NoiseLaplace,
		K: slices.Repeat([]int{1}, len(p.Params.K)), H: p.Params.H}
	scale, err := mechanism.NoiseScale(p.Fitted.Sensitivity, params)
	if err != nil {
		return err
	}
	zero, err := mechanism.RestoreSynopsis(params.K, params.H, make([]float64, 1<<len(params.K)), params.Noise,
		scale, params.Epsilon, params.Delta, p.Fitted.Sensitivity)
	if err != nil {
		return err
	}
	if _, err := synopsis.NewFile(zero, meta); err != nil {
		return err
	}
	return nil
}

// checkWritable fails unless path can be created: its directory exists and
// the exact steps of the write work there (fileio.ProbeWritePath), and path does
// not exist (unless overwrite, and then it must be a regular file).
func checkWritable(path string, overwrite bool) error {
	if err := fileio.CheckReplaceable(path); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		if !overwrite {
			return &fileio.ExistsError{Path: path}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return fileio.ProbeWritePath(path, overwrite)
}

func intsToFloats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
