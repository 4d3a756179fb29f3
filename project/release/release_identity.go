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
	ds      *dataset.Table
	columns []string
	once    sync.Once
	id      *ledger.DatasetIdentity
	err     error
}

// Identity returns the identity of the records the release uses (its
// features and label), computed on the first call (one sort of the rows).
// It is private data, for the local ledger and sketch store only.
func (p *Prepared) Identity() (*ledger.DatasetIdentity, error) {
	if p.identity == nil {
		return nil, errors.New("release: nothing prepared; call Prepare first")
	}
	li := p.identity
	li.once.Do(func() { li.id, li.err = ledger.IdentifyDataset(li.ds, li.columns) })
	return li.id, li.err
}
