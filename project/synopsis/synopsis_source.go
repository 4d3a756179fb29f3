package synopsis

import (
	"fmt"
	"slices"
)

// SourceAggregates is Source.Kind of a release computed from an aggregate
// table (issue 20; docs/aggregates.md) instead of the records.
const SourceAggregates = "aggregates"

// AggregateDialects are the SQL dialects an aggregate table can come from
// (project/aggregate's Dialects; pinned equal by a test in
// project/release, since synopsis sits below aggregate).
var AggregateDialects = []string{"duckdb", "postgres", "spark"}

// MaxAggregateBins is the largest number of fine bins per axis a
// synopsis accepts (project/aggregate's MaxBins).
const MaxAggregateBins = 1 << 20

// Source records that a release was computed from an aggregate table, not
// from the records read by the app (key "source", optional; absent for a
// release from the records and in every file written before it). It says
// which engine's SQL dialect computed the table, the fine bins per axis of
// a binned learner, and the SHA-256 of the exact query text, so that a
// reader given the query (bernstein aggregate-sql with the same public
// inputs) can check it is the one the curator ran. All of it is public: the
// query is written from public inputs only.
type Source struct {
	// Kind is SourceAggregates.
	Kind string `json:"kind"`
	// Dialect is the SQL dialect of the engine that computed the table:
	// one of AggregateDialects.
	Dialect string `json:"dialect"`
	// Bins is B, the fine bins per axis, for the binned learners (kde,
	// naive-bayes); absent (0) for ridge, whose sums are exact.
	Bins int `json:"bins,omitempty"`
	// QuerySHA256 is the hex SHA-256 (64 lower-case digits) of the
	// query's exact text, as aggregate.Query wrote it.
	QuerySHA256 string `json:"query_sha256"`
}

// binnedLearners are the learners whose aggregate table is binned.
var binnedLearners = []string{"kde", "naive-bayes"}

// validateSource checks the source record: absent, or kind "aggregates",
// a learner with an aggregate path, a known dialect, bins in
// [2, MaxAggregateBins] exactly for the binned learners, and a hex SHA-256.
func (f *File) validateSource() error {
	s := f.Source
	if s == nil {
		return nil
	}
	if s.Kind != SourceAggregates {
		return fieldErr(ErrMalformed, "source.kind", "%q is not a known source; want %q", s.Kind, SourceAggregates)
	}
	binned := slices.Contains(binnedLearners, f.Learner.Kind)
	if !binned && f.Learner.Kind != "ridge" && f.Learner.Kind != "logistic" {
		return fieldErr(ErrMalformed, "source.kind", "learner %q has no aggregate path (kde, naive-bayes, ridge and logistic have)", f.Learner.Kind)
	}
	if !slices.Contains(AggregateDialects, s.Dialect) {
		return fieldErr(ErrMalformed, "source.dialect", "%q is not one of %q", s.Dialect, AggregateDialects)
	}
	switch {
	case binned && (s.Bins < 2 || s.Bins > MaxAggregateBins):
		return fieldErr(ErrMalformed, "source.bins", "%d must be between 2 and %d for the binned learner %s", s.Bins, MaxAggregateBins, f.Learner.Kind)
	case !binned && s.Bins != 0:
		return fieldErr(ErrMalformed, "source.bins", "%s uses exact sums, not bins: no \"bins\" key", f.Learner.Kind)
	}
	if !isLowerHex(s.QuerySHA256, 64) {
		return fieldErr(ErrMalformed, "source.query_sha256", "%q is not a hex SHA-256 (64 lower-case hex digits)", shorten(s.QuerySHA256))
	}
	return nil
}

// CloneSource returns a copy of s (nil for nil).
func CloneSource(s *Source) *Source {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// shorten quotes at most 70 bytes of a hostile value.
func shorten(s string) string {
	if len(s) > 70 {
		return s[:70] + "…"
	}
	return s
}

// Describe says in words where the release's values came from, for
// inspect and the viewer: e.g. "an aggregate table computed by duckdb
// (4096 fine bins per axis), not the records; query SHA-256 9f86…".
func (s *Source) Describe() string {
	bins := ""
	if s.Bins > 0 {
		bins = fmt.Sprintf(" (%d fine bins per axis)", s.Bins)
	}
	return fmt.Sprintf("an aggregate table computed by %s%s, not the records; query SHA-256 %s", s.Dialect, bins, s.QuerySHA256)
}
