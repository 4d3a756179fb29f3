package release

import (
	"errors"
	"slices"
	"sync"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// usedColumns returns the columns a release request uses: its features and
// its label (if any).
func usedColumns(req Request) []string {
	cols := slices.Clone(req.Features)
	if req.Label != "" {
		cols = append(cols, req.Label)
	}
	return cols
}

// lazyIdentity computes a Prepared's DatasetIdentity once, on first use.
type lazyIdentity struct {
	req  Request
	fill map[string]float64 // the fill values (the filled table's legacy fingerprint)
	once sync.Once
	id   *ledger.DatasetIdentity
	err  error
}

// Identity returns the identity of the records the release uses (its
// features and label), computed on the first call (one sort of the rows).
// It is private data, for the local ledger and sketch store only.
func (p *Prepared) Identity() (*ledger.DatasetIdentity, error) {
	if p.identity == nil && p.aggregates == nil {
		return nil, errors.New("release: nothing prepared; call Prepare first")
	}
	if p.aggregates != nil {
		return nil, errors.New("release: a release from aggregates has no records to identify; it is charged to the ledger dataset the curator declares (Aggregates.Dataset)")
	}
	li := p.identity
	li.once.Do(func() { li.id, li.err = identify(li.req, li.fill) })
	return li.id, li.err
}

// Identify returns the identity of the records a release of req would be
// charged for, without fitting anything: the same as (*Prepared).Identity
// of Prepare(req) (one path: the curator's release dialog shows the
// finding of the identity the release is charged by). It checks the
// request's public settings and fill rules first, as Prepare does.
func Identify(req Request) (*ledger.DatasetIdentity, error) {
	if req.Aggregates != nil {
		return nil, errors.New("release: a release from aggregates has no records to identify; it is charged to the ledger dataset the curator declares (Aggregates.Dataset)")
	}
	if req.Dataset == nil {
		return nil, reqErr("dataset", "no dataset given")
	}
	_, _, pub, err := preparePublic(req)
	if err != nil {
		return nil, err
	}
	fill, _, _, err := fillData(req, pub.used, pub.bounds)
	if err != nil {
		return nil, err
	}
	return identify(req, fill)
}

// identify is the one identity path of a release from the records: the
// used columns of the table as read (missing values as missing, not
// filled), a binary label by its declared classes' values (not their
// order), and the fingerprints earlier versions computed (from the filled
// table, as Prepare hashed it — the table as read with fill's values for
// its missing ones, read in place — and the table as read) so that
// budgets of existing ledgers still count.
func identify(req Request, fill map[string]float64) (*ledger.DatasetIdentity, error) {
	opt := ledger.IdentityOptions{LegacyTables: []*dataset.Table{req.Dataset}, LegacyFill: fill}
	if req.Classes != nil && req.Label != "" {
		opt.Label, opt.Classes = req.Label, req.Classes
	}
	return ledger.IdentifyRecords(req.Dataset, usedColumns(req), opt)
}

// reserve records the release's spend in the ledger before anything is
// published: for the records, on every ledger dataset they belong to
// (ledger.ReserveByIdentity); for aggregates, on the dataset the curator
// declared (Aggregates.Dataset). It returns the entries recorded, the one
// whose budget is shown first, and the identity finding (nil for
// aggregates).
func (p *Prepared) reserve(opt Options, e ledger.Entry) ([]ledger.Entry, *ledger.IdentityFinding, error) {
	if p.aggregates != nil {
		if opt.DifferentPopulation {
			return nil, nil, errDifferentPopulation
		}
		entries, err := p.aggregates.reserve(opt.Ledger, e, opt.AllowOverBudget)
		return entries, nil, err
	}
	id, err := p.Identity()
	if err != nil {
		return nil, nil, err
	}
	e.DatasetPath = absPath(p.Request.Dataset.Path)
	return ledger.ReserveByIdentity(opt.Ledger, id, e, opt.AllowOverBudget, opt.DifferentPopulation)
}

// errDifferentPopulation refuses the declaration "different population"
// for a release from aggregates, which has no near-duplicates to declare.
var errDifferentPopulation = reqErr("different population", "applies to a release from the records (near-duplicate datasets found by their rows); "+
	"a release from aggregates is charged to the dataset it names")

// LedgerDatasets returns the ledger datasets a release of p would be
// charged to (the one whose budget is shown first) and a sentence for the
// curator (never for standard output: for the records it is derived from
// them). For the records it is ledger.FindDataset's finding; for
// aggregates the dataset the curator declared (Aggregates.Dataset). It
// only reads; Release repeats the lookup, authoritatively.
func (p *Prepared) LedgerDatasets(l *ledger.Ledger, differentPopulation bool) ([]string, string, error) {
	if p.aggregates != nil {
		if differentPopulation {
			return nil, "", errDifferentPopulation
		}
		if err := l.Refresh(); err != nil {
			return nil, "", err
		}
		h, how, err := p.aggregates.resolve(l)
		if err != nil {
			return nil, "", err
		}
		return []string{h}, how, nil
	}
	id, err := p.Identity()
	if err != nil {
		return nil, "", err
	}
	found, err := ledger.FindDataset(l, id, differentPopulation)
	if err != nil {
		return nil, "", err
	}
	var hashes []string
	for _, m := range found.Charges {
		hashes = append(hashes, m.DatasetHash)
	}
	return hashes, found.Describe(), nil
}
