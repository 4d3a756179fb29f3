package cli

import (
	"flag"
	"slices"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// aggregateFlags are release's flags for a release from an aggregate
// table (docs/aggregates.md, docs/cli.md).
type aggregateFlags struct {
	path, dialect, table, datasetID string
	n, bins                         int
	csvBytes                        int64
}

func (a *aggregateFlags) register(fs *flag.FlagSet) {
	a.bins = aggregate.DefaultBins
	fs.StringVar(&a.path, "aggregates", "", "release from the aggregate table `FILE` (.csv, or .parquet where the build has the embedded DuckDB)\nthat the query of 'bernstein aggregate-sql' returned (kde, naive-bayes, ridge), instead of --data;\nneeds --n, --dialect and --dataset-id")
	flagvalue.WholeVar(fs, &a.n, "n", 0, "the public number of records `N`, declared: with --aggregates the table's counts must add up to it (required);\nwith --data the file must hold exactly N records (optional)")
	fs.StringVar(&a.dialect, "dialect", "", "with --aggregates: the SQL `DIALECT` of the engine that computed the table: duckdb, postgres or spark")
	flagvalue.WholeVar(fs, &a.bins, "bins", a.bins, "the fine bins per axis `B` the query was written with (kde, naive-bayes), with --aggregates\nor when --data goes through the embedded DuckDB")
	fs.Int64Var(&a.csvBytes, "duckdb-csv-bytes", release.DefaultDuckDBCSVBytes, "with --data: a CSV file of at least `BYTES` goes through the embedded DuckDB\nwhen the learner has an aggregate path (kde, naive-bayes, ridge, logistic); Parquet always does")
	fs.StringVar(&a.table, "table", release.DefaultAggregateTable, "with --aggregates: the table `NAME` the query was written for (its hash, recorded in the synopsis, covers it)")
	fs.StringVar(&a.datasetID, "dataset-id", "", "the ledger dataset to charge, `ID`, with --aggregates (required) or when --data goes through the embedded DuckDB\n(default: the file's SHA-256): the hash (≥ 12 hex digits) of a dataset the ledger knows,\nor a name of your choosing (docs/ledger.md, \"Releases from aggregates\")")
}

// given reports whether --aggregates was given.
func (a *aggregateFlags) given() bool { return a.path != "" }

// check refuses the aggregate flags without --aggregates, and the flags a
// release from aggregates cannot use (they need the records).
func (a *aggregateFlags) check(fs *flag.FlagSet, f *releaseFlags) error {
	var set []string
	fs.Visit(func(fl *flag.Flag) { set = append(set, fl.Name) })
	if !a.given() {
		for _, name := range []string{"dialect", "table"} {
			if slices.Contains(set, name) {
				return usagef("--%s applies only to --aggregates FILE", name)
			}
		}
		rf := a.records()
		f.records = &rf
		return nil
	}
	switch {
	case f.data != "":
		return usagef("give --data FILE.csv or --aggregates FILE, not both")
	case a.n < 1:
		return usagef("--aggregates needs --n N, the public number of records the table counts (at least 1)")
	case slices.Contains(set, "duckdb-csv-bytes"):
		return usagef("--duckdb-csv-bytes applies to --data only, not to --aggregates")
	case a.dialect == "":
		return usagef("--aggregates needs --dialect (duckdb, postgres or spark): the engine that computed the table")
	case a.datasetID == "":
		return usagef("--aggregates needs --dataset-id: the ledger dataset to charge (the hash of a dataset the ledger knows, or a name); the ledger cannot recognise records it never reads")
	case f.private.used() || len(f.private.estimated.Order) > 0:
		return usagef("--bounds-private and --bounds-estimated need the records; a release from aggregates takes typed public bounds")
	case f.differentPopulation:
		return usagef("--different-population applies to a release from the records; a release from aggregates is charged to its --dataset-id")
	}
	d, err := aggregate.ParseDialect(a.dialect)
	if err != nil {
		return usagef("--dialect %q: want duckdb, postgres or spark", a.dialect)
	}
	a.dialect = string(d)
	f.aggregatesSource = true
	return nil
}

// source returns the release's Aggregates.
func (a *aggregateFlags) source() *release.Aggregates {
	return &release.Aggregates{Path: a.path, Dialect: aggregate.Dialect(a.dialect), Bins: a.bins,
		Table: a.table, N: a.n, Dataset: a.datasetID}
}

// records returns what --data's records file is given with: the declared
// n and ledger dataset, B and the DuckDB size threshold (release.SetSource
// chooses the engine).
func (a *aggregateFlags) records() release.RecordsFile {
	return release.RecordsFile{N: a.n, Dataset: a.datasetID, Bins: a.bins, Threshold: a.csvBytes}
}
