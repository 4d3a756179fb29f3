package cli

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// privateBoundsFlags are the flags of privately estimated bounds, shared by
// 'release' and 'choose': --bounds-private COL=LO:HI (the wide public
// range searched), --bounds-quantiles QLO:QHI and --bounds-epsilon E.
type privateBoundsFlags struct {
	ranges    flagvalue.Bounds
	quantiles flagvalue.Quantiles
	epsilon   flagvalue.Float
	// estimated reuses bounds estimated earlier (e.g. by 'choose'):
	// --bounds-estimated COL=LO:HI --bounds-entry ID.
	estimated flagvalue.Bounds
	entry     string
}

func (p *privateBoundsFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.ranges, "bounds-private", "estimate the bounds of `COL=LO:HI` privately within the wide public range LO:HI\n"+
		"(differentially private quantiles; spends --bounds-epsilon, recorded in the ledger as kind \"bounds\"); repeatable")
	fs.Var(&p.quantiles, "bounds-quantiles", "quantiles `QLO:QHI` estimated as lower and upper bound by --bounds-private (default 0.01:0.99)")
	fs.Var(&p.epsilon, "bounds-epsilon", "ε = `E` spent on all --bounds-private columns together (default: 5% of the dataset's budget)")
	fs.Var(&p.estimated, "bounds-estimated", "bounds `COL=LO:HI` estimated privately before (as printed by --bounds-private), with --bounds-entry;\nrecorded as estimated privately without spending again")
	fs.StringVar(&p.entry, "bounds-entry", "", "the ledger entry `ID` (kind bounds) that estimated the --bounds-estimated bounds")
}

// used reports whether --bounds-private was given.
func (p *privateBoundsFlags) used() bool { return len(p.ranges.Order) > 0 }

// check validates the private-bounds flags against the dataset flags
// before anything is read or spent.
func (p *privateBoundsFlags) check(f *datasetFlags, spec learners.Spec, budgetSet bool) error {
	if (len(p.estimated.Order) > 0) != (p.entry != "") {
		return usagef("--bounds-estimated and --bounds-entry go together")
	}
	for _, col := range p.estimated.Order {
		if p.estimated.Specs[col].FromData {
			return usagef("--bounds-estimated %s=data: give the estimated LO:HI", col)
		}
		if _, dup := f.bounds.Specs[col]; dup {
			return usagef("column %q has both --bounds and --bounds-estimated; give one", col)
		}
		if _, dup := p.ranges.Specs[col]; dup {
			return usagef("column %q has both --bounds-private and --bounds-estimated; give one", col)
		}
	}
	if !p.used() {
		if p.quantiles.Given || p.epsilon.Given {
			return usagef("--bounds-quantiles and --bounds-epsilon apply only with --bounds-private")
		}
		return nil
	}
	if budgetSet {
		return usagef("--budget or --delta-budget with --bounds-private: set the budget first ('bernstein ledger --data FILE --budget E'), so that both spends are checked against it")
	}
	if p.epsilon.Given && !(p.epsilon.Value > 0) {
		return usagef("--bounds-epsilon %g: must be > 0", p.epsilon.Value)
	}
	for _, col := range p.ranges.Order {
		switch {
		case p.ranges.Specs[col].FromData:
			return usagef("--bounds-private %s=data: give the wide public range LO:HI to search", col)
		case !slices.Contains(f.features, col) && !(col == f.label && spec.Label == learners.LabelReal):
			return usagef("--bounds-private names column %q, which is neither a feature nor a real label", col)
		}
		if _, dup := f.bounds.Specs[col]; dup {
			return usagef("column %q has both --bounds and --bounds-private; give one", col)
		}
	}
	return nil
}

// estimate spends the private-bounds ε and fills req.Bounds and
// req.BoundsProvenance with the estimates. Before spending it checks that
// this spend and the later one (laterEps: the release's ε, or the choice's)
// fit the dataset's budget together, unless allowOver. The estimates are
// differentially private, so they are printed on standard output.
func (p *privateBoundsFlags) estimate(ctx context.Context, e *env, req *release.Request, ledgerPath string, allowOver bool, laterEps float64) error {
	if !p.used() && p.entry == "" {
		return nil
	}
	led, err := ledger.Open(ledgerPath)
	if err != nil {
		return err
	}
	ds := req.Dataset
	if req.BoundsProvenance == nil {
		req.BoundsProvenance = map[string]synopsis.BoundsProvenance{}
	}
	for _, col := range p.estimated.Order {
		s := p.estimated.Specs[col]
		b := dataset.Bounds{Lo: s.Lo, Hi: s.Hi}
		pv, err := release.PrivateBoundsFromEntry(led, ds.Hash, p.entry, col, b)
		if err != nil {
			return err
		}
		req.Bounds[col], req.BoundsProvenance[col] = b, pv
	}
	if !p.used() {
		return nil
	}
	budget := led.Budget(ds.Hash)
	eps := release.DefaultBoundsShare * budget
	share := "5% of the dataset's budget"
	if p.epsilon.Given {
		eps, share = p.epsilon.Value, "--bounds-epsilon"
	}
	spent, _ := led.Spent(ds.Hash)
	if !allowOver && spent+eps+laterEps > budget*(1+1e-6) {
		return &ledger.BudgetError{File: led.Path(), DatasetHash: ds.Hash, Spent: spent, Requested: eps + laterEps, Budget: budget}
	}
	ranges := map[string]dataset.Bounds{}
	for _, col := range p.ranges.Order {
		s := p.ranges.Specs[col]
		ranges[col] = dataset.Bounds{Lo: s.Lo, Hi: s.Hi}
	}
	fmt.Fprintf(e.Stderr, "estimating the bounds of %s privately: spends ε %.6g (%s)\n", strings.Join(p.ranges.Order, ", "), eps, share)
	// The spend is charged to the ledger datasets of the release's records
	// (its features and label), as the release itself will be.
	idCols := slices.Clone(req.Features)
	if req.Label != "" {
		if _, err := ds.Column(req.Label); err == nil {
			idCols = append(idCols, req.Label)
		}
	}
	res, err := release.EstimatePrivateBounds(ctx, release.PrivateBoundsRequest{
		Dataset: ds, Ranges: ranges, Quantiles: p.quantiles.Value, Epsilon: eps,
		Ledger: led, AllowOverBudget: allowOver, Now: e.Now, Columns: idCols, Label: req.Label, Classes: req.Classes,
	})
	if err != nil {
		return err
	}
	var reuse []string
	for _, col := range p.ranges.Order {
		b, pv := res.Bounds[col], res.Provenance[col]
		req.Bounds[col] = b
		req.BoundsProvenance[col] = pv
		fmt.Fprintf(e.Stdout, "bounds of %s estimated privately: %s=%g:%g (quantiles %g and %g of [%g, %g], ε %.6g each)\n",
			col, col, b.Lo, b.Hi, pv.LoEstimate.Quantile, pv.HiEstimate.Quantile, pv.LoEstimate.RangeLo, pv.LoEstimate.RangeHi, pv.LoEstimate.Epsilon)
		reuse = append(reuse, fmt.Sprintf("%s=%g:%g", col, b.Lo, b.Hi))
	}
	fmt.Fprintf(e.Stdout, "ε spent on bounds: %.6g (ledger entry %s, kind %s)\n", res.Entry.Epsilon, res.Entry.ID, res.Entry.Kind)
	fmt.Fprintf(e.Stdout, "reuse without spending again: --bounds-estimated %s --bounds-entry %s\n", strings.Join(reuse, ","), res.Entry.ID)
	return nil
}
