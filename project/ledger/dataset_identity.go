package ledger

import (
	"bufio"
	"cmp"
	"container/heap"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// SketchSize is the number of keyed hashes kept in a dataset's bottom-k
// MinHash sketch. The estimated Jaccard similarity of two sketched datasets
// is a sample of SketchSize elements of their union drawn without
// replacement, so its standard deviation is at most
// sqrt(J(1−J)/SketchSize) ≤ 1/32 ≈ 0.031 (docs/ledger.md, "Near-duplicate
// datasets"). 256 hashes take 2 KiB per ledger dataset.
const SketchSize = 256

// NearDuplicateShare is the share of rows two datasets must have in common
// (of the smaller one; estimated from their sketches) for the release on
// one to be charged to the other's budget.
const NearDuplicateShare = 0.5

// recordsDomain separates the record fingerprint from any other SHA-256.
const recordsDomain = "bernstein dataset records v1\x00"

// DatasetIdentity identifies the records a release uses: the values of the
// used columns, independent of the file's formatting, its row order and its
// other columns. It is computed from private data and is kept only in the
// curator's ledger and sketch store, never in a synopsis.
type DatasetIdentity struct {
	// Columns are the used columns, sorted by name: the role of a column
	// (feature or label, axis order) does not change whose records they are.
	Columns []string
	// Records is the hex SHA-256 of the records: the domain tag, the column
	// names, n and the rows' canonical encodings in sorted order.
	Records string
	// FileHash is the SHA-256 of the file's bytes (Dataset.Hash), the
	// identity used by ledgers before records were (kept so that their
	// budgets still count).
	FileHash string
	// N is the number of rows.
	N int

	vals  [][]float64    // the columns' values (the Dataset's; private, never stored)
	order []int32        // row indexes in canonical order
	ds    *dataset.Table // the data, for projections onto other column sets

	mu        sync.Mutex
	sketchKey string // key id of the cached sketch
	sketch    Sketch
}

// IdentifyDataset computes the identity of ds restricted to columns (the
// features and the label of a release; duplicates ignored). Each row is
// encoded as the IEEE-754 bits of its values in sorted column order (−0
// read as +0), so "1", "1.0" and " 1e0 " are the same value; the encodings
// are sorted, so row order does not matter, and duplicate rows count as
// often as they occur. Memory: 4 bytes per row beyond the dataset; time:
// one sort of the rows.
func IdentifyDataset(ds *dataset.Table, columns []string) (*DatasetIdentity, error) {
	if ds == nil {
		return nil, errors.New("dataset: no dataset given")
	}
	cols := slices.Clone(columns)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	if len(cols) == 0 {
		return nil, errors.New("features: no columns to identify the dataset by")
	}
	vals := make([][]float64, len(cols))
	for j, c := range cols {
		v, err := ds.Column(c)
		if err != nil {
			return nil, err
		}
		if j > 0 && len(v) != len(vals[0]) {
			return nil, fmt.Errorf("%s: column %q has %d values, column %q %d", ds.Path, c, len(v), cols[0], len(vals[0]))
		}
		vals[j] = v
	}
	n := len(vals[0])
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d rows; at most %d can be identified", ds.Path, n, math.MaxInt32)
	}
	id := &DatasetIdentity{Columns: cols, FileHash: ds.Hash, N: n, vals: vals, ds: ds}
	id.order = make([]int32, n)
	for i := range id.order {
		id.order[i] = int32(i)
	}
	slices.SortFunc(id.order, id.compareRows)

	h := sha256.New()
	h.Write([]byte(recordsDomain))
	writeUvarint(h, uint64(len(cols)))
	for _, c := range cols {
		writeUvarint(h, uint64(len(c)))
		h.Write([]byte(c))
	}
	writeUvarint(h, uint64(n))
	bw := bufio.NewWriterSize(h, 64<<10)
	row := make([]byte, 8*len(cols))
	for _, i := range id.order {
		_, _ = bw.Write(id.encodeRow(row, i))
	}
	_ = bw.Flush()
	id.Records = hex.EncodeToString(h.Sum(nil))
	return id, nil
}

// canonicalBits returns the bits of x with −0 read as +0.
func canonicalBits(x float64) uint64 {
	if x == 0 {
		return 0
	}
	return math.Float64bits(x)
}

// compareRows orders rows by their canonical encodings (bytewise, i.e. by
// the big-endian bits column after column).
func (id *DatasetIdentity) compareRows(a, b int32) int {
	for _, v := range id.vals {
		if c := cmp.Compare(canonicalBits(v[a]), canonicalBits(v[b])); c != 0 {
			return c
		}
	}
	return 0
}

// encodeRow writes row i's canonical encoding into buf (8 bytes per column).
func (id *DatasetIdentity) encodeRow(buf []byte, i int32) []byte {
	for j, v := range id.vals {
		binary.BigEndian.PutUint64(buf[8*j:], canonicalBits(v[i]))
	}
	return buf
}

// project returns the identity of the same dataset restricted to other
// columns, or an error if the dataset does not hold them as numbers.
func (id *DatasetIdentity) project(columns []string) (*DatasetIdentity, error) {
	if id.ds == nil {
		return nil, fmt.Errorf("no dataset to project")
	}
	return IdentifyDataset(id.ds, columns)
}

func writeUvarint(w io.Writer, v uint64) {
	var b [binary.MaxVarintLen64]byte
	_, _ = w.Write(b[:binary.PutUvarint(b[:], v)])
}

// Sketch is a bottom-k MinHash sketch of a dataset's rows under a secret
// key: the SketchSize smallest keyed hashes of its elements, where the
// elements are the rows with their occurrence number (the multiset of rows
// as a set). A hash is the first 8 bytes of HMAC-SHA-256(key, row ‖
// occurrence): without the key it cannot be recomputed from a guessed row,
// so a sketch is no dictionary target.
type Sketch struct {
	N int // number of elements (rows)
	// Mins are the smallest distinct hashes, ascending: min(N, SketchSize)
	// of them (fewer only after a 64-bit collision).
	Mins []uint64
}

// Sketch computes the keyed sketch of the identity's rows (cached for the
// last key). Memory: O(SketchSize); time: one HMAC per row.
func (id *DatasetIdentity) Sketch(key []byte) Sketch {
	kid := sketchKeyID(key)
	id.mu.Lock()
	defer id.mu.Unlock()
	if id.sketchKey != kid {
		id.sketch = id.computeSketch(key)
		id.sketchKey = kid
	}
	return Sketch{N: id.sketch.N, Mins: slices.Clone(id.sketch.Mins)}
}

func (id *DatasetIdentity) computeSketch(key []byte) Sketch {
	mac := hmac.New(sha256.New, key)
	top := &maxHeap{}
	var occ [8]byte
	var sum []byte
	row := make([]byte, 8*len(id.vals))
	k := uint64(0)
	for n, i := range id.order {
		if n > 0 && id.compareRows(id.order[n-1], i) == 0 {
			k++
		} else {
			k = 0
		}
		binary.BigEndian.PutUint64(occ[:], k)
		mac.Reset()
		mac.Write(id.encodeRow(row, i))
		mac.Write(occ[:])
		sum = mac.Sum(sum[:0])
		h := binary.BigEndian.Uint64(sum)
		switch {
		case top.Len() < SketchSize:
			heap.Push(top, h)
		case h < (*top)[0]:
			(*top)[0] = h
			heap.Fix(top, 0)
		}
	}
	mins := slices.Clone(*top)
	slices.Sort(mins)
	return Sketch{N: id.N, Mins: slices.Compact(mins)}
}

// maxHeap is a max-heap of hashes (container/heap).
type maxHeap []uint64

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(uint64)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Overlap estimates the share of rows two sketched datasets have in
// common, as a fraction of the smaller one (1 if one is contained in the
// other). The Jaccard similarity J = |A∩B|/|A∪B| is estimated from the
// bottom-k sketch of the union (Broder 1997; Cohen & Kaplan 2007): the
// share of its hashes present in both sketches; then |A∩B| =
// J·(|A|+|B|)/(1+J). The estimate is exact when both datasets have at most
// SketchSize rows.
func (a Sketch) Overlap(b Sketch) float64 {
	if a.N == 0 || b.N == 0 {
		return 0
	}
	union, both := 0, 0
	i, j := 0, 0
	for union < SketchSize && (i < len(a.Mins) || j < len(b.Mins)) {
		switch {
		case j == len(b.Mins) || i < len(a.Mins) && a.Mins[i] < b.Mins[j]:
			i++
		case i == len(a.Mins) || b.Mins[j] < a.Mins[i]:
			j++
		default:
			both++
			i++
			j++
		}
		union++
	}
	if union == 0 {
		return 0
	}
	jac := float64(both) / float64(union)
	inter := jac * float64(a.N+b.N) / (1 + jac)
	return min(1, inter/float64(min(a.N, b.N)))
}
