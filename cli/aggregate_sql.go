package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// aggregateLearners are the learners with an aggregate query.
var aggregateLearners = []learners.Kind{learners.KindKDE, learners.KindNaiveBayes, learners.KindRidge}

func aggregateSQLCommand() *command {
	return &command{
		Name:    "aggregate-sql",
		Args:    "--learner KIND --features A,B --bounds A=LO:HI,… --dialect duckdb|postgres|spark [--label COL] [--classes NEG,POS] [--fill A=V] [--fill-class CLASS] [--bins B] [--table NAME]",
		Summary: "Print the aggregate SQL query of a learner, to run where the data live (public inputs only).",
		Details: `Writes to standard output the one SQL query that reduces the records to the
small aggregate a release of kde, naive-bayes or ridge needs (docs/aggregates.md):
per fine bin cell the number of records (kde), per class and feature the 1-D
bin counts (naive-bayes), or the sums of the features' products (ridge). The
public bounds, fill values, declared classes and the bins are written into
it; it reads nothing but the flags, so it can be run anywhere. Run it on the
curator's own engine (DuckDB, PostgreSQL or Spark SQL) and keep its result
table as a CSV file with a header row. Column and table names are always
quoted, whatever they hold.`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var learner, label, dialect, table, fillClass string
			var features flagvalue.List
			var bounds flagvalue.Bounds
			var fill flagvalue.Fill
			var classes flagvalue.Classes
			bins := aggregate.DefaultBins
			kinds := make([]string, len(aggregateLearners))
			for i, k := range aggregateLearners {
				kinds[i] = string(k)
			}
			fs.StringVar(&learner, "learner", "", "the learner `KIND`: "+strings.Join(kinds, ", ")+" (required)")
			fs.Var(&features, "features", "feature columns `A,B`, comma-separated, in axis order (required)")
			fs.StringVar(&label, "label", "", "label `COLUMN` (naive-bayes: binary with --classes; ridge: real with bounds)")
			fs.Var(&bounds, "bounds", "public bounds `A=LO:HI,B=LO:HI` of every feature and of a real label (required); repeatable")
			fs.Var(&fill, "fill", "public fill values `A=V,B=V` replacing missing or non-numeric values, within the bounds\n(default: the midpoint of the bounds); repeatable")
			fs.Var(&classes, "classes", "the two declared values `NEG,POS` of a binary label, the positive class second")
			fs.StringVar(&fillClass, "fill-class", "", "declared class `CLASS` replacing any other or missing label value (default: the negative class)")
			flagvalue.WholeVar(fs, &bins, "bins", bins, "fine bins per axis `B` for kde and naive-bayes (public)")
			fs.StringVar(&dialect, "dialect", "", "SQL `DIALECT` of the engine that runs the query: duckdb, postgres or spark (required)")
			fs.StringVar(&table, "table", "data", "the `NAME` of the table holding the records (one identifier, quoted)")
			return func(context.Context, []string) error {
				switch {
				case learner == "":
					return usagef("--learner is required (one of %s)", strings.Join(kinds, ", "))
				case len(features) == 0:
					return usagef("--features is required")
				case dialect == "":
					return usagef("--dialect is required (duckdb, postgres or spark)")
				}
				d, err := aggregate.ParseDialect(dialect)
				if err != nil {
					return usagef("--dialect %q: want duckdb, postgres or spark", dialect)
				}
				spec, err := aggregateSpec(learners.Kind(learner), features, label, bounds, fill, classes, fillClass, bins)
				if err != nil {
					return err
				}
				q, err := aggregate.Query(spec, d, aggregate.Table(table))
				if err != nil {
					return usagef("%v", err)
				}
				_, err = fmt.Fprint(e.Stdout, q)
				return err
			}
		},
	}
}

// aggregateSpec turns the flags into an aggregate.Spec: the bounds of
// every used numeric column (never from the data: the query cannot see
// it), the fill values (default the midpoint of the bounds, as for a
// release), the declared classes and fill class of a binary label.
func aggregateSpec(kind learners.Kind, features []string, label string, bounds flagvalue.Bounds, fill flagvalue.Fill,
	classes flagvalue.Classes, fillClass string, bins int) (aggregate.Spec, error) {
	if !slices.Contains(aggregateLearners, kind) {
		return aggregate.Spec{}, usagef("--learner %q has no aggregate query (kde, naive-bayes and ridge have)", kind)
	}
	l, err := learners.Lookup(kind)
	if err != nil {
		return aggregate.Spec{}, usagef("%v", err)
	}
	binary := l.Spec().Label == learners.LabelBinary
	spec := aggregate.Spec{Learner: kind, Bins: bins}
	numeric := append([]string(nil), features...)
	if label != "" && !binary {
		numeric = append(numeric, label)
	}
	for _, name := range bounds.Order {
		if !slices.Contains(numeric, name) {
			return spec, usagef("--bounds names column %q, which is neither a feature nor a real label", name)
		}
	}
	for _, name := range fill.Order {
		if !slices.Contains(numeric, name) {
			return spec, usagef("--fill names column %q, which is neither a feature nor a real label", name)
		}
	}
	column := func(name string) (aggregate.Feature, error) {
		b, ok := bounds.Specs[name]
		switch {
		case !ok:
			return aggregate.Feature{}, usagef("--bounds %s=LO:HI is required (public bounds of every used numeric column)", name)
		case b.FromData:
			return aggregate.Feature{}, usagef("--bounds %s=data: the query cannot read the data; give public bounds LO:HI", name)
		}
		f := aggregate.Feature{Name: name}
		f.Bounds.Lo, f.Bounds.Hi = b.Lo, b.Hi
		f.Fill = (b.Lo + b.Hi) / 2
		if v, ok := fill.Values[name]; ok {
			f.Fill = v
		}
		return f, nil
	}
	for _, name := range features {
		f, err := column(name)
		if err != nil {
			return spec, err
		}
		spec.Features = append(spec.Features, f)
	}
	switch {
	case binary && label != "":
		if !classes.Given {
			return spec, usagef("--label %s of naive-bayes needs --classes NEG,POS", label)
		}
		c := classes.Value
		lab := &aggregate.Label{Name: label, Classes: &c, FillClass: -1}
		if fillClass != "" {
			switch c.Code(fillClass) {
			case -1:
			case 1:
				lab.FillClass = 1
			default:
				return spec, usagef("--fill-class %q is neither declared class (%s)", fillClass, c)
			}
		}
		spec.Label = lab
	case label != "":
		f, err := column(label)
		if err != nil {
			return spec, err
		}
		spec.Label = &aggregate.Label{Name: label, Bounds: f.Bounds, Fill: f.Fill}
	}
	switch {
	case !binary && classes.Given:
		return spec, usagef("--classes applies only to learners with a binary label")
	case !binary && fillClass != "":
		return spec, usagef("--fill-class applies only to learners with a binary label")
	}
	if err := spec.Validate(); err != nil {
		return spec, usagef("%v", err)
	}
	return spec, nil
}
