package cli

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// datasetFlags are the flags that say which private data a command fits
// which learner to, with which public bounds and which release privacy
// parameters: shared by 'release' and 'choose', which must read them
// identically (choose picks settings for a later release of the same
// request).
type datasetFlags struct {
	data, label, learner, noise    string
	features                       flagvalue.List
	bounds                         flagvalue.Bounds
	params                         flagvalue.Params
	epsilon, delta, positive, beta flagvalue.Float
	dropInvalid, ackDataBounds     bool
	classes                        flagvalue.Classes
	fill                           flagvalue.Fill
	fillClass                      string
	// aggregatesSource: the release reads an aggregate table (release
	// --aggregates), not --data; request leaves the Dataset nil.
	aggregatesSource bool
	// records, if set (release --data), makes request choose the engine
	// of the records file (release.SetSource: in memory or the embedded
	// DuckDB) instead of reading it; engine is the one chosen.
	records *release.RecordsFile
	engine  release.Engine
	layout  importFlags // --header-row, --delimiter, --decimal-comma, --comment
}

// register defines the flags on fs; epsilonUsage says what --epsilon means
// for the command (spent now, or the ε of a later release).
func (f *datasetFlags) register(fs *flag.FlagSet, epsilonUsage string) {
	f.noise = string(mechanism.NoiseLaplace)
	fs.StringVar(&f.data, "data", "", "the private dataset `FILE.csv`: a CSV file with a header row (required)")
	fs.Var(&f.features, "features", "feature columns `A,B`, comma-separated, in axis order; 1 to 6 (required)")
	fs.StringVar(&f.label, "label", "", "label `COLUMN` (regression and classification learners)")
	fs.Var(&f.classes, "classes", "the two values `NEG,POS` of a binary label, declared (public, recorded in the synopsis);\nthe positive class second; any other value in the column is invalid and filled (--fill-class)")
	fs.StringVar(&f.fillClass, "fill-class", "", "declared class `CLASS` replacing any other or missing label value (default: the negative class)")
	fs.Var(&f.fill, "fill", "public fill values `A=V,B=V` replacing missing or non-numeric values of features and a real label,\nwithin the bounds (default: the midpoint of the bounds); repeatable")
	fs.Var(&f.positive, "positive", "removed: use --classes NEG,POS (refused with a message)")
	fs.Var(&f.bounds, "bounds", "public bounds `A=LO:HI,B=LO:HI` of every feature and of a real label (required);\nCOL=data takes them from the data (needs --acknowledge-data-bounds); repeatable")
	fs.BoolVar(&f.ackDataBounds, "acknowledge-data-bounds", false, "accept that COL=data bounds reveal the data's minimum and maximum outside ε")
	fs.StringVar(&f.learner, "learner", "", "the learner `KIND`: "+strings.Join(learnerKinds(), ", ")+" (required)")
	fs.Var(&f.params, "param", "learner parameter `NAME=V` or NAME=V1,V2,… (per feature); repeatable; defaults for the rest")
	fs.Var(&f.epsilon, "epsilon", epsilonUsage)
	fs.Var(&f.delta, "delta", "privacy parameter δ = `D` in (0,1), for --noise laplace-approx and gaussian")
	fs.StringVar(&f.noise, "noise", f.noise, "noise `KIND`: laplace (pure ε-DP, Algorithm 1), laplace-approx (Section 4.2, needs --delta),\ngaussian (needs --delta)")
	fs.Var(&f.beta, "beta", "failure probability `B` in (0,1) of the paper's k* for --k auto, used only for a learner with no public stand-in (default 0.05)")
	f.layout.register(fs, "--data")
	fs.BoolVar(&f.dropInvalid, "drop-invalid", false, "removed: rows are never dropped (n is public); see --fill (refused with a message)")
}

// checkRequired reports the first missing required flag.
func (f *datasetFlags) checkRequired() error {
	switch {
	case f.data == "" && !f.aggregatesSource:
		return usagef("--data FILE.csv is required")
	case len(f.features) == 0:
		return usagef("--features is required")
	case f.learner == "":
		return usagef("--learner is required (one of %s)", strings.Join(learnerKinds(), ", "))
	case !f.epsilon.Given:
		return usagef("--epsilon is required")
	}
	return nil
}

// columns returns the used columns: the features, then the label.
func (f *datasetFlags) columns() []string {
	cols := slices.Clone([]string(f.features))
	if f.label != "" && !slices.Contains(cols, f.label) {
		cols = append(cols, f.label)
	}
	return cols
}

// notAColumn is the usage error of a column flag (--bounds, --fill,
// --units) naming a column that is neither a feature nor the label: it
// lists those, since the misspelt name is as often in --features as in
// the flag itself.
func (f *datasetFlags) notAColumn(flag, name string) error {
	quoted := make([]string, 0, len(f.features))
	for _, c := range f.features {
		quoted = append(quoted, strconv.Quote(c))
	}
	label := ""
	if f.label != "" {
		label = fmt.Sprintf(", the label %q", f.label)
	}
	return usagef("%s names column %q, which is neither a feature nor the label (the features are %s%s): is one of these names misspelt?",
		flag, name, strings.Join(quoted, ", "), label)
}

// request checks the flags against each other, reads the dataset (its
// used columns only) and returns the release request with the dataset,
// columns, bounds, learner and parameters, positive class, ε, δ, noise
// kind, β, declared classes and fill rules set; the caller sets K, H and
// the rest. Every data row is kept: invalid values are filled (public n).
func (f *datasetFlags) request(e *env) (release.Request, learners.Spec, error) {
	if err := f.checkRequired(); err != nil {
		return release.Request{}, learners.Spec{}, err
	}
	learner, err := learners.Lookup(learners.Kind(f.learner))
	if err != nil {
		return release.Request{}, learners.Spec{}, usagef("--learner %s: %v", f.learner, err)
	}
	spec := learner.Spec()
	noise := mechanism.NoiseKind(f.noise)
	switch noise {
	case mechanism.NoiseLaplace:
		if f.delta.Given && f.delta.Value != 0 {
			return release.Request{}, spec, usagef("--delta is only for --noise laplace-approx or gaussian; laplace is pure ε-DP")
		}
	case mechanism.NoiseLaplaceApprox, mechanism.NoiseGaussian:
		if !f.delta.Given {
			return release.Request{}, spec, usagef("--noise %s needs --delta D in (0,1)", noise)
		}
	default:
		return release.Request{}, spec, usagef("--noise %q: must be laplace, laplace-approx or gaussian", f.noise)
	}
	cols := f.columns()
	for _, name := range f.bounds.Order {
		if !slices.Contains(cols, name) {
			return release.Request{}, spec, f.notAColumn("--bounds", name)
		}
	}
	binary := spec.Label == learners.LabelBinary
	if err := f.checkFillFlags(binary); err != nil {
		return release.Request{}, spec, err
	}
	layout, err := f.layout.options()
	if err != nil {
		return release.Request{}, spec, err
	}
	if f.aggregatesSource && layout != (dataset.ImportOptions{HeaderRow: 1}) {
		return release.Request{}, spec, usagef("--header-row, --delimiter, --decimal-comma and --comment apply to --data only, not to --aggregates")
	}
	opts := dataset.CSVOptions{Columns: cols, KeepInvalid: true, Import: layout}
	if binary && f.label != "" {
		opts.Classes = map[string]dataset.Classes{f.label: f.classes.Value}
	}
	var ds *dataset.Table
	if !f.aggregatesSource && f.records == nil {
		if ds, err = dataset.ReadCSV(f.data, opts); err != nil {
			return release.Request{}, spec, withHeaderRowFlag(err)
		}
	}
	req := release.Request{
		Dataset:                ds,
		Features:               f.features,
		Label:                  f.label,
		Bounds:                 map[string]dataset.Bounds{},
		BoundsFromData:         map[string]bool{},
		AcknowledgedDataBounds: f.ackDataBounds,
		Learner:                spec.Kind,
		Params:                 learners.Values(f.params.Values),
		Privacy:                mechanism.Params{Epsilon: f.epsilon.Value, Delta: f.delta.Value, Noise: noise},
		Beta:                   f.beta.Value,
		Fill:                   f.fill.Values,
		FillClass:              f.fillClass,
	}
	if binary && f.label != "" {
		c := f.classes.Value
		req.Classes = &c
	}
	for name, s := range f.bounds.Specs {
		if s.FromData {
			// Prepare refuses this without --acknowledge-data-bounds.
			req.BoundsFromData[name] = true
			continue
		}
		req.Bounds[name] = dataset.Bounds{Lo: s.Lo, Hi: s.Hi}
	}
	if f.records != nil {
		rf := *f.records
		rf.Path, rf.CSV = f.data, dataset.CSVOptions{Import: layout}
		if f.engine, err = release.SetSource(&req, rf); err != nil {
			return release.Request{}, spec, withHeaderRowFlag(err)
		}
	}
	return req, spec, nil
}
