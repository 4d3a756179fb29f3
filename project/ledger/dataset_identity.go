package ledger

import (
	"bufio"
	"bytes"
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
	"runtime"
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

// recordsDomain separates the record fingerprint from any other SHA-256;
// legacyRecordsDomain is the tag of the fingerprint of earlier versions
// (DatasetIdentity.Legacy).
const (
	recordsDomain       = "bernstein dataset records v2\x00"
	legacyRecordsDomain = "bernstein dataset records v1\x00"
)

// missingBits encodes a missing value (NaN: empty, not a number, or a label
// that is neither declared class), whatever fill rule a release uses.
const missingBits = 0x7FF8_0000_0000_0000

// textClassTag marks the encoding of a text class value: a negative NaN
// whose 51 low bits are a SHA-256 prefix of the text, so it is distinct
// from every number and from missingBits.
const textClassTag = 0xFFF8_0000_0000_0000

// DatasetIdentity identifies the records a release uses: the values of the
// used columns, independent of the file's formatting, its row order, its
// other columns, the columns' names and order, and the order in which the
// two classes of a label were declared. It is computed from private data
// and is kept only in the curator's ledger and sketch store, never in a
// synopsis.
type DatasetIdentity struct {
	// Columns are the used columns, sorted by name (recorded for the
	// curator; the fingerprint and the sketch do not depend on them).
	Columns []string
	// Records is the hex SHA-256 of the records: the domain tag, the
	// number of columns, n and the rows' canonical encodings (each row's
	// values sorted) in sorted order.
	Records string
	// Legacy are the fingerprints earlier versions computed for the same
	// request (domain tag v1, the column names and the rows' values in
	// column order, the label as the learner's ±1 in either declared
	// order): an entry keyed or identified by one of them is the same
	// records, so budgets in existing ledgers still count.
	Legacy []string
	// FileHash is the SHA-256 of the file's bytes (Dataset.Hash), the
	// identity used by ledgers before records were (kept so that their
	// budgets still count).
	FileHash string
	// N is the number of rows.
	N int

	rows        rowSet         // canonical values (private, never stored)
	ds          *dataset.Table // the data, for projections onto other column sets
	opt         IdentityOptions
	codes       []float64   // a declared label as ±1 (NaN missing), for Legacy
	legacyCodes [][]float64 // legacyLabels

	mu        sync.Mutex
	sketchKey string // key id of the cached sketch
	sketch    Sketch
}

// IdentityOptions say how a release reads the used columns.
type IdentityOptions struct {
	// Label and Classes are a binary label column and its declared
	// classes: each value is encoded as the declared class it matches
	// (dataset.Classes.Code), by the class's text or number, not by its
	// position, so swapping the declared order changes nothing; a value
	// matching neither is missing. Without Classes a column's values are
	// its numbers as read.
	Label   string
	Classes *dataset.Classes
	// LegacyTables are the tables whose used columns earlier versions
	// fingerprinted (the release's filled table, the table as read); nil
	// means the identified table. Tables lacking a used column are skipped.
	LegacyTables []*dataset.Table
	// LegacyFill, if not nil, adds before each legacy table's rows those
	// of the same table with the missing values (NaN) of these columns
	// replaced by their fill values: the rows of its
	// dataset.Table.WithFilled(LegacyFill), read in place instead of from
	// that copy (issue 20; a release's filled table, as Prepare hashed it).
	LegacyFill map[string]float64
}

// IdentifyDataset computes the identity of ds restricted to columns (the
// features and the label of a release; duplicates ignored), each read as
// numbers: IdentifyRecords without declared classes.
func IdentifyDataset(ds *dataset.Table, columns []string) (*DatasetIdentity, error) {
	return IdentifyRecords(ds, columns, IdentityOptions{})
}

// IdentifyRecords computes the identity of ds restricted to columns.
// Each value is encoded canonically in 8 bytes: a number as its IEEE-754
// bits (−0 read as +0), so "1", "1.0" and " 1e0 " are the same value; a
// missing value as one fixed NaN, whatever it is filled with; a declared
// class (opt) by its value, a number like a number and a text by a hash.
// A row is encoded as its values sorted, so the fingerprint depends on
// neither the columns' names nor their order (a renamed copy is the same
// records; values swapped between columns within a row are, too: the safe
// side). The encodings are sorted, so row order does not matter, and
// duplicate rows count as often as they occur. Memory: 4 bytes per row
// beyond the dataset for Records (kept for the sketch), 4 more while each
// of Legacy is computed (one at a time), and 40 more for a declared class
// column (its encoding and its earlier readings); time: one sort of the
// rows per fingerprint (sortRows: by buckets, in the cache).
func IdentifyRecords(ds *dataset.Table, columns []string, opt IdentityOptions) (*DatasetIdentity, error) {
	if ds == nil {
		return nil, errors.New("dataset: no dataset given")
	}
	cols := slices.Clone(columns)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	if len(cols) == 0 {
		return nil, errors.New("features: no columns to identify the dataset by")
	}
	rows := rowSet{cols: make([]idColumn, len(cols)), sorted: true}
	var codes []float64 // the label's ±1 (NaN missing), for Legacy
	for j, c := range cols {
		var err error
		if c == opt.Label && opt.Classes != nil {
			rows.cols[j].bits, codes, err = classColumn(ds, c, *opt.Classes)
		} else {
			rows.cols[j].f, err = ds.Column(c)
		}
		if err != nil {
			return nil, err
		}
		if n := rows.cols[j].len(); j > 0 && n != rows.cols[0].len() {
			return nil, fmt.Errorf("%s: column %q has %d values, column %q %d", ds.Path, c, n, cols[0], rows.cols[0].len())
		}
	}
	n := rows.cols[0].len()
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("%s: %d rows; at most %d can be identified", ds.Path, n, math.MaxInt32)
	}
	id := &DatasetIdentity{Columns: cols, FileHash: ds.Hash, N: n, ds: ds, opt: opt, codes: codes}
	if codes != nil {
		id.legacyLabels() // now: legacySketches may run on several goroutines
	}
	// The legacy fingerprints first, one sort at a time, each order dropped
	// after its fingerprint; then the records' order, which the identity
	// keeps for its sketch: one n-length order is held at a time.
	// The sorts share one scratch (sortScratch): the last takes its order.
	var legacy []string
	scratch := &sortScratch{}
	for _, v := range id.legacyVariants(cols) {
		v.scratch = scratch
		legacy = append(legacy, v.fingerprint(legacyRecordsDomain, cols)) // sorts the copy v
		scratch.order = v.order
	}
	rows.scratch = scratch
	id.Records = rows.fingerprint(recordsDomain, nil) // sorts rows
	rows.scratch = nil
	id.rows = rows
	for _, fp := range legacy {
		if fp != id.Records && !slices.Contains(id.Legacy, fp) {
			id.Legacy = append(id.Legacy, fp)
		}
	}
	return id, nil
}

// legacyVariants returns the rows earlier versions fingerprinted (version 1:
// values in column-name order, as stored in the table): of every legacy
// table (deduplicated), and with a declared label also with the label as
// the learner's ±1 in the declared order and in the other (what a release
// read with the classes declared hashed, whichever order was declared).
// Tables lacking a column are skipped. The rows are not yet sorted: the
// caller sorts each when it uses it, so one order is held at a time.
func (id *DatasetIdentity) legacyVariants(cols []string) []rowSet {
	tables := id.opt.LegacyTables
	if tables == nil {
		tables = []*dataset.Table{id.ds}
	}
	label := -1
	if id.codes != nil {
		label = slices.Index(cols, id.opt.Label)
	}
	var out []rowSet
	add := func(rs rowSet) {
		if !slices.ContainsFunc(out, func(o rowSet) bool { return sameColumns(o.cols, rs.cols) }) {
			out = append(out, rs)
		}
	}
	for _, t := range tables {
		if t == nil {
			continue
		}
		rs, ok := legacyRows(t, cols)
		if !ok {
			continue
		}
		views := []rowSet{rs}
		if id.opt.LegacyFill != nil {
			views = []rowSet{filledRows(rs, cols, id.opt.LegacyFill), rs}
		}
		for _, rs := range views {
			add(rs)
			if label < 0 {
				continue
			}
			for _, codes := range id.legacyLabels() {
				v := rowSet{cols: slices.Clone(rs.cols)}
				v.cols[label] = idColumn{f: codes}
				add(v)
			}
		}
	}
	return out
}

// filledRows returns rs with the missing values of the columns in fill
// read as their fill values (idColumn.fill), as in a dataset.Table's
// WithFilled(fill): a column without a missing value is left as it is (as
// WithFilled keeps it, so the rows are the same slices).
func filledRows(rs rowSet, cols []string, fill map[string]float64) rowSet {
	out := rowSet{cols: slices.Clone(rs.cols)}
	for j, c := range cols {
		if f, ok := fill[c]; ok && out.cols[j].f != nil && slices.ContainsFunc(out.cols[j].f, math.IsNaN) {
			out.cols[j].fill, out.cols[j].filled = f, true
		}
	}
	return out
}

// legacyLabels returns the readings of a declared label earlier versions
// hashed: the learner's ±1 in the declared order and in the other (NaN bits
// as read), and the curator window's reading before the classes were
// declared (a text class missing, a number class as its number; a value
// of neither class missing).
func (id *DatasetIdentity) legacyLabels() [][]float64 {
	if id.legacyCodes != nil {
		return id.legacyCodes
	}
	n := len(id.codes)
	neg, window := make([]float64, n), make([]float64, n)
	c := *id.opt.Classes
	read := func(v string) float64 {
		if x, err := dataset.ParseNumber(v); err == nil {
			return x
		}
		return math.NaN()
	}
	nv, pv := read(c.Negative), read(c.Positive)
	for i, x := range id.codes {
		neg[i], window[i] = x, x // NaN stays as read
		switch {
		case x < 0:
			neg[i], window[i] = 1, nv
		case x > 0:
			neg[i], window[i] = -1, pv
		}
	}
	id.legacyCodes = [][]float64{id.codes, neg, window}
	return id.legacyCodes
}

// legacyRows returns t's columns cols as stored, in name order (rows not
// yet sorted); false if t lacks one of them as numbers.
func legacyRows(t *dataset.Table, cols []string) (rowSet, bool) {
	rs := rowSet{cols: make([]idColumn, len(cols))}
	for j, c := range cols {
		v, err := t.Column(c)
		if err != nil || j > 0 && len(v) != len(rs.cols[0].f) || len(v) > math.MaxInt32 {
			return rowSet{}, false
		}
		rs.cols[j].f = v
	}
	return rs, true
}

// sameColumns reports whether a and b are the same slices of values, read
// with the same fill.
func sameColumns(a, b []idColumn) bool {
	return slices.EqualFunc(a, b, func(x, y idColumn) bool {
		return len(x.f) == len(y.f) && (len(x.f) == 0 || &x.f[0] == &y.f[0]) &&
			x.filled == y.filled && (!x.filled || math.Float64bits(x.fill) == math.Float64bits(y.fill))
	})
}

// Fingerprints returns Records and the Legacy fingerprints: an entry keyed
// or identified by any of them holds the same records.
func (id *DatasetIdentity) Fingerprints() []string {
	return append([]string{id.Records}, id.Legacy...)
}

// classColumn encodes the label column col by the declared classes c:
// each value as the class it matches (classBits), missingBits otherwise.
// The table is read again with c declared when needed (dataset
// WithClasses); the values are matched as a release matches them
// (DeclaredLabels, once with each fill class: a value filled by both is
// missing).
// It also returns the learner's labels (−1, +1, NaN for missing), which
// earlier versions hashed.
func classColumn(ds *dataset.Table, col string, c dataset.Classes) ([]uint64, []float64, error) {
	lds, err := ds.WithClasses(col, c)
	if err != nil {
		return nil, nil, err
	}
	neg, _, err := lds.DeclaredLabels(col, c, -1)
	if err != nil {
		return nil, nil, err
	}
	pos, _, err := lds.DeclaredLabels(col, c, 1)
	if err != nil {
		return nil, nil, err
	}
	nb, pb := classBits(c.Negative), classBits(c.Positive)
	out := make([]uint64, len(neg))
	for i := range out {
		switch {
		case neg[i] != pos[i]:
			out[i], neg[i] = missingBits, math.NaN()
		case neg[i] < 0:
			out[i] = nb
		default:
			out[i] = pb
		}
	}
	return out, neg, nil
}

// classBits encodes a declared class value: a number (dataset.ParseNumber)
// as a number, so "1" and "1.0" and a column read as numbers agree, a text
// as textClassTag and the first 51 bits of SHA-256("bernstein class\0" ‖
// text).
func classBits(v string) uint64 {
	if x, err := dataset.ParseNumber(v); err == nil {
		return canonicalBits(x)
	}
	h := sha256.Sum256([]byte("bernstein class\x00" + v))
	return textClassTag | binary.BigEndian.Uint64(h[:])>>13
}

// canonicalBits returns the bits of x with −0 read as +0 and every NaN (a
// missing value) as missingBits.
func canonicalBits(x float64) uint64 {
	switch {
	case x == 0:
		return 0
	case x != x:
		return missingBits
	}
	return math.Float64bits(x)
}

// idColumn is one used column: numbers as read (f) or encoded values
// (bits, a declared class column). With filled, a missing value (NaN) of
// f is read as fill (the rows of a filled table, without its copy).
type idColumn struct {
	f      []float64
	bits   []uint64
	fill   float64
	filled bool
}

func (c idColumn) len() int {
	if c.bits != nil {
		return len(c.bits)
	}
	return len(c.f)
}

func (c idColumn) at(i int32) uint64 {
	if c.bits != nil {
		return c.bits[i]
	}
	x := c.f[i]
	if x != x && c.filled {
		x = c.fill
	}
	return canonicalBits(x)
}

// atV1 is the version-1 encoding: the bits with −0 read as +0 (a NaN's
// bits as they are).
func (c idColumn) atV1(i int32) uint64 {
	x := c.f[i]
	if x != x && c.filled {
		x = c.fill
	}
	if x != 0 {
		return math.Float64bits(x)
	}
	return 0
}

// maxStackColumns is the row width whose sorted encoding compareRows
// builds on the stack.
const maxStackColumns = 16

// rowSet is the rows of some columns in a canonical order. sorted rows
// (version 2) are encoded as their values sorted (idColumn.at); unsorted
// (version 1, float columns only) as their values in column order
// (idColumn.atV1).
type rowSet struct {
	cols   []idColumn
	sorted bool
	order  []int32 // row indexes in canonical order
	// scratch, if set, lends sortRowsEmit its buffers (one sort at a time).
	scratch *sortScratch
}

// row writes row i's encoding, one uint64 per column, into dst.
func (r *rowSet) row(dst []uint64, i int32) []uint64 {
	dst = dst[:0]
	for _, c := range r.cols {
		if r.sorted {
			dst = append(dst, c.at(i))
		} else {
			dst = append(dst, c.atV1(i))
		}
	}
	if r.sorted {
		slices.Sort(dst)
	}
	return dst
}

// compareRows orders rows by their encodings (bytewise, i.e. by the
// big-endian values one after the other).
func (r *rowSet) compareRows(a, b int32) int {
	if !r.sorted {
		for _, c := range r.cols {
			if d := cmp.Compare(c.atV1(a), c.atV1(b)); d != 0 {
				return d
			}
		}
		return 0
	}
	var sa, sb [maxStackColumns]uint64
	var ra, rb []uint64
	if len(r.cols) <= maxStackColumns {
		ra, rb = r.row(sa[:0], a), r.row(sb[:0], b)
	} else {
		ra, rb = r.row(nil, a), r.row(nil, b)
	}
	return slices.Compare(ra, rb)
}

// encodeRow writes row i's canonical encoding into buf (8 bytes per column).
func (r *rowSet) encodeRow(buf []byte, tmp []uint64, i int32) []byte {
	for j, v := range r.row(tmp, i) {
		binary.BigEndian.PutUint64(buf[8*j:], v)
	}
	return buf
}

// fingerprint hashes the domain tag, then (version 1, names given) the
// column names or (version 2) the number of columns, n and the sorted rows.
// Rows not yet sorted (r.order nil) are sorted here, and hashed as each
// bucket is sorted (sortRowsEmit), in one pass.
func (r *rowSet) fingerprint(domain string, names []string) string {
	h := sha256.New()
	h.Write([]byte(domain))
	writeUvarint(h, uint64(len(r.cols)))
	for _, c := range names {
		writeUvarint(h, uint64(len(c)))
		h.Write([]byte(c))
	}
	writeUvarint(h, uint64(r.cols[0].len()))
	bw := bufio.NewWriterSize(h, 64<<10)
	row := make([]byte, 8*len(r.cols))
	emit := func(enc []uint64) {
		for j, v := range enc {
			binary.BigEndian.PutUint64(row[8*j:], v)
		}
		_, _ = bw.Write(row)
	}
	if r.order == nil {
		r.sortRowsEmit(emit)
	} else {
		tmp := make([]uint64, 0, len(r.cols))
		for _, i := range r.order {
			emit(r.row(tmp, i))
		}
	}
	_ = bw.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// project returns the identity of the same dataset restricted to other
// columns (read as this identity's), or an error if the dataset does not
// hold them.
func (id *DatasetIdentity) project(columns []string) (*DatasetIdentity, error) {
	if id.ds == nil {
		return nil, fmt.Errorf("no dataset to project")
	}
	opt := id.opt
	opt.LegacyTables, opt.LegacyFill = []*dataset.Table{}, nil
	return IdentifyRecords(id.ds, columns, opt)
}

// legacySketches returns the version-1 fingerprints and sketches of
// columns (by name) of the rows earlier versions hashed (legacyVariants),
// for comparison with version-1 sketch-store lines; none if the tables
// lack a column.
func (id *DatasetIdentity) legacySketches(columns []string, key []byte) []legacySketch {
	var out []legacySketch
	for _, v := range id.legacyVariants(columns) {
		fp := v.fingerprint(legacyRecordsDomain, columns) // sorts the copy v
		out = append(out, legacySketch{fp: fp, s: v.sketch(key, 1)})
	}
	return out
}

// legacySketch is a version-1 fingerprint and sketch.
type legacySketch struct {
	fp string
	s  Sketch
}

func writeUvarint(w io.Writer, v uint64) {
	var b [binary.MaxVarintLen64]byte
	_, _ = w.Write(b[:binary.PutUvarint(b[:], v)])
}

// Sketch is a bottom-k MinHash sketch of a dataset's rows under a secret
// key: the SketchSize smallest keyed hashes of its elements, where the
// elements are the rows with their occurrence number (the multiset of rows
// as a set). A hash is the first 8 bytes of HMAC-SHA-256(key, "v2" ‖ row
// ‖ occurrence), the row canonically encoded with its values sorted
// (version 1: HMAC-SHA-256(key, row ‖ occurrence), values in column
// order; see rowSet.sketch): without the key it cannot be recomputed from a guessed row,
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
		id.sketch = id.rows.sketch(key, SketchStoreVersion)
		id.sketchKey = kid
	}
	return Sketch{N: id.sketch.N, Mins: slices.Clone(id.sketch.Mins)}
}

// sketch computes the bottom-k sketch of the rows. Version 2 hashes
// HMAC(key, "v2" ‖ row ‖ occurrence), version 1 (older sketch stores)
// HMAC(key, row ‖ occurrence).
func (r *rowSet) sketch(key []byte, version int) Sketch {
	// The rows are hashed in parts on GOMAXPROCS goroutines; the SketchSize
	// smallest hashes of all rows are the SketchSize smallest of the parts'.
	n := len(r.order)
	parts := max(1, min(runtime.GOMAXPROCS(0), n/sketchPartRows))
	tops := make([]maxHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { tops[p] = r.sketchRange(key, version, p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
	var mins []uint64
	for _, t := range tops {
		mins = append(mins, t...)
	}
	slices.Sort(mins)
	mins = mins[:min(len(mins), SketchSize)]
	return Sketch{N: n, Mins: slices.Compact(mins)}
}

// sketchRange returns the SketchSize smallest keyed hashes of the rows at
// r.order[lo:hi] (a row's occurrence number counts the equal rows before
// it in the whole order).
func (r *rowSet) sketchRange(key []byte, version int, lo, hi int) maxHeap {
	mac := hmac.New(sha256.New, key)
	top := &maxHeap{}
	var occ [8]byte
	var sum []byte
	w := 8 * len(r.cols)
	prev := make([]byte, w)
	block := make([]byte, sketchBlock*w)
	tmp := make([]uint64, 0, len(r.cols))
	k := uint64(0)
	if lo > 0 { // the row before lo and its occurrence number
		r.encodeRow(prev, tmp, r.order[lo-1])
		other := make([]byte, w)
		for j := lo - 2; j >= 0 && bytes.Equal(r.encodeRow(other, tmp, r.order[j]), prev); j-- {
			k++
		}
	}
	for start := lo; start < hi; start += sketchBlock {
		// A block of rows is read first (the rows are in sorted, not
		// memory, order: independent loads overlap their cache misses),
		// then hashed.
		rows := r.order[start:min(start+sketchBlock, hi)]
		for t, i := range rows {
			r.encodeRow(block[t*w:(t+1)*w], tmp, i)
		}
		for t := range rows {
			// Equal rows have equal encodings: the previous one is compared.
			row := block[t*w : (t+1)*w]
			if start+t > 0 && bytes.Equal(row, prev) {
				k++
			} else {
				k = 0
			}
			copy(prev, row)
			binary.BigEndian.PutUint64(occ[:], k)
			mac.Reset()
			if version >= 2 {
				mac.Write([]byte("v2"))
			}
			mac.Write(row)
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
	}
	return *top
}

// sketchBlock is the number of rows rowSet.sketch reads before hashing
// them; sketchPartRows the fewest rows it hashes on a goroutine of their
// own
// (sketchPartRows: a variable for the test of the parts).
const sketchBlock = 256

var sketchPartRows = 1 << 16

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
