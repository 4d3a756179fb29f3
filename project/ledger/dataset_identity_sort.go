package ledger

import (
	"math/bits"
	"slices"
)

// Sorting the rows of a large dataset (issue 20). A comparison sort of the
// row indexes reads two rows at random places of the columns per
// comparison: about n·log₂ n cache misses, 41 s of a 10⁷-row release. The
// rows are first distributed by the top bucketBits bits of their first
// encoded value (two sequential passes over the rows), and each bucket is
// then sorted on a gathered copy of its encodings, which fits in the cache.
// Rows that compare equal have the same encoding, so the fingerprint and
// the sketch (which read only the encodings in order) are those of any
// other sort of the rows.
const (
	// bucketBits is the number of leading bits of a row's first encoded
	// value that choose its bucket (counts: 4 bytes per bucket).
	bucketBits = 16
	// radixMinRows is the row count below which the comparison sort is used
	// directly.
	radixMinRows = 1 << 12
)

// maxGatherValues bounds the encodings gathered for one bucket (8 bytes
// each, 8 MiB); a larger bucket (many rows sharing their leading bits) is
// sorted by compareRows, without extra memory. A variable for the test of
// that branch.
var maxGatherValues = 1 << 20

// sortRowsEmit puts the row indexes in canonical order (r.order): by their
// encodings, compared as compareRows does; emit receives the encodings in
// that order (the slice is reused). Memory: 4 bytes per row
// for the order, plus at most maxGatherValues encodings and 4·2^bucketBits
// bytes.
func (r *rowSet) sortRowsEmit(emit func(enc []uint64)) {
	n := r.cols[0].len()
	w := len(r.cols)
	tmp := make([]uint64, 0, w)
	emitRows := func(seg []int32) {
		for _, i := range seg {
			emit(r.row(tmp, i))
		}
	}
	sc := r.scratch
	if sc == nil {
		sc = &sortScratch{}
	}
	r.order = sc.takeOrder(n)
	if n < radixMinRows {
		for i := range r.order {
			r.order[i] = int32(i)
		}
		slices.SortFunc(r.order, r.compareRows)
		emitRows(r.order)
		return
	}
	start := make([]int32, 1<<bucketBits+1)
	for i := range int32(n) {
		start[r.row(tmp, i)[0]>>(64-bucketBits)+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	next := slices.Clone(start[:1<<bucketBits])
	for i := range int32(n) {
		b := r.row(tmp, i)[0] >> (64 - bucketBits)
		r.order[next[b]] = i
		next[b]++
	}
	// The gathering buffers at the size of the largest gathered bucket.
	g := &sc.g
	most := 0
	for b := range 1 << bucketBits {
		if m := int(start[b+1] - start[b]); m*w <= maxGatherValues {
			most = max(most, m)
		}
	}
	g.enc, g.perm, g.rows = slices.Grow(g.enc[:0], most*w), slices.Grow(g.perm[:0], most), slices.Grow(g.rows[:0], most)
	for b := range 1 << bucketBits {
		seg := r.order[start[b]:start[b+1]]
		switch {
		case len(seg) < 2:
			emitRows(seg)
		case len(seg)*w > maxGatherValues:
			slices.SortFunc(seg, r.compareRows)
			emitRows(seg)
		default:
			g.sort(r, seg)
			for _, p := range g.perm {
				emit(g.enc[int(p)*w : int(p+1)*w])
			}
		}
	}
}

// sortScratch is the memory of one sort that the next may reuse: an
// order no longer needed (the previous sort's, once hashed) and the
// gathering buffers.
type sortScratch struct {
	order []int32
	g     gathered
}

// takeOrder returns n int32s for an order: the scratch's if large enough
// (it is then no longer the scratch's), new ones otherwise.
func (sc *sortScratch) takeOrder(n int) []int32 {
	o := sc.order
	sc.order = nil
	if cap(o) < n {
		return make([]int32, n)
	}
	return o[:n]
}

// gathered holds one bucket's row encodings (w values per row) and the
// scratch space of its sort, reused from bucket to bucket.
type gathered struct {
	enc  []uint64
	perm []int32
	rows []int32
	next []int32 // counting sort: counts, then run ends
}

// sort orders seg (row indexes of r) by their encodings, read once into
// g.enc: first by a counting sort on the next bits of the first value
// after the bucket's (about log₂ m of them, so the runs are short), then
// each run by comparison.
func (g *gathered) sort(r *rowSet, seg []int32) {
	w := len(r.cols)
	m := len(seg)
	g.enc = slices.Grow(g.enc[:0], m*w)[:m*w]
	for t, i := range seg {
		r.row(g.enc[t*w:t*w], i)
	}
	enc := g.enc
	digitBits := min(16, bits.Len(uint(m)))
	shift := 64 - bucketBits - digitBits
	mask := uint64(1)<<digitBits - 1
	g.next = slices.Grow(g.next[:0], 1<<digitBits)[:1<<digitBits]
	clear(g.next)
	for t := range m {
		g.next[enc[t*w]>>shift&mask]++
	}
	sum := int32(0)
	for d, c := range g.next {
		g.next[d] = sum
		sum += c
	}
	g.perm = slices.Grow(g.perm[:0], m)[:m]
	for t := range m {
		d := enc[t*w] >> shift & mask
		g.perm[g.next[d]] = int32(t)
		g.next[d]++
	}
	cmpRows := func(a, b int32) int {
		i, j := int(a)*w, int(b)*w
		if x, y := enc[i], enc[j]; x != y { // decides nearly every comparison
			if x < y {
				return -1
			}
			return 1
		}
		return slices.Compare(enc[i+1:i+w], enc[j+1:j+w])
	}
	lo := int32(0)
	for _, hi := range g.next { // g.next[d] is now the end of digit d's run
		if hi-lo > 1 {
			slices.SortFunc(g.perm[lo:hi], cmpRows)
		}
		lo = hi
	}
	g.rows = append(g.rows[:0], seg...)
	for t, p := range g.perm {
		seg[t] = g.rows[p]
	}
}
