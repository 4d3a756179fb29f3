package release

import (
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// AggregateQuery returns the aggregate query of a release request for
// the curator's own engine (dialect d, the records in the table named
// table, "" meaning DefaultAggregateTable; B = bins, 0 meaning
// aggregate.DefaultBins): the exact text whose SHA-256 a release from
// its result table records (prepareAggregates writes it the same way),
// built from the request's public settings only (learner, columns, typed
// bounds, fill values, declared classes). The request's records, if any,
// are not read. Errors are the public settings' (*RequestError).
func AggregateQuery(req Request, d aggregate.Dialect, table string, bins int) (string, error) {
	req.Dataset, req.Aggregates = nil, nil
	if !HasAggregatePath(req.Learner) {
		return "", reqErr("learner", "%s has no aggregate path (%s have); it needs the records", req.Learner, aggregateNames())
	}
	if err := checkTypedBounds(req); err != nil {
		return "", err
	}
	p, _, pub, err := preparePublic(req)
	if err != nil {
		return "", err
	}
	spec, err := aggregateSpec(p, pub, &Aggregates{Bins: bins})
	if err != nil {
		return "", err
	}
	if table == "" {
		table = DefaultAggregateTable
	}
	q, err := aggregate.Query(spec, d, aggregate.Table(table))
	if err != nil {
		return "", reqErr("aggregates", "%v", err)
	}
	return q, nil
}

// DeclaredDataset returns the ledger dataset a release from aggregates
// declared as decl (Aggregates.Dataset) is charged to, and a sentence
// saying so for the curator: the rule of resolveDataset (a hash prefix
// of exactly one known dataset, or a name). It only reads the ledger.
func DeclaredDataset(l *ledger.Ledger, decl string) (string, string, error) {
	if err := l.Refresh(); err != nil {
		return "", "", err
	}
	return resolveDataset(l, decl)
}

// RecordsFileDataset returns the ledger dataset a release of the records
// file path through the embedded DuckDB is charged to, and a sentence for
// the curator: the declared one (decl, as Aggregates.Dataset), else the
// dataset of the file's SHA-256 (aggregateOrigin.resolve). It reads the
// whole file to hash it: call it off the UI goroutine.
func RecordsFileDataset(l *ledger.Ledger, path, decl string) (string, string, error) {
	if err := l.Refresh(); err != nil {
		return "", "", err
	}
	o := &aggregateOrigin{dataset: decl}
	if decl == "" {
		info, err := InspectSource(path)
		if err != nil {
			return "", "", err
		}
		if o.fileHash, err = SourceHash(info); err != nil {
			return "", "", err
		}
	}
	return o.resolve(l)
}
