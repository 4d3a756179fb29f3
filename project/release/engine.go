package release

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// Engine is the path the records of a release take (issue 20): read into
// memory (today's path, every learner) or aggregated by the embedded
// DuckDB (learners with an aggregate path). The curator does not choose
// it: ChooseEngine does, from public inputs only.
type Engine string

const (
	// EngineMemory reads the records into memory (dataset.ReadCSV).
	EngineMemory Engine = "in-memory"
	// EngineDuckDB runs the learner's aggregate query on the records
	// file with the embedded DuckDB (project/aggregate/duckdb); the release
	// is a release from aggregates (synopsis source, dialect duckdb).
	EngineDuckDB Engine = "duckdb"
)

// DefaultDuckDBCSVBytes is the public file size from which a CSV file goes
// through the embedded DuckDB when the learner has an aggregate path:
// 256 MiB, about 2·10⁶ rows of a few numeric columns, where the in-memory
// path's peak memory nears 300 MB (docs/performance.md). Smaller files
// keep the in-memory path, faster for them.
const DefaultDuckDBCSVBytes int64 = 256 << 20

// aggregateLearners are the learners with an aggregate path (aggregate
// query, project/aggregate): the one list the engine choice and
// prepareAggregates read. Logistic regression is fitted by Newton passes,
// one aggregate query each, so it runs on the embedded engine only (not
// from one aggregate table computed elsewhere).
var aggregateLearners = []learners.Kind{learners.KindKDE, learners.KindNaiveBayes, learners.KindRidge, learners.KindLogistic}

// HasAggregatePath reports whether learner k can be released from
// aggregates (an aggregate table or the embedded DuckDB).
func HasAggregatePath(k learners.Kind) bool { return slices.Contains(aggregateLearners, k) }

// inMemoryRowLimits are the public row limits of the learners that keep
// every record in memory and have no aggregate path: the largest n their
// fit is made for on a laptop (the SVM's solver is superlinear in n;
// Priestley–Chao keeps the sorted records, 8·(ℓ+1) bytes a row, and
// evaluates a sum over them per lattice point).
var inMemoryRowLimits = map[learners.Kind]int{
	learners.KindPriestleyChao: 10_000_000,
	learners.KindSVM:           1_000_000,
}

// RowLimit returns the public row limit of learner k (0: none). A source
// of more rows is refused for k with a message naming the limit
// (CheckRowLimit); n is public, so is the refusal.
func RowLimit(k learners.Kind) int { return inMemoryRowLimits[k] }

// CheckRowLimit refuses n records for learner k beyond its RowLimit, with
// a message naming the limit and the learners that take larger sources.
func CheckRowLimit(k learners.Kind, n int) error {
	limit := RowLimit(k)
	if limit == 0 || n <= limit {
		return nil
	}
	return reqErr("n", "%d records: %s keeps every record in memory and takes at most %d rows (a public row limit); "+
		"for a larger source use a learner with an aggregate path (%s), which the embedded DuckDB runs on files of any size", n, k, limit, aggregateNames())
}

func aggregateNames() string {
	names := make([]string, len(aggregateLearners))
	for i, k := range aggregateLearners {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// SourceFormat is the format of a records file, from its name.
type SourceFormat string

const (
	FormatCSV     SourceFormat = "csv"
	FormatParquet SourceFormat = "parquet"
)

// SourceInfo is what the engine choice knows of a records source: public
// facts about the file, not its content.
type SourceInfo struct {
	Path   string
	Format SourceFormat
	// Folder is a folder of Parquet files (every *.parquet in it).
	Folder bool
	// Size is the file's size in bytes (0 for a folder): visible to whoever
	// holds the file, never published (docs/security.md).
	Size int64
}

// InspectSource returns the SourceInfo of path: a folder holding
// *.parquet files is a folder of Parquet files (any other folder is
// refused with fileio.ErrNotRegular; a pipe or a device is left to the
// reader's own refusal), a name ending in .parquet a Parquet file, anything else a
// CSV file (the in-memory reader's rule: any name). Errors: the file's
// stat error.
func InspectSource(path string) (SourceInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return SourceInfo{}, err
	}
	info := SourceInfo{Path: path, Format: FormatCSV}
	switch {
	case fi.IsDir():
		if files, err := filepath.Glob(filepath.Join(path, "*.parquet")); err != nil || len(files) == 0 {
			return SourceInfo{}, fmt.Errorf("%s: %w: a directory with no .parquet files", path, fileio.ErrNotRegular)
		}
		info.Format, info.Folder = FormatParquet, true
	case strings.EqualFold(filepath.Ext(path), ".parquet"):
		info.Format, info.Size = FormatParquet, fi.Size()
	default:
		info.Size = fi.Size()
	}
	return info, nil
}

// ChooseEngine chooses the engine for a records source, from public
// inputs only: the learner, the source's format and file size, the
// declared n (0: not declared) and the size threshold (≤ 0 means
// DefaultDuckDBCSVBytes). Parquet (a file or a folder) always goes
// through the embedded DuckDB; a CSV file does when it is at least
// threshold bytes and the learner has an aggregate path; everything else
// is read into memory. A learner without an aggregate path is refused
// for Parquet, and for a declared n beyond its RowLimit, with the limit
// named. The choice changes nothing published except through the
// mechanism: the synopsis's source records a release from aggregates
// (binned KDE and naive Bayes differ from the exact fit by at most the
// stated binning bound; ridge is exact).
func ChooseEngine(src SourceInfo, k learners.Kind, declaredN int, threshold int64) (Engine, error) {
	if threshold <= 0 {
		threshold = DefaultDuckDBCSVBytes
	}
	agg := HasAggregatePath(k)
	if !agg {
		if err := CheckRowLimit(k, declaredN); err != nil {
			return "", err
		}
	}
	switch {
	case src.Format == FormatParquet && !agg:
		what := "a Parquet file"
		if src.Folder {
			what = "a folder of Parquet files"
		}
		msg := fmt.Sprintf("%s is read only by the embedded DuckDB, through an aggregate query; %s has none (%s have): it needs the records in memory",
			what, k, aggregateNames())
		if limit := RowLimit(k); limit > 0 {
			msg += fmt.Sprintf(": export at most %d rows to a CSV file", limit)
		}
		return "", reqErr("data", "%s", msg)
	case src.Format == FormatParquet:
		return EngineDuckDB, nil
	case agg && src.Size >= threshold:
		return EngineDuckDB, nil
	}
	return EngineMemory, nil
}

// SourceHash returns the hex SHA-256 of a records source's bytes: of the
// file, or for a folder of the names and SHA-256s of its *.parquet files
// in name order. A release through the embedded DuckDB is charged to the
// ledger dataset this hash names (the file hash an earlier in-memory
// release of the same file recorded) unless the curator declares one.
func SourceHash(src SourceInfo) (string, error) {
	if !src.Folder {
		return dataset.HashFile(src.Path)
	}
	files, err := filepath.Glob(filepath.Join(src.Path, "*.parquet"))
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no .parquet files in the folder", src.Path)
	}
	sort.Strings(files)
	h := sha256.New()
	io.WriteString(h, "bernstein parquet folder v1\x00")
	for _, f := range files {
		fh, err := dataset.HashFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%s\n", filepath.Base(f), fh)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RecordsFile is a records file given to a release and what the curator
// declared about it (all optional).
type RecordsFile struct {
	// Path is a CSV file, a Parquet file or a folder of Parquet files.
	Path string
	// N is the declared public n (0: not declared). When given it must be
	// the number of records (every row is kept, none dropped).
	N int
	// Dataset is the declared ledger dataset for the embedded DuckDB path
	// (Aggregates.Dataset; "": the file's SHA-256). The in-memory path
	// identifies the records themselves.
	Dataset string
	// Bins is B for the binned learners on the embedded DuckDB path (0:
	// aggregate.DefaultBins).
	Bins int
	// Threshold is the CSV size from which the embedded DuckDB is used
	// (≤ 0: DefaultDuckDBCSVBytes).
	Threshold int64
	// CSV are the in-memory reader's options (the used columns,
	// KeepInvalid and the declared classes are set by SetSource).
	CSV dataset.CSVOptions
}

// SetSource chooses the engine for the records file f (ChooseEngine,
// from public inputs only) and sets req's source: the records read into
// memory (req.Dataset, by dataset.ReadCSV keeping every row) or, for the
// embedded DuckDB, req.Aggregates with f.Path as its Records. It is the
// one place the command line and the curator window turn a records file
// into a request; req's learner, columns and classes must be set. A
// declared n that is not the number of rows read is refused (n is
// public and never silently replaced); the DuckDB path checks it against
// its counts (aggregate.Result.Fit).
func SetSource(req *Request, f RecordsFile) (Engine, error) {
	info, err := InspectSource(f.Path)
	if err != nil {
		return "", err
	}
	eng, err := ChooseEngine(info, req.Learner, f.N, f.Threshold)
	if err != nil {
		return "", err
	}
	if eng == EngineDuckDB {
		if info.Format == FormatCSV && f.CSV.Import != (dataset.ImportOptions{}) && f.CSV.Import != (dataset.ImportOptions{HeaderRow: 1}) {
			return "", reqErr("data", "%s is read by the embedded DuckDB (a CSV of %d bytes, at least %d): it reads a comma-separated file with one header row; "+
				"the import options (header row, delimiter, decimal comma, comment lines) apply to the in-memory reader only", f.Path, info.Size, thresholdOf(f.Threshold))
		}
		req.Dataset = nil
		req.Aggregates = &Aggregates{Records: f.Path, N: f.N, Dataset: f.Dataset, Bins: f.Bins, Dialect: aggregate.DuckDB}
		return eng, nil
	}
	opts := f.CSV
	// The used columns, each once: Prepare then words a label that is
	// also a feature, or a label for an unsupervised learner, as it does
	// for any source.
	cols := usedColumns(*req)
	opts.Columns, opts.KeepInvalid = slices.Compact(slices.Sorted(slices.Values(cols))), true
	if req.Classes != nil && req.Label != "" {
		opts.Classes = map[string]dataset.Classes{req.Label: *req.Classes}
	}
	ds, err := dataset.ReadCSV(f.Path, opts)
	if err != nil {
		return "", err
	}
	if f.N != 0 && f.N != ds.Rows {
		return "", reqErr("n", "%d declared, but %s holds %d records (every row is kept: n is public and never taken silently)", f.N, f.Path, ds.Rows)
	}
	req.Dataset, req.Aggregates = ds, nil
	return eng, nil
}

func thresholdOf(t int64) int64 {
	if t <= 0 {
		return DefaultDuckDBCSVBytes
	}
	return t
}
