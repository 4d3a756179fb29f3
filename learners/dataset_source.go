package learners

import "fmt"

// RecordSource supplies a dataset's features, mapped to [0,1]^ℓ, a range
// of records at a time: what a learner reads when the records are too many
// to copy (issue 20: a 10⁷-row release would otherwise hold the table as
// read and a mapped n·ℓ copy at once). Every call for the same range
// writes the same values: those the mapped copy X would hold, bit for bit
// (project/dataset MappedRows maps with MapToUnit's rule).
type RecordSource interface {
	// Len is the number of records n.
	Len() int
	// Records writes records [lo, hi) row-major into dst (len(dst) ≥
	// (hi−lo)·ℓ): record lo+i is dst[i*ℓ : (i+1)*ℓ]. 0 ≤ lo ≤ hi ≤ n.
	// It is called from several goroutines at once (EvalGrid's workers).
	Records(dst []float64, lo, hi int)
}

// sourceChunk is the number of records read from a RecordSource at a time
// where no other chunking applies (Materialized, the checks, Eval).
const sourceChunk = 1024

// Materialized returns d with its features in X: d itself if it has no
// Source, else a copy with X read from the Source (n·ℓ values) and Source
// nil. It is what a learner or a caller that reads X directly needs.
func (d Dataset) Materialized() Dataset {
	if d.Source == nil {
		return d
	}
	n := d.Source.Len()
	x := make([]float64, n*d.Dim)
	for lo := 0; lo < n; lo += sourceChunk {
		hi := min(lo+sourceChunk, n)
		d.Source.Records(x[lo*d.Dim:hi*d.Dim], lo, hi)
	}
	return Dataset{Dim: d.Dim, X: x, Labels: d.Labels}
}

// ReadsSource reports whether the Fit of learner k reads a Dataset's Source in place
// (without an n·ℓ copy); the others need X (Dataset.Materialized). Only
// the KDE does: its oracle reads the records in chunks (EvalGrid).
func ReadsSource(k Kind) bool {
	return k == KindKDE
}

// eachRecordChunk calls f with consecutive chunks of the records of d
// (row-major, the record index of the chunk's first): from X in place, or
// read from the Source into one buffer.
func eachRecordChunk(d Dataset, f func(first int, x []float64) error) error {
	if d.Source == nil {
		return f(0, d.X)
	}
	n := d.Source.Len()
	buf := make([]float64, sourceChunk*d.Dim)
	for lo := 0; lo < n; lo += sourceChunk {
		hi := min(lo+sourceChunk, n)
		x := buf[:(hi-lo)*d.Dim]
		d.Source.Records(x, lo, hi)
		if err := f(lo, x); err != nil {
			return err
		}
	}
	return nil
}

// checkSource refuses a dataset given as a Source to a learner that
// reads X (ReadsSource false): the one home of that rule for every Fit.
func checkSource(k Kind, d Dataset) error {
	if d.Source != nil && !ReadsSource(k) {
		return fmt.Errorf("%s: dataset given as a record source; this learner reads the mapped features (Dataset.Materialized)", k)
	}
	return nil
}
