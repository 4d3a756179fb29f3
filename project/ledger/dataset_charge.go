package ledger

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MatchKind says how a release's records were matched to a ledger dataset.
type MatchKind string

const (
	// MatchNew: no ledger dataset holds these records; the release opens a
	// new one, keyed by the record fingerprint.
	MatchNew MatchKind = "new"
	// MatchRecords: the same records (same values in the same columns, in
	// any file format and row order) were charged to this ledger dataset.
	MatchRecords MatchKind = "records"
	// MatchFile: the same file bytes were charged to this ledger dataset
	// (by an older version keyed on the file hash, or with other columns).
	MatchFile MatchKind = "file"
	// MatchNearDuplicate: at least NearDuplicateShare of the rows (of the
	// smaller dataset, estimated from keyed sketches) are in common.
	MatchNearDuplicate MatchKind = "near-duplicate"
)

// DatasetMatch is one ledger dataset a release's records were matched to.
type DatasetMatch struct {
	DatasetHash string    // the ledger dataset (Entry.DatasetHash)
	Match       MatchKind // how
	Share       float64   // estimated share of rows in common (1 for records and file matches)
	Path        string    // a file it was read from (informative; from the ledger)
}

// IdentityFinding is what the ledger and the sketch store say about a
// release's records. Everything in it is derived from private data: it is
// for the curator's eyes (and the local ledger) only.
type IdentityFinding struct {
	Identity *DatasetIdentity
	// Charges are the ledger datasets the release is charged to, strongest
	// match first (records, file, near-duplicates by decreasing share);
	// never empty. Charges[0] is the dataset whose budget is shown.
	Charges []DatasetMatch
	// DifferentPopulation are near-duplicates the curator declared a
	// different population (now, or earlier between the ledger dataset of
	// these records and the near-duplicate); they are not charged, and the
	// declaration is recorded in the ledger entries.
	DifferentPopulation []DatasetMatch
}

// NearDuplicates returns the near-duplicate matches, charged or declared a
// different population.
func (f *IdentityFinding) NearDuplicates() []DatasetMatch {
	var out []DatasetMatch
	for _, m := range f.Charges {
		if m.Match == MatchNearDuplicate {
			out = append(out, m)
		}
	}
	return append(out, f.DifferentPopulation...)
}

// Describe says in a sentence or two what the finding means for the
// budget, for the curator (never for standard output).
func (f *IdentityFinding) Describe() string {
	var b strings.Builder
	main := f.Charges[0]
	switch main.Match {
	case MatchNew:
		b.WriteString("These records are new to the ledger: they get a budget of their own.")
	case MatchRecords:
		fmt.Fprintf(&b, "The ledger already knows these records (dataset %s%s): the release is charged to its budget.", ShortHash(main.DatasetHash), pathSuffix(main.Path))
	case MatchFile:
		fmt.Fprintf(&b, "The ledger already knows this file (dataset %s%s): the release is charged to its budget.", ShortHash(main.DatasetHash), pathSuffix(main.Path))
	case MatchNearDuplicate:
		fmt.Fprintf(&b, "About %.0f%% of these rows are also in ledger dataset %s%s: the release is charged to its budget, unless you declare this a different population.",
			100*main.Share, ShortHash(main.DatasetHash), pathSuffix(main.Path))
	}
	for _, m := range f.Charges[1:] {
		fmt.Fprintf(&b, " It is also charged to dataset %s%s (%s", ShortHash(m.DatasetHash), pathSuffix(m.Path), m.Match)
		if m.Match == MatchNearDuplicate {
			fmt.Fprintf(&b, ", about %.0f%% of rows in common", 100*m.Share)
		}
		b.WriteString(").")
	}
	for _, m := range f.DifferentPopulation {
		fmt.Fprintf(&b, " About %.0f%% of these rows are also in dataset %s%s, declared a different population: not charged there (recorded in the ledger).",
			100*m.Share, ShortHash(m.DatasetHash), pathSuffix(m.Path))
	}
	return b.String()
}

func pathSuffix(p string) string {
	if p == "" {
		return ""
	}
	return ", " + p
}

// EntryIdentity is the "identity" object of a ledger entry: the records the
// release used and how its dataset_hash was reached.
type EntryIdentity struct {
	Records  string    `json:"records"`             // DatasetIdentity.Records
	FileHash string    `json:"file_hash,omitempty"` // SHA-256 of the file's bytes
	Columns  []string  `json:"columns"`             // used columns, sorted
	Match    MatchKind `json:"match"`               // how dataset_hash was matched
	Share    float64   `json:"share,omitempty"`     // for near-duplicate: estimated share of rows in common
	// DifferentPopulation lists near-duplicates the curator declared a
	// different population (not charged).
	DifferentPopulation []DatasetOverlap `json:"different_population,omitempty"`
}

// DatasetOverlap names a ledger dataset and the estimated share of rows in
// common with it.
type DatasetOverlap struct {
	DatasetHash string  `json:"dataset_hash"`
	Share       float64 `json:"share"`
}

// validate checks an entry's identity (nil is valid). Errors name the field.
func (x *EntryIdentity) Validate() error {
	if x == nil {
		return nil
	}
	validShare := func(s float64) bool { return isFinite(s) && s >= 0 && s <= 1 }
	switch {
	case !IsSHA256Hex(x.Records):
		return fmt.Errorf("identity.records: %q is not a hex SHA-256", shortQuote(x.Records))
	case x.FileHash != "" && !IsSHA256Hex(x.FileHash):
		return fmt.Errorf("identity.file_hash: %q is not a hex SHA-256", shortQuote(x.FileHash))
	case len(x.Columns) == 0 || !slices.IsSorted(x.Columns):
		return errors.New("identity.columns: want a non-empty sorted list")
	case !validShare(x.Share):
		return fmt.Errorf("identity.share: %v is not in [0, 1]", x.Share)
	}
	switch x.Match {
	case MatchNew, MatchRecords, MatchFile, MatchNearDuplicate:
	default:
		return fmt.Errorf("identity.match: %q is not one of new, records, file, near-duplicate", x.Match)
	}
	for _, d := range x.DifferentPopulation {
		if !IsSHA256Hex(d.DatasetHash) || !validShare(d.Share) {
			return fmt.Errorf("identity.different_population: %q (share %v) is not a hex SHA-256 with a share in [0, 1]", shortQuote(d.DatasetHash), d.Share)
		}
	}
	return nil
}

// FindDataset looks up the ledger datasets a release of id would be charged
// to, for showing the curator before the release (the ledger and the sketch
// store are read, nothing is written). Release and ChooseSettings repeat
// the lookup under the sketch store's lock; that one is authoritative.
// differentPopulation is the curator's declaration (see IdentityFinding).
// Errors: a damaged sketch store or key (*SketchStoreError), I/O errors.
func FindDataset(l *Ledger, id *DatasetIdentity, differentPopulation bool) (*IdentityFinding, error) {
	if err := l.Refresh(); err != nil {
		return nil, err
	}
	st, err := readSketchStore(l.Path())
	if err != nil {
		return nil, err
	}
	return findDataset(l.Entries(""), st, id, differentPopulation), nil
}

// findDataset matches id against the ledger entries (records and file
// hashes) and the sketches (records of every stored column set the dataset
// has, and near-duplicates).
func findDataset(entries []Entry, st *sketchStore, id *DatasetIdentity, differentPopulation bool) *IdentityFinding {
	best := map[string]DatasetMatch{}
	rank := map[MatchKind]int{MatchRecords: 3, MatchFile: 2, MatchNearDuplicate: 1}
	note := func(m DatasetMatch) {
		old, ok := best[m.DatasetHash]
		if !ok || rank[m.Match] > rank[old.Match] || m.Match == old.Match && m.Share > old.Share {
			if m.Path == "" {
				m.Path = old.Path
			}
			best[m.DatasetHash] = m
		} else if old.Path == "" && m.Path != "" {
			old.Path = m.Path
			best[m.DatasetHash] = old
		}
	}
	fps := id.Fingerprints()
	for _, e := range entries {
		if e.DatasetHash == "" {
			continue
		}
		x := e.Identity
		switch {
		case slices.Contains(fps, e.DatasetHash) || x != nil && slices.Contains(fps, x.Records):
			note(DatasetMatch{DatasetHash: e.DatasetHash, Match: MatchRecords, Share: 1, Path: e.DatasetPath})
		case id.FileHash != "" && (e.DatasetHash == id.FileHash || x != nil && x.FileHash == id.FileHash):
			note(DatasetMatch{DatasetHash: e.DatasetHash, Match: MatchFile, Share: 1, Path: e.DatasetPath})
		}
	}
	if st.key != nil && id.ds != nil {
		matchSketches(st, id, note)
	}
	// A declaration "different population" made between two ledger
	// datasets stands: a near-duplicate declared different from one of the
	// datasets these very records (or this file) belong to is not charged
	// again, and the declaration is recorded again.
	declared := map[[2]string]bool{}
	for _, e := range entries {
		if e.Identity != nil {
			for _, d := range e.Identity.DifferentPopulation {
				declared[[2]string{e.DatasetHash, d.DatasetHash}] = true
				declared[[2]string{d.DatasetHash, e.DatasetHash}] = true
			}
		}
	}
	declaredBefore := func(m DatasetMatch) bool {
		for _, s := range best {
			if s.Match != MatchNearDuplicate && declared[[2]string{s.DatasetHash, m.DatasetHash}] {
				return true
			}
		}
		return false
	}
	f := &IdentityFinding{Identity: id}
	for _, m := range best {
		if m.Match == MatchNearDuplicate && (differentPopulation || declaredBefore(m)) {
			f.DifferentPopulation = append(f.DifferentPopulation, m)
		} else {
			f.Charges = append(f.Charges, m)
		}
	}
	order := func(a, b DatasetMatch) int {
		if c := rank[b.Match] - rank[a.Match]; c != 0 {
			return c
		}
		if a.Share != b.Share {
			if a.Share > b.Share {
				return -1
			}
			return 1
		}
		return strings.Compare(a.DatasetHash, b.DatasetHash)
	}
	slices.SortFunc(f.Charges, order)
	slices.SortFunc(f.DifferentPopulation, order)
	if len(f.Charges) == 0 {
		f.Charges = []DatasetMatch{{DatasetHash: id.Records, Match: MatchNew, Share: 1}}
	}
	return f
}

// matchSketches notes the stored sketches id matches: the same records
// (exact fingerprint) or a near-duplicate, in the stored line's column set.
// A version-2 line is compared with the projection of id onto its columns
// by name, or, when id's table lacks one of those names (renamed columns),
// with every projection onto as many of id's used columns (at most
// maxRenamedProjections; the fingerprint and sketch of version 2 do not
// depend on names). A version-1 line is compared with the version-1
// fingerprint and sketch of its columns by name.
func matchSketches(st *sketchStore, id *DatasetIdentity, note func(DatasetMatch)) {
	projections := map[string]*DatasetIdentity{strings.Join(id.Columns, "\x00"): id}
	project := func(cols []string) *DatasetIdentity {
		ck := strings.Join(cols, "\x00")
		p, ok := projections[ck]
		if !ok {
			p, _ = id.project(cols) // nil if the dataset lacks a column
			projections[ck] = p
		}
		return p
	}
	legacies := map[string][]legacySketch{}
	compare := func(r SketchRecord, fp string, s func() Sketch) {
		if fp == r.Records {
			note(DatasetMatch{DatasetHash: r.DatasetHash, Match: MatchRecords, Share: 1})
			return
		}
		rs, err := r.sketch() // validated on reading
		if err != nil {
			return
		}
		if share := s().Overlap(rs); share >= NearDuplicateShare {
			note(DatasetMatch{DatasetHash: r.DatasetHash, Match: MatchNearDuplicate, Share: share})
		}
	}
	for _, r := range st.records {
		if r.Version == 1 {
			ck := strings.Join(r.Columns, "\x00")
			lgs, ok := legacies[ck]
			if !ok {
				lgs = id.legacySketches(r.Columns, st.key)
				legacies[ck] = lgs
			}
			for _, lg := range lgs {
				compare(r, lg.fp, func() Sketch { return lg.s })
			}
			continue
		}
		candidates := []*DatasetIdentity{project(r.Columns)}
		if candidates[0] == nil {
			candidates = candidates[:0]
			for _, cols := range columnSubsets(id.Columns, len(r.Columns), maxRenamedProjections) {
				if p := project(cols); p != nil {
					candidates = append(candidates, p)
				}
			}
		}
		for _, p := range candidates {
			compare(r, p.Records, func() Sketch { return p.Sketch(st.key) })
		}
	}
}

// maxRenamedProjections bounds the projections of a release's columns tried
// against one stored column set with other names (each costs a sort and
// an HMAC per row).
const maxRenamedProjections = 64

// columnSubsets returns the subsets of cols with k elements (in order), at
// most max of them; none if k > len(cols).
func columnSubsets(cols []string, k, max int) [][]string {
	var out [][]string
	var pick func(start int, cur []string)
	pick = func(start int, cur []string) {
		if len(out) == max {
			return
		}
		if len(cur) == k {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := start; i <= len(cols)-(k-len(cur)); i++ {
			pick(i+1, append(cur, cols[i]))
		}
	}
	if k >= 1 && k <= len(cols) {
		pick(0, nil)
	}
	return out
}

// reserveByIdentity records a spend (e: a release or validation entry
// without dataset hash) for the records id, under the sketch store's lock:
//
//  1. find the ledger datasets the records match (findDataset);
//  2. check every one of them has the budget for e.Epsilon and e.Delta
//     (unless allowOver), so a refusal charges nothing;
//  3. append the keyed sketch of the records under each of them to the
//     sketch store (creating the key on first use), before the ledger;
//  4. Reserve e in the ledger once per dataset, each with the full ε and δ.
//
// The records of one release may belong to several ledger datasets; each
// is charged in full (over-counting is the safe side). If a Reserve after
// the first fails (a race with a program that does not take the sketch
// lock), the spends already recorded stay. It returns the entries
// recorded, Charges[0]'s first.
func ReserveByIdentity(l *Ledger, id *DatasetIdentity, e Entry, allowOver, differentPopulation bool) ([]Entry, *IdentityFinding, error) {
	if id == nil {
		return nil, nil, errors.New("ledger: the release has no dataset identity")
	}
	unlock, err := lockLedger(SketchStorePath(l.Path()))
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	st, err := readSketchStore(l.Path())
	if err != nil {
		return nil, nil, err
	}
	if err := l.Refresh(); err != nil {
		return nil, nil, err
	}
	f := findDataset(l.Entries(""), st, id, differentPopulation)
	if !allowOver {
		// ε and δ of every matched dataset before the first write, so a
		// refusal on any of them charges none.
		st := l.state()
		for _, m := range f.Charges {
			x := e
			x.DatasetHash = m.DatasetHash
			if _, err := st.admit(l.Path(), x); err != nil {
				return nil, f, err
			}
		}
	}
	if err := st.ensureKey(); err != nil {
		return nil, f, err
	}
	sketch := id.Sketch(st.key)
	for _, m := range f.Charges {
		if !st.has(m.DatasetHash, id) {
			if err := st.appendRecord(newSketchRecord(m.DatasetHash, id, sketch, st.key)); err != nil {
				return nil, f, err
			}
		}
	}
	var declared []DatasetOverlap
	for _, m := range f.DifferentPopulation {
		declared = append(declared, DatasetOverlap{DatasetHash: m.DatasetHash, Share: m.Share})
	}
	var out []Entry
	for _, m := range f.Charges {
		x := e
		x.DatasetHash = m.DatasetHash
		x.Identity = &EntryIdentity{Records: id.Records, FileHash: id.FileHash, Columns: slices.Clone(id.Columns),
			Match: m.Match, DifferentPopulation: declared}
		if m.Match == MatchNearDuplicate {
			x.Identity.Share = m.Share
		}
		rec, err := l.Reserve(x, allowOver)
		if err != nil {
			if len(out) > 0 {
				err = fmt.Errorf("%w (already charged to dataset %s; that spend stays recorded)", err, ShortHash(out[0].DatasetHash))
			}
			return out, f, err
		}
		out = append(out, rec)
	}
	return out, f, nil
}

// DatasetsOfFile returns the ledger datasets (Entry.DatasetHash) a
// CSV file with the given file hash was charged to: those of entries keyed
// on the file hash (older ledgers, budgets set by file) and of entries
// whose identity names it, in order of first appearance; the file hash
// itself if there are none. Without the used columns the file's records
// cannot be fingerprinted, so a reformatted copy of the file is not found
// here (a release finds it).
func DatasetsOfFile(l *Ledger, fileHash string) []string {
	var out []string
	for _, e := range l.Entries("") {
		if e.DatasetHash == "" || slices.Contains(out, e.DatasetHash) {
			continue
		}
		if e.DatasetHash == fileHash || e.Identity != nil && e.Identity.FileHash == fileHash {
			out = append(out, e.DatasetHash)
		}
	}
	if len(out) == 0 {
		out = []string{fileHash}
	}
	return out
}
