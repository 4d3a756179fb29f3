package aggregate

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// Result is the table an aggregate query returned, checked against its
// Spec: for KDE the occupied cells and their counts, for naive Bayes the
// per-class, per-feature bin counts, for ridge the sums. It is private
// data (counts of records), like a dataset.Table.
type Result struct {
	Spec    Spec
	Dialect Dialect // the engine that computed it: its sums' error bound
	// TableHash is the hex SHA-256 of the table file's bytes (as read), for
	// the curator's ledger.
	TableHash string
	// KDE: bin indices (len(Counts)·ℓ, row-major) and records per cell.
	// Naive Bayes: per row class (−1/+1), feature (1…ℓ), bin, records.
	Cells  []int32
	Counts []int64
	Class  []int8
	Axis   []int8
	// Ridge: the sums (learners.RidgeMoments's fields).
	Records int64
	SumX    []float64
	SumXX   []float64
	SumXY   []float64
	SumY    float64
}

// Columns returns the header of the result table of spec, as Query names
// the columns: bin_1 … bin_ℓ, records (KDE); class, feature, bin, records
// (naive Bayes); records, sum_x1 …, sum_x1_x1 …, sum_x1_y …, sum_y (ridge).
func Columns(spec Spec) []string {
	d := len(spec.Features)
	var cols []string
	switch spec.Learner {
	case learners.KindKDE:
		for j := 1; j <= d; j++ {
			cols = append(cols, fmt.Sprintf("bin_%d", j))
		}
		cols = append(cols, "records")
	case learners.KindNaiveBayes:
		cols = []string{"class", "feature", "bin", "records"}
	case learners.KindRidge:
		cols = append(cols, "records")
		for j := 1; j <= d; j++ {
			cols = append(cols, fmt.Sprintf("sum_x%d", j))
		}
		for j := 1; j <= d; j++ {
			for k := j; k <= d; k++ {
				cols = append(cols, fmt.Sprintf("sum_x%d_x%d", j, k))
			}
		}
		for j := 1; j <= d; j++ {
			cols = append(cols, fmt.Sprintf("sum_x%d_y", j))
		}
		cols = append(cols, "sum_y")
	}
	return cols
}

// ReadResultCSV reads the result table of spec's query, computed by an
// engine of dialect d, from a CSV file with a header row (the columns of
// Columns, in any order; other columns are an error of the file). The file
// is read by dataset.ReadCSV (bounded, strict: every value a number in the
// number syntax); errors name the file, line and column. It checks the
// table's shape against the spec (bins in [0, B), counts whole and ≥ 1, no
// cell twice, ridge one row) but not n: Fit compares the counts with the
// declared n.
func ReadResultCSV(path string, spec Spec, d Dialect) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := oneTable(spec); err != nil {
		return nil, err
	}
	if _, err := ParseDialect(string(d)); err != nil {
		return nil, err
	}
	t, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: Columns(spec)})
	if err != nil {
		return nil, err
	}
	return resultOf(t, spec, d)
}

// resultOf checks the table t read from path against spec (see
// ReadResultCSV).
func resultOf(t *dataset.Table, spec Spec, d Dialect) (*Result, error) {
	path := t.Path
	cols := Columns(spec)
	for i, c := range t.Columns {
		if !slices.Contains(cols, c) {
			return nil, &dataset.CSVError{File: path, Line: 1, Column: i + 1, ColumnName: c, Rule: fmt.Sprintf("not a column of the %s aggregate table (want %s)", spec.Learner, quoteNames(cols))}
		}
	}
	r := &Result{Spec: spec, Dialect: d, TableHash: t.Hash}
	col := func(name string) []float64 { v, _ := t.Column(name); return v }
	rowErr := func(i int, name, rule string) error {
		return &dataset.CSVError{File: path, Line: i + 2, ColumnName: name, Rule: rule}
	}
	whole := func(i int, name string, v, lo, hi float64) (int64, error) {
		if v != math.Trunc(v) || v < lo || v > hi {
			return 0, rowErr(i, name, fmt.Sprintf("%v is not a whole number in [%.0f, %.0f]", v, lo, hi))
		}
		return int64(v), nil
	}
	dim := len(spec.Features)
	switch spec.Learner {
	case learners.KindKDE, learners.KindNaiveBayes:
		bins := float64(spec.bins())
		counts := col("records")
		// At their final size: a table of millions of occupied cells
		// (continuous data, B = 4096) is not grown by appending.
		r.Counts = make([]int64, 0, t.Rows)
		if spec.Learner == learners.KindNaiveBayes {
			r.Cells, r.Class, r.Axis = make([]int32, 0, t.Rows), make([]int8, 0, t.Rows), make([]int8, 0, t.Rows)
		} else {
			r.Cells = make([]int32, 0, t.Rows*dim)
		}
		for i := range t.Rows {
			c, err := whole(i, "records", counts[i], 1, 1<<53)
			if err != nil {
				return nil, err
			}
			r.Counts = append(r.Counts, c)
			if spec.Learner == learners.KindNaiveBayes {
				cl, err := whole(i, "class", col("class")[i], -1, 1)
				if err != nil || cl == 0 {
					return nil, rowErr(i, "class", fmt.Sprintf("%v is not a learner class (−1 or +1)", col("class")[i]))
				}
				ax, err := whole(i, "feature", col("feature")[i], 1, float64(dim))
				if err != nil {
					return nil, err
				}
				b, err := whole(i, "bin", col("bin")[i], 0, bins-1)
				if err != nil {
					return nil, err
				}
				r.Class = append(r.Class, int8(cl))
				r.Axis = append(r.Axis, int8(ax))
				r.Cells = append(r.Cells, int32(b))
			} else {
				for j := 1; j <= dim; j++ {
					name := fmt.Sprintf("bin_%d", j)
					b, err := whole(i, name, col(name)[i], 0, bins-1)
					if err != nil {
						return nil, err
					}
					r.Cells = append(r.Cells, int32(b))
				}
			}
		}
		if a, b, dup := firstDuplicate(r, dim); dup {
			return nil, rowErr(b, "", fmt.Sprintf("the same cell as line %d (a cell must be counted once)", a+2))
		}
	case learners.KindRidge:
		if t.Rows != 1 {
			return nil, &dataset.CSVError{File: path, Rule: fmt.Sprintf("%d data rows; the ridge aggregate is one row of sums", t.Rows)}
		}
		c, err := whole(0, "records", col("records")[0], 0, 1<<53)
		if err != nil {
			return nil, err
		}
		r.Records = c
		for _, name := range cols[1:] {
			v := col(name)[0]
			switch {
			case name == "sum_y":
				r.SumY = v
			case len(name) > 2 && name[len(name)-2:] == "_y":
				r.SumXY = append(r.SumXY, v)
			case slices.Index(cols, name) <= dim:
				r.SumX = append(r.SumX, v)
			default:
				r.SumXX = append(r.SumXX, v)
			}
		}
	}
	return r, nil
}

// firstDuplicate reports two rows of a KDE or naive Bayes table with the
// same cell (a < b, the earliest such b), by sorting row indices (4 bytes
// per row, where a map of keys would cost tens).
func firstDuplicate(r *Result, dim int) (a, b int, dup bool) {
	rows := len(r.Counts)
	key := func(i int) []int32 {
		if r.Class != nil {
			return []int32{int32(r.Class[i]), int32(r.Axis[i]), r.Cells[i]}
		}
		return r.Cells[i*dim : (i+1)*dim]
	}
	idx := make([]int32, rows)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int {
		if c := slices.Compare(key(int(x)), key(int(y))); c != 0 {
			return c
		}
		return int(x - y)
	})
	b = -1
	for k := 1; k < rows; k++ {
		if slices.Equal(key(int(idx[k-1])), key(int(idx[k]))) && (b < 0 || int(idx[k]) < b) {
			a, b = int(idx[k-1]), int(idx[k])
		}
	}
	return a, b, b >= 0
}

func quoteNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

// sumError is the public bound on the absolute error of each ridge sum of
// n terms computed by dialect d's query and read back from its decimal
// text (docs/sensitivity.md, "Ridge from sufficient statistics"): each
// term is a product of two mapped doubles rounded once (≤ u, |term| ≤ 1),
// then cast to an exact decimal (≤ 10⁻²⁴ with DECIMAL(38,24); PostgreSQL's
// float8 → numeric keeps 15 significant digits, ≤ 5·10⁻¹⁵), the decimals
// are added exactly, and reading the sum (|sum| ≤ n) into a float64
// rounds once more (≤ u·n).
func sumError(d Dialect, n int) float64 {
	const u = 0x1p-53
	cast := 1e-24
	if d == Postgres {
		cast = 5e-15
	}
	return float64(n) * (2*u + cast) * (1 + 1e-9)
}

// Fit turns the result into the learner's fitted oracle, with the
// declared n of the Spec (the counts must add up to it, or Fit refuses
// naming both: n is public, never taken from the aggregates) and the
// learner's parameter values: the binned KDE (learners.FitKDEBinned) or
// ridge regression from its sums (learners.FitRidgeMoments), or the binned
// naive Bayes (learners.FitNaiveBayesBinned).
func (r *Result) Fit(ctx context.Context, values learners.Values) (*learners.Fitted, error) {
	s := r.Spec
	if s.N < 1 {
		return nil, specError("n", "declare the public number of records n (at least 1): it is never taken from the aggregates")
	}
	switch s.Learner {
	case learners.KindKDE:
		return learners.FitKDEBinned(ctx, learners.KDEBins{Dim: len(s.Features), B: s.bins(), Cells: r.Cells, Counts: r.Counts, N: s.N}, values)
	case learners.KindRidge:
		return learners.FitRidgeMoments(ctx, learners.RidgeMoments{
			Dim: len(s.Features), N: s.N, Records: r.Records,
			SumX: r.SumX, SumXX: r.SumXX, SumXY: r.SumXY, SumY: r.SumY,
			SumError: sumError(r.Dialect, s.N),
		}, values)
	case learners.KindNaiveBayes:
		f := make([]int8, len(r.Axis))
		for i, a := range r.Axis {
			f[i] = a - 1
		}
		return learners.FitNaiveBayesBinned(ctx, learners.NaiveBayesBins{Dim: len(s.Features), B: s.bins(), Class: r.Class, Feature: f, Bin: r.Cells, Counts: r.Counts, N: s.N}, values)
	}
	return nil, specError("learner", "%s has no aggregate path", s.Learner)
}
