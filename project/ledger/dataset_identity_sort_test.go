package ledger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRowsSameAsComparisonSort checks that the bucketed sort of
// sortRowsEmit (through fingerprint) puts the rows' encodings in the order of a plain comparison sort
// by compareRows (hence the same fingerprint and sketch), for version-2
// (values sorted within a row) and version-1 rows, on data with negative
// numbers, −0, NaN, duplicate rows (also in long runs) and one dominant
// bucket, with buckets gathered and (maxGatherValues lowered) sorted in
// place; and that the keyed sketch, hashed in one part or in GOMAXPROCS
// parts, is the plain computation's (referenceSketch).
func TestSortRowsSameAsComparisonSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4)) // seeded: test data only
	const n = 3 * radixMinRows
	value := func(kind int) float64 {
		switch r := rng.IntN(20); {
		case r == 0:
			return math.NaN()
		case r == 1:
			return math.Copysign(0, -1)
		case r < 4:
			return float64(rng.IntN(3)) // duplicates
		case kind == 1:
			return 1 + rng.Float64()/1e6 // one bucket: same leading bits
		case kind == 2:
			return float64(rng.IntN(2)) // long runs of equal rows
		}
		return rng.NormFloat64() * 4
	}
	for _, limit := range []int{maxGatherValues, 64} {
		for _, sorted := range []bool{true, false} {
			for kind := range 3 {
				old := maxGatherValues
				maxGatherValues = limit
				cols := make([]idColumn, 3)
				for j := range cols {
					cols[j].f = make([]float64, n)
					for i := range cols[j].f {
						cols[j].f[i] = value(kind)
					}
				}
				got := rowSet{cols: cols, sorted: sorted}
				gotFP := got.fingerprint(recordsDomain, nil) // sorts got
				maxGatherValues = old
				want := rowSet{cols: cols, sorted: sorted, order: make([]int32, n)}
				for i := range want.order {
					want.order[i] = int32(i)
				}
				slices.SortFunc(want.order, want.compareRows)
				if !slices.IsSortedFunc(got.order, got.compareRows) {
					t.Fatalf("limit %d, sorted %v, kind %d: rows not in order", limit, sorted, kind)
				}
				seen := make([]bool, n)
				for _, i := range got.order {
					if seen[i] {
						t.Fatalf("limit %d, sorted %v, kind %d: row %d twice", limit, sorted, kind, i)
					}
					seen[i] = true
				}
				if g, w := gotFP, want.fingerprint(recordsDomain, nil); g != w {
					t.Errorf("limit %d, sorted %v, kind %d: fingerprint %s, comparison sort %s", limit, sorted, kind, g, w)
				}
				key := []byte("sketch key for the test")
				for version := 1; version <= 2; version++ {
					w := referenceSketch(&want, key, version)
					for _, part := range []int{sketchPartRows, 1000} { // one part, or GOMAXPROCS parts
						old := sketchPartRows
						sketchPartRows = part
						g := got.sketch(key, version)
						sketchPartRows = old
						if !slices.Equal(g.Mins, w) || g.N != n {
							t.Errorf("limit %d, sorted %v, kind %d, version %d, parts of %d rows: sketches differ", limit, sorted, kind, version, part)
						}
					}
				}
			}
		}
	}
}

// referenceSketch is rowSet.sketch written plainly: every row's keyed hash
// with its occurrence number (equal rows by compareRows), the SketchSize
// smallest distinct ones.
func referenceSketch(r *rowSet, key []byte, version int) []uint64 {
	var all []uint64
	k := uint64(0)
	for n, i := range r.order {
		if n > 0 && r.compareRows(r.order[n-1], i) == 0 {
			k++
		} else {
			k = 0
		}
		msg := r.encodeRow(make([]byte, 8*len(r.cols)), nil, i)
		if version >= 2 {
			msg = append([]byte("v2"), msg...)
		}
		msg = binary.BigEndian.AppendUint64(msg, k)
		mac := hmac.New(sha256.New, key)
		mac.Write(msg)
		all = append(all, binary.BigEndian.Uint64(mac.Sum(nil)))
	}
	slices.Sort(all)
	all = slices.Compact(all)
	return all[:min(len(all), SketchSize)]
}

// BenchmarkIdentitySortSketch measures what the ledger's identity costs a
// release of 2·10⁶ rows in 2 columns of 4-decimal normal values (the
// shape of TestReleaseScale's data): the record fingerprint (one sort) and
// the keyed sketch (one HMAC per row).
func BenchmarkIdentitySortSketch(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6)) // seeded: test data only
	const n = 2_000_000
	cols := make([]idColumn, 2)
	for j := range cols {
		cols[j].f = make([]float64, n)
		for i := range cols[j].f {
			cols[j].f[i] = math.Round(rng.NormFloat64()*1e4) / 1e4
		}
	}
	key := make([]byte, sketchKeyBytes)
	for b.Loop() {
		r := rowSet{cols: cols, sorted: true}
		r.fingerprint(recordsDomain, nil)
		if s := r.sketch(key, 2); len(s.Mins) != SketchSize {
			b.Fatalf("%d hashes", len(s.Mins))
		}
	}
}
