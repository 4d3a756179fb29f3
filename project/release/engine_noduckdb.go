//go:build !(linux && cgo)

package release

import (
	"context"
	"runtime"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// EmbeddedEngineAvailable reports whether this build has the embedded
// DuckDB (Linux with cgo).
const EmbeddedEngineAvailable = false

// errNoEmbedded names the platform that has no embedded DuckDB.
func errNoEmbedded(info SourceInfo) error {
	return reqErr("data", "%s needs the embedded DuckDB engine, which this build for %s/%s does not have (Linux with cgo only, docs/aggregates.md); "+
		"run the query of bernstein aggregate-sql on your own engine and release from its table (--aggregates)", info.Path, runtime.GOOS, runtime.GOARCH)
}

func readResultParquet(_ context.Context, path string, _ aggregate.Spec, _ aggregate.Dialect) (*aggregate.Result, error) {
	return nil, reqErr("aggregates", "%s: a result table in Parquet needs the embedded DuckDB engine, which this build for %s/%s does not have "+
		"(Linux with cgo only, docs/aggregates.md); save the query's result as CSV instead", path, runtime.GOOS, runtime.GOARCH)
}

func countEmbedded(_ context.Context, info SourceInfo) (int, error) { return 0, errNoEmbedded(info) }

func runEmbeddedQuery(_ context.Context, _ aggregate.Spec, info SourceInfo) (*aggregate.Result, error) {
	return nil, errNoEmbedded(info)
}

func fitEmbeddedLogistic(_ context.Context, _ aggregate.Spec, info SourceInfo, _ learners.Values) (*learners.Fitted, error) {
	return nil, errNoEmbedded(info)
}

// CountRecords needs the embedded DuckDB: an error naming the platform.
func CountRecords(_ context.Context, info SourceInfo) (int, error) { return 0, errNoEmbedded(info) }

// SourceHead needs the embedded DuckDB: an error naming the platform.
func SourceHead(_ context.Context, info SourceInfo, _ int) ([]byte, error) {
	return nil, errNoEmbedded(info)
}
