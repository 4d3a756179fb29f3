package release

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// DefaultBoundsShare is the share of the dataset's ε budget offered by
// default for privately estimated bounds (5 %).
const DefaultBoundsShare = 0.05

// DefaultBoundsQuantiles are the quantiles estimated for the lower and the
// upper bound by default: the 1st and the 99th percentile.
var DefaultBoundsQuantiles = [2]float64{0.01, 0.99}

// PrivateBoundsRequest asks for differentially private bounds of some
// columns of a dataset.
type PrivateBoundsRequest struct {
	// Dataset is the private data.
	Dataset *dataset.Table
	// Ranges holds, per column, the wide public range the curator knows
	// from domain knowledge (e.g. 0 to 10⁷ for an income); the estimates
	// lie inside it and records outside it are clipped to it.
	Ranges map[string]dataset.Bounds
	// Quantiles are the quantiles estimated for the lower and the upper
	// end, 0 < q_lo < q_hi < 1; zero means DefaultBoundsQuantiles.
	Quantiles [2]float64
	// Epsilon is the total ε spent, split equally over the 2·len(Ranges)
	// estimated ends (sequential composition).
	Epsilon float64
	// Ledger records the spend (KindBounds) before any estimate is drawn.
	Ledger *ledger.Ledger
	// AllowOverBudget lets the spend exceed the dataset's budget (recorded).
	AllowOverBudget bool
	// Columns are the columns that identify the dataset in the ledger
	// (IdentifyDataset): the used columns of the release the bounds are
	// for, so that the spend is charged to the same ledger datasets as the
	// release; empty means the estimated columns.
	Columns []string
	// Label and Classes are the release's binary label and its declared
	// classes (nil for other learners): the label is then identified by
	// its declared class values, as the release's identity does
	// (Identify), so the spend is charged to the same ledger dataset.
	Label   string
	Classes *dataset.Classes
	// DifferentPopulation declares near-duplicate ledger datasets a
	// different population (recorded), as Options.DifferentPopulation.
	DifferentPopulation bool
	// Now is the clock of the ledger entry (time.Now if nil).
	Now func() time.Time
}

// PrivateBoundsResult is the outcome of EstimatePrivateBounds.
type PrivateBoundsResult struct {
	// Bounds and Provenance hold, per column, the estimated bounds and
	// their per-end provenance (EndPrivate, with the quantile, ε and range).
	Bounds     map[string]dataset.Bounds
	Provenance map[string]synopsis.BoundsProvenance
	// Entry is the ledger entry of the spend; Spent the dataset's ε spent
	// after it; Budget its budget.
	Entry  ledger.Entry
	Spent  float64
	Budget float64
}

// quantiles returns r.Quantiles, or the defaults if unset, validated.
func (r *PrivateBoundsRequest) quantiles() ([2]float64, error) {
	q := r.Quantiles
	if q == [2]float64{} {
		q = DefaultBoundsQuantiles
	}
	if !(q[0] > 0 && q[0] < q[1] && q[1] < 1) {
		return q, reqErr("bounds quantiles", "%v and %v must satisfy 0 < lower < upper < 1", q[0], q[1])
	}
	return q, nil
}

// validate checks the request before anything is spent.
func (r *PrivateBoundsRequest) validate() error {
	switch {
	case r.Dataset == nil:
		return reqErr("dataset", "no dataset given")
	case len(r.Ranges) == 0:
		return reqErr("bounds-private", "no column to estimate")
	case mechanism.ValidateEpsilon(r.Epsilon) != nil:
		return reqErr("bounds epsilon", "%v %s", r.Epsilon, mechanism.Rule(mechanism.ValidateEpsilon(r.Epsilon)))
	case r.Ledger == nil:
		return reqErr("ledger", "no privacy-budget ledger given; a private estimate spends ε and must be recorded")
	}
	if _, err := r.quantiles(); err != nil {
		return err
	}
	for col, b := range r.Ranges {
		if !slices.Contains(r.Dataset.Columns, col) {
			return reqErr("bounds-private", "no column %q in %s", col, r.Dataset.Path)
		}
		if err := b.Validate(); err != nil {
			return reqErr("bounds-private["+col+"]", "public range: %v", err)
		}
	}
	return nil
}

// EstimatePrivateBounds estimates, for each column of req.Ranges, its
// lower and upper bound as the q_lo- and q_hi-quantiles of the column
// within the curator's wide public range, each by mechanism.PrivateQuantile
// (Smith 2011's exponential mechanism) with ε/(2·columns). The order is
// the privacy contract:
//
//  1. validate the request and read the columns (public checks: the
//     columns exist and are numeric); nothing is spent on an error;
//  2. reserve ε in req.Ledger as one entry of kind "bounds" (a refusal
//     returns the ledger's *BudgetError and nothing is estimated);
//  3. draw the estimates (secure randomness); an error from here on keeps
//     the spend.
//
// The released pair is post-processed, which costs nothing: if the lower
// estimate is not below the upper one they are swapped, and equal ones are
// widened by one step of the public grid. The result is ε-DP (sequential
// composition of the 2·columns ε/(2·columns)-DP quantiles); see
// docs/sensitivity.md, "Privately estimated bounds".
func EstimatePrivateBounds(ctx context.Context, req PrivateBoundsRequest) (*PrivateBoundsResult, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	q, _ := req.quantiles()
	cols := make([]string, 0, len(req.Ranges))
	for c := range req.Ranges {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	data := make(map[string][]float64, len(cols))
	for _, c := range cols {
		v, err := req.Dataset.Column(c)
		if err != nil {
			return nil, err
		}
		data[c] = v
	}
	epsEach := req.Epsilon / float64(2*len(cols))
	for _, c := range cols {
		r := req.Ranges[c]
		if err := mechanism.ValidateQuantile(data[c], r.Lo, r.Hi, q[0], epsEach); err != nil {
			return nil, reqErr("bounds-private["+c+"]", "%v", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	ds := req.Dataset
	params := map[string][]float64{"quantiles": {q[0], q[1]}}
	var ranges []string
	for _, c := range cols {
		r := req.Ranges[c]
		ranges = append(ranges, fmt.Sprintf("%s in [%g, %g]", c, r.Lo, r.Hi))
		params[rangeParam+c] = []float64{r.Lo, r.Hi}
	}
	idCols := req.Columns
	if len(idCols) == 0 {
		idCols = cols
	}
	opt := ledger.IdentityOptions{LegacyTables: []*dataset.Table{ds}}
	if req.Classes != nil && req.Label != "" && slices.Contains(idCols, req.Label) {
		opt.Label, opt.Classes = req.Label, req.Classes
	}
	id, err := ledger.IdentifyRecords(ds, idCols, opt)
	if err != nil {
		return nil, err
	}
	entries, _, err := ledger.ReserveByIdentity(req.Ledger, id, ledger.Entry{
		Time:        now(),
		Kind:        ledger.KindBounds,
		DatasetPath: absPath(ds.Path),
		Epsilon:     req.Epsilon,
		Params:      params,
		Noise:       "exponential",
		Note: fmt.Sprintf("private bounds (exponential-mechanism quantiles %g and %g, ε %.4g each): %s",
			q[0], q[1], epsEach, strings.Join(ranges, "; ")),
	}, req.AllowOverBudget, req.DifferentPopulation)
	if err != nil {
		return nil, err
	}
	entry := entries[0]
	// From here on the spend is recorded, whatever happens.
	res := &PrivateBoundsResult{Bounds: map[string]dataset.Bounds{}, Provenance: map[string]synopsis.BoundsProvenance{}, Entry: entry}
	for _, c := range cols {
		r := req.Ranges[c]
		lo, err := mechanism.PrivateQuantile(data[c], r.Lo, r.Hi, q[0], epsEach)
		if err != nil {
			return nil, fmt.Errorf("estimating the lower bound of %s (the ledger keeps the spend): %w", c, err)
		}
		hi, err := mechanism.PrivateQuantile(data[c], r.Lo, r.Hi, q[1], epsEach)
		if err != nil {
			return nil, fmt.Errorf("estimating the upper bound of %s (the ledger keeps the spend): %w", c, err)
		}
		b, err := orderEstimates(lo.Value, hi.Value, r)
		if err != nil {
			return nil, fmt.Errorf("bounds of %s (the ledger keeps the spend): %w", c, err)
		}
		res.Bounds[c] = b
		res.Provenance[c] = synopsis.BoundsProvenance{Lo: synopsis.EndPrivate, Hi: synopsis.EndPrivate,
			LoEstimate: &synopsis.PrivateEnd{Quantile: q[0], Epsilon: epsEach, RangeLo: r.Lo, RangeHi: r.Hi},
			HiEstimate: &synopsis.PrivateEnd{Quantile: q[1], Epsilon: epsEach, RangeLo: r.Lo, RangeHi: r.Hi}}
	}
	res.Spent, _ = req.Ledger.Spent(entry.DatasetHash)
	res.Budget = req.Ledger.Budget(entry.DatasetHash)
	return res, nil
}

// orderEstimates post-processes two estimates into bounds lo < hi inside
// the public range r: swapped if reversed, widened by one grid step
// ((r.Hi−r.Lo)/mechanism.QuantileGrid) if equal.
func orderEstimates(lo, hi float64, r dataset.Bounds) (dataset.Bounds, error) {
	if lo > hi {
		lo, hi = hi, lo
	}
	if lo == hi {
		step := (r.Hi - r.Lo) / mechanism.QuantileGrid
		if hi+step <= r.Hi {
			hi += step
		} else {
			lo -= step
		}
	}
	b := dataset.Bounds{Lo: lo, Hi: hi}
	if err := b.Validate(); err != nil {
		return dataset.Bounds{}, errors.New("the estimates cannot be ordered into valid bounds: " + err.Error())
	}
	return b, nil
}

// rangeParam prefixes the ledger parameter holding a column's public range
// in a KindBounds entry ("range:COL" = [lo, hi]).
const rangeParam = "range:"

// PrivateBoundsFromEntry returns the provenance of bounds b of column col
// that EstimatePrivateBounds estimated in the ledger entry with the given
// id, so that a later release (e.g. after 'choose') records them as
// estimated privately without spending again. It checks that the entry
// exists, is of kind "bounds", was charged for this file (its dataset hash
// or its identity's file hash), searched a public
// range for col, and that b lies in that range; ε per end is the entry's
// ε over twice its number of columns. The values themselves are the
// curator's (the ledger does not store them).
func PrivateBoundsFromEntry(l *ledger.Ledger, datasetHash, id, col string, b dataset.Bounds) (synopsis.BoundsProvenance, error) {
	field := "bounds[" + col + "]"
	var e *ledger.Entry
	for _, en := range l.Entries("") {
		ofFile := en.DatasetHash == datasetHash || en.Identity != nil && en.Identity.FileHash == datasetHash
		if en.ID == id && ofFile {
			e = &en
			break
		}
	}
	switch {
	case e == nil:
		return synopsis.BoundsProvenance{}, reqErr(field, "no ledger entry %q for this dataset in %s", id, l.Path())
	case e.Kind != ledger.KindBounds:
		return synopsis.BoundsProvenance{}, reqErr(field, "ledger entry %s is of kind %s, not bounds", id, e.Kind)
	}
	r, q := e.Params[rangeParam+col], e.Params["quantiles"]
	if len(r) != 2 || len(q) != 2 {
		return synopsis.BoundsProvenance{}, reqErr(field, "ledger entry %s did not estimate column %q", id, col)
	}
	cols := 0
	for name := range e.Params {
		if strings.HasPrefix(name, rangeParam) {
			cols++
		}
	}
	if err := b.Validate(); err != nil {
		return synopsis.BoundsProvenance{}, reqErr(field, "%v", err)
	}
	if b.Lo < r[0] || b.Hi > r[1] {
		return synopsis.BoundsProvenance{}, reqErr(field, "[%g, %g] is not inside the range [%g, %g] that entry %s searched", b.Lo, b.Hi, r[0], r[1], id)
	}
	each := e.Epsilon / float64(2*cols)
	return synopsis.BoundsProvenance{Lo: synopsis.EndPrivate, Hi: synopsis.EndPrivate,
		LoEstimate: &synopsis.PrivateEnd{Quantile: q[0], Epsilon: each, RangeLo: r[0], RangeHi: r[1]},
		HiEstimate: &synopsis.PrivateEnd{Quantile: q[1], Epsilon: each, RangeLo: r[0], RangeHi: r[1]}}, nil
}
