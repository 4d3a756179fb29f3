package curator

import (
	"bytes"
	"context"
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
)

// Sources too large for memory (issue 20; docs/aggregates.md): a Parquet
// file, a folder of Parquet files or a CSV file of at least
// release.DefaultDuckDBCSVBytes is opened through the embedded DuckDB.
// The window holds only its columns, its first rows (the data step's
// table) and its number of records (counted: n is public); releases and
// previews run the learner's aggregate query on the whole file
// (release.Aggregates.Records). The choice depends on public inputs only:
// the file's format and size, and the learner.

// readSource reads what the window keeps of the file at path (off the UI
// goroutine): the whole CSV in memory, or for a large source its first
// rows with its counted n as Rows, and the source's description (nil for
// the in-memory path).
func readSource(path string, imp dataset.ImportOptions) (*dataset.Table, *release.SourceInfo, error) {
	opts := dataset.CSVOptions{KeepInvalid: true, Import: imp}
	info, err := release.InspectSource(path)
	if err != nil || info.Format == release.FormatCSV && info.Size < release.DefaultDuckDBCSVBytes {
		ds, err := dataset.ReadCSV(path, opts) // the reader's own errors name the file
		return ds, nil, err
	}
	ctx := context.Background()
	head, err := release.SourceHead(ctx, info, dataset.PreviewRows)
	if err != nil {
		return nil, nil, err
	}
	ds, err := dataset.ParseCSV(bytes.NewReader(head), path, dataset.CSVOptions{KeepInvalid: true})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the first rows as DuckDB read them: %w", path, err)
	}
	n, err := release.CountRecords(ctx, info)
	if err != nil {
		return nil, nil, err
	}
	ds.Rows = n
	// The file's SHA-256, as an in-memory read would record it: the status
	// bar's budget is then that of the dataset a release is charged to.
	if ds.Hash, err = release.SourceHash(info); err != nil {
		return nil, nil, err
	}
	return ds, &info, nil
}

// sourceRequest finishes a request built from the state with the source
// releases use: an aggregate table computed elsewhere (Aggregates), or
// for a large source the records file through the embedded DuckDB, whose
// n is the one counted when it was opened. A learner without an aggregate
// path is refused for a large source with its row limit named.
func (s *curatorState) sourceRequest(req release.Request) (release.Request, error) {
	switch {
	case s.Aggregates != nil:
		a := *s.Aggregates
		req.Dataset, req.Aggregates = nil, &a
	case s.Records != nil:
		if !release.HasAggregatePath(req.Learner) {
			rule := fmt.Sprintf("%s keeps every record in memory", req.Learner)
			if limit := release.RowLimit(req.Learner); limit > 0 {
				rule += fmt.Sprintf(" (at most %d rows)", limit)
			}
			return req, &fieldError{Step: stepLearner, Field: "learner", Rule: rule + "; this file is opened through the embedded DuckDB, which only " +
				"kernel density, naive Bayes, ridge and logistic regression use. Choose one of them, or open a CSV file smaller than " +
				fmt.Sprintf("%d MiB", release.DefaultDuckDBCSVBytes>>20)}
		}
		req.Dataset = nil
		req.Aggregates = &release.Aggregates{Records: s.Records.Path, N: s.Rows, Dialect: aggregate.DuckDB}
	}
	return req, nil
}
