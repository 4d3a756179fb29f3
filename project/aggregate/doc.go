// Package aggregate is the path for data larger than a laptop (issue 20):
// from public inputs only — the learner, the feature and label columns,
// their public bounds, the declared fill values and classes, and the
// number of fine bins B — it writes the one SQL query that reduces the
// records to the small aggregate a release needs (Query, in the dialects
// DuckDB, PostgreSQL and Spark SQL), reads the table that query returns
// (ReadResultCSV) and turns it into the learner's oracle (Result.Fit).
//
// Contract:
//
//   - The query depends on public inputs only (Spec: names, bounds, fill
//     values, classes, B; never on data). It applies the in-memory path's
//     rules inside the engine: a value is a number only in the number
//     syntax of dataset.ParseNumber (plain decimal, finite), anything else
//     (and NULL) is replaced by the column's declared fill value, values
//     outside the public bounds are clipped, a class label that is neither
//     declared class gets the declared fill class, and no row is dropped.
//     docs/aggregates.md lists where an engine's reading of a value can
//     still differ from the in-memory parser.
//   - Identifiers come from the curator's file: they are always quoted
//     (QuoteIdent) and strings always written as literals (quoteString), so
//     no column name can change the query's shape. Names with control
//     characters are refused.
//   - n is public and declared (Spec.N): the counts in an aggregate table
//     must add up to it, or Fit refuses; the table never defines n.
//   - KDE is binned: each record is replaced by the centre of its fine bin
//     (B per axis); the sensitivity is the KDE's, and the binning bias is at
//     most KDEBinningBound (docs/sensitivity.md, "Binned KDE from
//     aggregates"); naive Bayes likewise from per-class, per-feature bin
//     counts. Ridge regression uses the exact sufficient statistics
//     (sums written as exact decimals by the engine) and gives the in-memory
//     fit.
//   - Logistic regression has no one-pass aggregate: LogisticQuery writes
//     one Newton pass at given weights, FitLogistic drives the passes
//     through any engine (learners.FitLogisticAggregates), and Query and
//     ReadResultCSV refuse logistic with that reason.
//
// Package aggregate imports project/dataset (bounds, classes, the number
// syntax, the CSV reader), learners and mechanism.
package aggregate
