//go:build linux && cgo

package duckdb

import (
	"context"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
)

// FitLogistic fits logistic regression on src with the embedded DuckDB:
// Newton passes (aggregate.FitLogistic, learners.FitLogisticAggregates;
// numeric columns read as numbers, NumericColumns),
// each pass aggregate.LogisticQuery's DuckDB text run like Run's query
// (COPY … TO a temporary CSV file, under opts's memory limit, spilling to
// a private folder), until the gradient certifies (typically 4–8 passes;
// at most the public budget, then the public fallback's fixed number of
// passes). spec.Learner must be logistic and spec.N the public n. The
// records stay in DuckDB; Go holds one row of sums per pass. The result
// is the in-memory fit's up to the certified tolerance (same S, note,
// range and stand-in). Cancelling ctx interrupts the running pass.
//
// Hook for the release path (engine choice, project/release): where
// Prepare would read a large CSV or Parquet source for learners.KindLogistic,
// call FitLogistic(ctx, spec, src, req.Params, Options{}) with the Spec
// built as for Run (features with bounds and fill values, the label with
// its declared classes and fill class, N the declared n) and use the
// returned *learners.Fitted as Prepared.Fitted; the synopsis's query hash
// is then the hash of aggregate.LogisticQuery's text at zero coefficients
// (learners.LogisticCoef{A: make([]float64, ℓ)}), the template every pass
// shares up to its coefficients.
func FitLogistic(ctx context.Context, spec aggregate.Spec, src aggregate.Source, values learners.Values, opts Options) (*learners.Fitted, error) {
	src, err := NumericColumns(ctx, src)
	if err != nil {
		return nil, err
	}
	return aggregate.FitLogistic(ctx, spec, aggregate.DuckDB, src, values, func(ctx context.Context, query, out string) error {
		return runCopy(ctx, query, out, out+".spill", opts)
	})
}
