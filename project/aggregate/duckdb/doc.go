// Package duckdb runs the aggregate query of project/aggregate on an
// embedded DuckDB (github.com/duckdb/duckdb-go/v2, pinned with its bundled
// library): the default engine for data larger than a laptop (issue 20).
//
// Contract:
//
//   - Run reads a CSV file, a Parquet file or a folder of Parquet files
//     (Open decides which from the path) with DuckDB, out of core and on
//     every core, under a memory limit (Options.MemoryLimit, default
//     DefaultMemoryLimit) with spilling to a private temporary folder that
//     is removed afterwards. No record is loaded into Go memory: DuckDB
//     writes the aggregate table (COPY … TO a temporary CSV file) and it
//     is read back by aggregate.ReadResultCSV, the same reader as for a
//     table computed elsewhere.
//   - The query is aggregate.Query's DuckDB text, with the source's DOUBLE
//     and integer columns read as numbers (NumericColumns: the same values).
//     FitLogistic runs logistic regression's Newton passes
//     (aggregate.LogisticQuery) the same way.
//   - It needs cgo (gcc and g++ for the bundled C++ library; the Makefile's
//     deps install them). project/release imports it from a file built
//     on Linux with cgo only (engine_duckdb.go); elsewhere a release that
//     needs it is refused naming the platform, so the Windows
//     cross-build of make dist is unaffected (docs/aggregates.md).
//   - Count counts the records of a source (aggregate.CountQuery), the
//     public n of a records file whose n the curator did not declare.
//
// Package duckdb imports project/aggregate and learners (FitLogistic's
// parameter values and fitted oracle).
package duckdb
