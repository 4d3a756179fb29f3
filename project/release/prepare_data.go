package release

import (
	"sync"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// materializedData is the copy with X of a Prepared's Source dataset,
// made once (LearnerData).
type materializedData struct {
	once sync.Once
	data learners.Dataset
}

// mapFeatures sets p.Data's features: the table's feature columns, their
// missing values read as their fill values (fill), mapped to [0,1]^ℓ by
// the public bounds, and p.Clipped. A learner that reads the
// records in place (learners.ReadsSource: the KDE) gets them as a
// dataset.MappedRows over the table's columns, mapped chunk by chunk as it
// reads them; the others get the mapped copy (the same rows). The values are
// the same bit for bit (one mapping rule), so is the fit: the Source only
// spares the n·ℓ copy (issue 20: 160 MB at 10⁷ × 2).
func (p *Prepared) mapFeatures(ds *dataset.Table, bounds []dataset.Bounds, fill map[string]float64) error {
	features := p.Request.Features
	src, clipped, err := ds.MappedRows(features, bounds, fill)
	if err != nil {
		return err
	}
	p.Data = learners.Dataset{Dim: len(features), Source: src}
	if learners.ReadsSource(p.Spec.Kind) {
		p.materialized = &materializedData{}
	} else {
		p.Data = p.Data.Materialized()
	}
	for j, col := range features {
		p.Clipped[col] = clipped[j]
	}
	return nil
}

// LearnerData returns the dataset as the learner saw it, with its features
// in X: p.Data, or, when the learner read them in place (p.Data.Source),
// a mapped copy made on the first call and kept (n·ℓ values: what the
// previews, the choice of settings and the peers read). The plain release
// (Prepare, Release with the Bernstein mechanism) never calls it.
func (p *Prepared) LearnerData() learners.Dataset {
	if p.Data.Source == nil || p.materialized == nil {
		return p.Data.Materialized()
	}
	m := p.materialized
	m.once.Do(func() { m.data = p.Data.Materialized() })
	return m.data
}
