package release

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Aggregates is the source of a release from an aggregate table (issue 20;
// docs/aggregates.md): the result of the learner's aggregate query
// (aggregate.Query, printed by bernstein aggregate-sql), computed by the
// curator's own engine where the records live, instead of the records.
// Everything in it is public or declared by the curator.
type Aggregates struct {
	// Path is the result table: a CSV file with a header row
	// (aggregate.ReadResultCSV), or a Parquet file (name ending in
	// .parquet), read through the embedded DuckDB where this build has it
	// (readResultTable).
	Path string
	// Records, instead of Path, is a records file — a CSV file, a Parquet
	// file or a folder of Parquet files — whose aggregate table the
	// embedded DuckDB computes (EngineDuckDB, engine.go; Linux with cgo).
	// Dialect is then duckdb, N may be 0 (the records are counted: n is
	// public, as on the in-memory path) and Dataset may be empty (the
	// ledger dataset named by the file's SHA-256).
	Records string
	// Dialect is the SQL dialect of the engine that computed it (its sums'
	// public error bound; recorded in the synopsis).
	Dialect aggregate.Dialect
	// Bins is B, the fine bins per axis the query was written with (kde,
	// naive-bayes); 0 means aggregate.DefaultBins.
	Bins int
	// Table is the table name the query was written for ("" means "data",
	// aggregate-sql's default): the query's text, so its hash, depends on it.
	Table string
	// N is the public number of records, declared by the curator: the
	// table's counts must add up to it (n is never taken from the table).
	N int
	// Dataset names the ledger dataset the release is charged to
	// (resolveDataset): the hex hash of a dataset the ledger knows (at
	// least its first 12 digits, as bernstein ledger prints them; or the
	// records fingerprint of an earlier release), or a name of the
	// curator's choosing. Required: without the records the ledger cannot
	// recognise the data (docs/ledger.md, "Releases from aggregates").
	Dataset string
}

// DefaultAggregateTable is the table name a query is written for when
// Aggregates.Table is empty (bernstein aggregate-sql's --table default).
const DefaultAggregateTable = "data"

// aggregateOrigin is what a release from aggregates keeps for the ledger.
type aggregateOrigin struct {
	path      string // the table file, absolute
	dataset   string // the curator's declaration (Aggregates.Dataset)
	tableHash string // SHA-256 of the table file
	source    synopsis.Source
	// fileHash is the records file's SHA-256 (SourceHash) of a release
	// through the embedded DuckDB without a declared dataset.
	fileHash string
}

// datasetNameDomain separates the hash of a curator's dataset name from
// every other SHA-256 (records fingerprints, file hashes).
const datasetNameDomain = "bernstein dataset name v1\x00"

// minDatasetPrefix is the fewest hex digits that refer to a ledger
// dataset by its hash (bernstein ledger prints 12).
const minDatasetPrefix = 12

// NamedDataset returns the ledger dataset hash of a curator's dataset
// name: the hex SHA-256 of a domain tag and the name.
func NamedDataset(name string) string {
	h := sha256.Sum256([]byte(datasetNameDomain + name))
	return hex.EncodeToString(h[:])
}

// QueryHash returns the hex SHA-256 of a query's exact text (the
// synopsis's source.query_sha256).
func QueryHash(query string) string {
	h := sha256.Sum256([]byte(query))
	return hex.EncodeToString(h[:])
}

// prepareAggregates is Prepare for a request with Aggregates: the public
// settings are checked as for the records (preparePublic), the aggregate
// query's Spec is built from them (bounds, fill values, declared classes,
// B, the declared n), the table is read and checked against it
// (aggregate.ReadResultCSV: errors name the file, line and column), the
// learner's oracle is fitted from it (aggregate.Result.Fit: the counts must
// add up to n) and evaluated on the lattice like any other.
func prepareAggregates(ctx context.Context, req Request, progress func(done, total int)) (*Prepared, error) {
	a := req.Aggregates
	if req.Dataset != nil {
		return nil, reqErr("aggregates", "give the records (a dataset) or an aggregate table, not both")
	}
	if !HasAggregatePath(req.Learner) {
		return nil, reqErr("learner", "%s has no aggregate path (%s have); it needs the records", req.Learner, aggregateNames())
	}
	if err := checkTypedBounds(req); err != nil {
		return nil, err
	}
	embedded := a.Records != ""
	logistic := req.Learner == learners.KindLogistic
	switch {
	case logistic && !embedded:
		return nil, reqErr("aggregates", "logistic regression is fitted by Newton passes over the records, one aggregate query each (docs/aggregates.md): "+
			"release it from the records file with the embedded engine (release --data FILE), not from one aggregate table")
	case embedded && a.Path != "":
		return nil, reqErr("aggregates", "give an aggregate table or a records file for the embedded DuckDB, not both")
	case !embedded && strings.TrimSpace(a.Dataset) == "":
		return nil, reqErr("dataset id", "a release from aggregates must name its ledger dataset: the hash of a dataset the ledger knows "+
			"(the records' dataset if they were released before, see bernstein ledger) or a name of your choosing; "+
			"the ledger cannot recognise records it never reads")
	case a.N < 0 || !embedded && a.N < 1:
		return nil, reqErr("n", "declare the public number of records n (at least 1): it is never taken from the aggregates")
	case embedded && a.Dialect != "" && a.Dialect != aggregate.DuckDB:
		return nil, reqErr("dialect", "the embedded engine is DuckDB, not %s", a.Dialect)
	}
	dialect := a.Dialect
	if embedded {
		dialect = aggregate.DuckDB
	}
	d, err := aggregate.ParseDialect(string(dialect))
	if err != nil {
		return nil, reqErr("dialect", "%v", err)
	}
	p, _, pub, err := preparePublic(req)
	if err != nil {
		return nil, err
	}
	spec, err := aggregateSpec(p, pub, a)
	if err != nil {
		return nil, err
	}
	table := a.Table
	if table == "" {
		table = DefaultAggregateTable
	}
	var query string
	if logistic {
		// Every pass shares this text up to its coefficients: the hash is
		// of the pass at zero coefficients (docs/aggregates.md).
		query, err = aggregate.LogisticQuery(spec, d, aggregate.Table(table), learners.LogisticCoef{A: make([]float64, len(req.Features))})
	} else {
		query, err = aggregate.Query(spec, d, aggregate.Table(table))
	}
	if err != nil {
		return nil, reqErr("aggregates", "%v", err)
	}
	origin := &aggregateOrigin{path: absPath(a.Path), dataset: strings.TrimSpace(a.Dataset)}
	source := a.Path
	if embedded {
		source = a.Records
		origin.path = absPath(a.Records)
	}
	// fitFrom fits the learner from the aggregates: the table's oracle, or,
	// for logistic regression, Newton passes over the records with the
	// embedded DuckDB (duckdb.FitLogistic: the in-memory fit up to the
	// certified gradient tolerance; there is no one table to hash).
	var fitFrom func() (*learners.Fitted, error)
	if logistic {
		info, err := embeddedSetup(ctx, &spec, a.Records, origin)
		if err != nil {
			return nil, err
		}
		origin.tableHash = "none (Newton passes)"
		fitFrom = func() (*learners.Fitted, error) { return fitEmbeddedLogistic(ctx, spec, info, req.Params) }
	} else {
		var res *aggregate.Result
		if embedded {
			res, err = runEmbedded(ctx, &spec, a.Records, origin)
		} else {
			res, err = readResultTable(ctx, a.Path, spec, d)
		}
		if err != nil {
			return nil, err
		}
		origin.tableHash = res.TableHash
		fitFrom = func() (*learners.Fitted, error) { return res.Fit(ctx, req.Params) }
	}
	p.Source = &synopsis.Source{Kind: synopsis.SourceAggregates, Dialect: string(d), QuerySHA256: QueryHash(query)}
	if req.Learner != learners.KindRidge && !logistic {
		p.Source.Bins = spec.Bins // the binned learners
	}
	origin.source = *p.Source
	p.aggregates = origin
	fit := func() (*learners.Fitted, error) {
		f, err := fitFrom()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		return f, nil
	}
	if err := p.fitAndEvaluate(ctx, req.Params, fit, progress); err != nil {
		return nil, err
	}
	return p, nil
}

// runEmbedded computes the aggregate table of the records file path with
// the embedded DuckDB (embeddedSetup first).
func runEmbedded(ctx context.Context, spec *aggregate.Spec, path string, origin *aggregateOrigin) (*aggregate.Result, error) {
	info, err := embeddedSetup(ctx, spec, path, origin)
	if err != nil {
		return nil, err
	}
	return runEmbeddedQuery(ctx, *spec, info)
}

// embeddedSetup inspects the records file path for the embedded DuckDB:
// n counted when not declared (spec.N == 0), and the file's SHA-256 kept
// in origin when no ledger dataset is declared.
func embeddedSetup(ctx context.Context, spec *aggregate.Spec, path string, origin *aggregateOrigin) (SourceInfo, error) {
	info, err := InspectSource(path)
	if err != nil {
		return info, err
	}
	if spec.N == 0 {
		if spec.N, err = countEmbedded(ctx, info); err != nil {
			return info, err
		}
		if spec.N < 1 {
			return info, reqErr("data", "%s holds no records", path)
		}
	}
	if origin.dataset == "" {
		if origin.fileHash, err = SourceHash(info); err != nil {
			return info, err
		}
	}
	return info, nil
}

// checkTypedBounds refuses bounds that need the records: taken from the
// data, or estimated privately. The aggregate query is written from
// public bounds typed by the curator.
func checkTypedBounds(req Request) error {
	for _, col := range usedColumns(req) {
		pv, err := provenanceOf(req, col)
		if err != nil {
			return err
		}
		if pv.Lo != synopsis.EndTyped || pv.Hi != synopsis.EndTyped {
			return reqErr("bounds["+col+"]", "a release from aggregates takes public bounds typed from domain knowledge only: "+
				"bounds from the data or estimated privately need the records")
		}
	}
	return nil
}

// aggregateSpec builds the aggregate query's Spec from the checked public
// settings and sets the Prepared's fill rules, label bound and class
// labels, as Prepare does for the records.
func aggregateSpec(p *Prepared, pub publicSettings, a *Aggregates) (aggregate.Spec, error) {
	req := p.Request
	if err := checkFillColumns(req, pub.used); err != nil {
		return aggregate.Spec{}, err
	}
	bins := a.Bins
	if bins == 0 {
		bins = aggregate.DefaultBins
	}
	spec := aggregate.Spec{Learner: req.Learner, Bins: bins, N: a.N}
	for j, col := range pub.used {
		v, err := fillValue(req, col, pub.bounds[j])
		if err != nil {
			return spec, err
		}
		p.Fill = append(p.Fill, synopsis.FillRule{Column: col, Value: &v})
		if j < len(req.Features) {
			spec.Features = append(spec.Features, aggregate.Feature{Name: col, Bounds: pub.bounds[j], Fill: v})
			continue
		}
		spec.Label = &aggregate.Label{Name: col, Bounds: pub.bounds[j], Fill: v}
		l := boundWithProvenance(col, req.Units[col], pub.bounds[j], pub.prov[j])
		p.Domain.Label = &l
	}
	if p.Spec.Label == learners.LabelBinary {
		code, class, err := fillClass(req)
		if err != nil {
			return spec, err
		}
		spec.Label = &aggregate.Label{Name: req.Label, Classes: req.Classes, FillClass: code}
		p.ClassLabels = req.Classes.Labels()
		p.Fill = append(p.Fill, synopsis.FillRule{Column: req.Label, Class: class})
	}
	if err := spec.Validate(); err != nil {
		return spec, reqErr("aggregates", "%v", err)
	}
	return spec, nil
}

// resolveDataset returns the ledger dataset a release from aggregates is
// charged to, from the curator's declaration decl, and a sentence saying
// so (for the curator):
//
//   - 12 to 64 hex digits refer to a dataset the ledger knows: the prefix
//     of exactly one ledger dataset hash, or of the records fingerprint or
//     file hash an entry of it records (so the fingerprint a release from
//     the records showed names its dataset). A prefix that matches none,
//     or several, is refused: a mistyped hash must not open a new budget.
//   - Anything else is a name of the curator's choosing (the synopsis text
//     rule, at most 200 characters): its dataset is NamedDataset(name),
//     new or known from earlier releases under the same name.
//
// The ledger cannot check the declaration: without the records it cannot
// tell which records the aggregates count (docs/ledger.md).
func resolveDataset(l *ledger.Ledger, decl string) (string, string, error) {
	entries := l.Entries("")
	if isHex(decl) && len(decl) >= minDatasetPrefix && len(decl) <= 64 {
		found := matchDatasets(entries, decl)
		switch len(found) {
		case 0:
			return "", "", reqErr("dataset id", "no dataset %s in the ledger %s: give the hash of a dataset it knows (bernstein ledger lists them), or a name for a new dataset", decl, l.Path())
		case 1:
			return found[0], fmt.Sprintf("Charged to ledger dataset %s, as you declared (--dataset-id): the ledger cannot check that these aggregates count its records.", ledger.ShortHash(found[0])), nil
		}
		return "", "", reqErr("dataset id", "%s is the start of %d ledger datasets (%s, %s, …); give more digits", decl, len(found), ledger.ShortHash(found[0]), ledger.ShortHash(found[1]))
	}
	if err := synopsis.CheckText("dataset id", decl, synopsis.MaxNameRunes, false); err != nil {
		return "", "", asRequestError(err)
	}
	h := NamedDataset(decl)
	for _, e := range entries {
		if e.DatasetHash == h {
			return h, fmt.Sprintf("Charged to ledger dataset %s, which you named %q: releases under this name share its budget; the ledger cannot check that these aggregates count its records.", ledger.ShortHash(h), decl), nil
		}
	}
	return h, fmt.Sprintf("A new ledger dataset %s, which you named %q: it gets a budget of its own. The ledger cannot tell whether these aggregates count records already released from a file or under another name; if they do, name that dataset instead (--dataset-id with its hash, bernstein ledger lists them), or its budget is escaped.", ledger.ShortHash(h), decl), nil
}

// matchDatasets returns the ledger datasets whose hash, or the records
// fingerprint or file hash of one of whose entries, starts with the hex
// digits prefix (any case).
func matchDatasets(entries []ledger.Entry, prefix string) []string {
	prefix = strings.ToLower(prefix)
	var found []string
	for _, e := range entries {
		if e.DatasetHash == "" || slices.Contains(found, e.DatasetHash) {
			continue
		}
		match := strings.HasPrefix(e.DatasetHash, prefix)
		if x := e.Identity; x != nil {
			match = match || strings.HasPrefix(x.Records, prefix) || x.FileHash != "" && strings.HasPrefix(x.FileHash, prefix)
		}
		if match {
			found = append(found, e.DatasetHash)
		}
	}
	return found
}

// resolve returns the ledger dataset of a release from aggregates and a
// sentence for the curator: the declared one (resolveDataset), or for
// the embedded DuckDB without a declaration the dataset of the records
// file's SHA-256: the one whose hash or recorded file hash it is (an
// earlier release of the same file, from memory or not), else a new
// dataset whose hash is the file's, as the ledger's file-hash datasets.
func (o *aggregateOrigin) resolve(l *ledger.Ledger) (string, string, error) {
	if o.dataset != "" || o.fileHash == "" {
		return resolveDataset(l, o.dataset)
	}
	switch found := matchDatasets(l.Entries(""), o.fileHash); len(found) {
	case 0:
		return o.fileHash, fmt.Sprintf("A new ledger dataset %s, the SHA-256 of the records file (read by the embedded DuckDB).", ledger.ShortHash(o.fileHash)), nil
	case 1:
		return found[0], fmt.Sprintf("Charged to ledger dataset %s, which recorded this records file (same SHA-256) before.", ledger.ShortHash(found[0])), nil
	default:
		return "", "", reqErr("dataset id", "the records file's SHA-256 %s names %d ledger datasets; declare which one to charge", ledger.ShortHash(o.fileHash), len(found))
	}
}

// isHex reports whether s is non-empty and all hex digits.
func isHex(s string) bool {
	return s != "" && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
}

// reserveAggregates records the spend of a release from aggregates in the
// ledger: resolved again under the ledger's current state (authoritative),
// one entry on the declared dataset, whose note records the table's and
// the query's hashes and the declaration.
func (o *aggregateOrigin) reserve(l *ledger.Ledger, e ledger.Entry, allowOver bool) ([]ledger.Entry, error) {
	if err := l.Refresh(); err != nil {
		return nil, err
	}
	hash, _, err := o.resolve(l)
	if err != nil {
		return nil, err
	}
	e.DatasetHash = hash
	e.DatasetPath = o.path
	e.Note = fmt.Sprintf("from aggregates (%s): table SHA-256 %s, query SHA-256 %s; ledger dataset declared by the curator: %q",
		o.source.Dialect, o.tableHash, o.source.QuerySHA256, o.dataset)
	if o.dataset == "" {
		e.Note = fmt.Sprintf("from aggregates (%s, embedded engine, records file SHA-256 %s): table SHA-256 %s, query SHA-256 %s",
			o.source.Dialect, o.fileHash, o.tableHash, o.source.QuerySHA256)
	}
	rec, err := l.Reserve(e, allowOver)
	if err != nil {
		return nil, err
	}
	return []ledger.Entry{rec}, nil
}

// readResultTable reads an aggregate table computed elsewhere: a file
// whose name ends in .parquet through the embedded DuckDB
// (duckdb.ReadResultParquet; refused, with the platform named, by a build
// without it), any other as CSV (aggregate.ReadResultCSV). Both check the
// table against spec the same way.
func readResultTable(ctx context.Context, path string, spec aggregate.Spec, d aggregate.Dialect) (*aggregate.Result, error) {
	if strings.EqualFold(filepath.Ext(path), ".parquet") {
		return readResultParquet(ctx, path, spec, d)
	}
	return aggregate.ReadResultCSV(path, spec, d)
}
