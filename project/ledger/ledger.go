package ledger

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// DefaultBudget is the total ε a dataset may spend until the curator sets
// another budget.
const DefaultBudget = 1.0

// Version is the format version written in every ledger line ("v"):
// 2 since lines carry running totals (Entry.Totals). Lines of version 1
// (without totals) are still read; see docs/ledger.md.
const Version = 2

// budgetSlack is the relative tolerance of the budget check, so that ten
// releases of ε = 0.1 fit a budget of 1 despite floating-point rounding of
// the sum. It is far below any meaningful ε.
const budgetSlack = 1e-9

// EntryKind says what a ledger entry records.
type EntryKind string

const (
	// KindRelease is a released synopsis; its ε and δ are spent.
	KindRelease EntryKind = "release"
	// KindValidation is a private validation (e.g. of the Bernstein order
	// h); its ε and δ are spent like a release.
	KindValidation EntryKind = "validation"
	// KindBounds is a private estimate of public bounds (project.
	// EstimatePrivateBounds); its ε is spent like a release.
	KindBounds EntryKind = "bounds"
	// KindBudget sets the dataset's total ε budget to Entry.Budget; it
	// spends nothing.
	KindBudget EntryKind = "budget"
	// KindRepair terminates a torn last line (see Ledger.Repair) and
	// charges what the torn fragment reveals of ε and δ.
	KindRepair EntryKind = "repair"
)

// spends reports whether entries of this kind spend privacy budget.
func (k EntryKind) spends() bool {
	return k == KindRelease || k == KindValidation || k == KindBounds || k == KindRepair
}

// Entry is one line of the privacy-budget ledger. The first four fields come
// first in the file so that a torn line (a crash mid-write) still reveals
// which dataset it charged and how much.
type Entry struct {
	DatasetHash string    `json:"dataset_hash"` // hex SHA-256 of the CSV file (dataset.Table.Hash)
	Epsilon     float64   `json:"epsilon"`      // ε spent (0 for KindBudget)
	Delta       float64   `json:"delta"`        // δ spent (0 for pure ε-DP and KindBudget)
	Kind        EntryKind `json:"kind"`
	Version     int       `json:"v"`    // Version; set by the ledger
	ID          string    `json:"id"`   // unique; set by the ledger; workspaces refer to it
	Time        time.Time `json:"time"` // set by the ledger if zero
	// Budget is the new total ε of a KindBudget entry (0: unchanged).
	Budget float64 `json:"budget,omitempty"`
	// DeltaBudget is the new total δ of a KindBudget entry (0: unchanged);
	// see DefaultDeltaBudget.
	DeltaBudget float64 `json:"delta_budget,omitempty"`
	DatasetPath string  `json:"dataset_path,omitempty"` // informative; the hash identifies the data
	Learner     string  `json:"learner,omitempty"`      // learner kind, e.g. "kde"
	// Params holds the learner's parameter values and the mechanism
	// settings (e.g. "h", "k") of a release.
	Params map[string][]float64 `json:"params,omitempty"`
	Noise  string               `json:"noise,omitempty"`  // mechanism noise kind
	Output string               `json:"output,omitempty"` // synopsis file the release writes
	// OverBudget marks a release made with allowOver past the budget.
	OverBudget bool `json:"over_budget,omitempty"`
	// AdmittedBy is AdmittedByZCDP for a release admitted by the zCDP
	// account alone, past what basic composition allows (zcdp.go); set
	// by the ledger.
	AdmittedBy string `json:"admitted_by,omitempty"`
	Note       string `json:"note,omitempty"`
	// RepairsLine is, for KindRepair, the line number of the torn line it
	// terminates (always the line just before it).
	RepairsLine int `json:"repairs_line,omitempty"`
	// AllDatasets marks an unattributed KindRepair entry (its DatasetHash
	// is empty): the ε and δ of lines missing before the intact line
	// RepairsLine, whose datasets nobody knows, charged to every dataset,
	// including datasets first seen later (docs/ledger.md, "Damage").
	AllDatasets bool `json:"all_datasets,omitempty"`
	// RepairsTip marks the repair entry that resolves a tip problem
	// (TipError): the lines missing at the end of the ledger, charged to
	// every dataset (AllDatasets), or the curator's reset of the tip file
	// (docs/ledger.md, "The tip file"). RepairsLine is then its own line.
	RepairsTip bool `json:"repairs_tip,omitempty"`
	// BudgetsLost marks a KindRepair entry for lines missing from the
	// ledger that held (or may have held) a budget entry, whose loss may
	// have raised a budget: the budgets of the datasets it charges (every
	// dataset if AllDatasets) are in effect exhausted (Budget and
	// DeltaBudget return 0) until the curator sets them again
	// (docs/ledger.md, "Lines missing before an intact line").
	BudgetsLost bool `json:"budgets_lost,omitempty"`
	// Identity names the records a release or validation used and how it
	// was matched to DatasetHash (dataset_identity.go); nil in older
	// entries and in budget and repair entries.
	Identity *EntryIdentity `json:"identity,omitempty"`
	// Tip says a tip file is kept beside the ledger (TipPath): set by the
	// ledger in every line it writes since tips exist; once a line says
	// so, the ledger without its tip file fails closed (docs/ledger.md,
	// "The tip file").
	Tip bool `json:"tip,omitempty"`
	// Totals are the running totals over the whole ledger up to and
	// including this entry, set by the ledger in every line it writes
	// (version 2); nil in version 1 lines.
	Totals *Totals `json:"totals,omitempty"`
	// Sum is the line's checksum, set by the ledger: the first 16 hex
	// digits of the SHA-256 of the line encoded without it. Every line this
	// version writes carries it; see docs/ledger.md.
	Sum string `json:"sum,omitempty"`
}

// Ledger is the append-only, persistent record of privacy budget spent per
// dataset; see docs/ledger.md for the format, the crash guarantees and the
// composition rule.
//
// A Ledger caches the entries read when it was opened and updates them on
// every write; Reserve, SetBudget and Repair always re-read the file under
// the lock, so decisions never rest on a stale view. Call Refresh to see
// entries written by other processes in Spent, Budget and Entries. Methods
// are safe for concurrent use.
type Ledger struct {
	path string

	mu sync.Mutex
	st *ledgerState
}

// ledgerState is what one read of the ledger file found.
type ledgerState struct {
	entries  []Entry        // the valid entries, in file order
	torn     *TornError     // an unterminated last line, or nil
	damaged  []damagedLine  // complete lines that do not parse and are not yet repaired
	charges  []damageCharge // conservative charges of damaged, where attributable
	summed   bool           // some valid line carries a checksum
	run      Totals         // running totals after the last valid entry
	totaled  bool           // some valid line carries totals
	budgeted bool           // some valid line's totals carry a budget count
	budgets  int            // the number of valid budget entries
	notes    []string       // harmless irregularities read past (see tolerate)
	longest  int            // length of the longest valid line (singleEntryBound)
	// tipFirst is the index in entries of the first entry that says a tip
	// file is kept (Entry.Tip), -1 if none; tipFirstLine its line.
	tipFirst, tipFirstLine int
	nextLine               int        // the number of the line the next append begins (after the blank tail and a torn line)
	unterminated           bool       // the last line is damaged and has no line end (Repair terminates it)
	tip                    *tipRecord // the tip file, if one was read
	tipErr                 *TipError  // the ledger does not end where the tip says
	links                  int        // the ledger file's hard links (linkCount), set by load
}

// DefaultPath returns os.UserConfigDir()/bernstein/ledger.jsonl.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("ledger: no user configuration directory: %w", err)
	}
	return filepath.Join(dir, "bernstein", "ledger.jsonl"), nil
}

// Open opens the ledger at path (DefaultPath if path is empty)
// and reads it. A missing file is an empty ledger; it is created by the
// first write. A ledger with a torn last line (see Torn) or damaged lines
// (see Damaged) opens, so that it can be shown and repaired, and counts
// what they reveal; every write but Repair is refused until it is
// repaired: a budget record that cannot be read must not be mistaken for
// an unspent one.
func Open(path string) (*Ledger, error) {
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	l := &Ledger{path: path}
	if err := l.Refresh(); err != nil {
		return nil, err
	}
	return l, nil
}

// Path returns the ledger file's path.
func (l *Ledger) Path() string { return l.path }

// Refresh re-reads the ledger file (under the lock). A missing file is an
// empty ledger and is not created.
func (l *Ledger) Refresh() error {
	if _, err := os.Stat(l.path); errors.Is(err, os.ErrNotExist) {
		return l.load(nil)
	}
	unlock, err := lockLedger(l.path)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err = l.readLocked(); err != nil {
		return err
	}
	l.state().catchUpTip(l.path)
	return nil
}

// readLocked reads the file and loads it into the cache, returning the
// bytes read. The caller holds the file lock.
func (l *Ledger) readLocked() ([]byte, error) {
	data, err := fileio.ReadRegular(l.path, 1<<62) // no size cap; a FIFO or device is refused, not waited on
	if errors.Is(err, os.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return data, l.load(data)
}

// load parses the ledger's bytes into the cache and compares them with
// the tip file.
func (l *Ledger) load(data []byte) error {
	r := readTip(l.path)
	st := parseLedgerTip(data, l.path, &r)
	st.links = linkCount(l.path)
	l.mu.Lock()
	l.st = st
	l.mu.Unlock()
	return nil
}

// state returns the cached state.
func (l *Ledger) state() *ledgerState {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.st == nil {
		return &ledgerState{tipFirst: -1}
	}
	return l.st
}

// Torn returns the torn last line found when the ledger was last read, or
// nil. While a torn line is present, Spent counts what it reveals, and
// Reserve and SetBudget refuse with the *TornError until Repair.
func (l *Ledger) Torn() *TornError {
	return l.state().torn
}

// Notes returns, for the ledger as last read, the harmless irregularities
// it read past (docs/ledger.md, "Harmless irregularities"): a UTF-8 byte
// order mark, Windows line ends, blank lines. Each note is one sentence.
func (l *Ledger) Notes() []string {
	return slices.Clone(l.state().notes)
}

// Damaged returns, if the ledger was damaged when last read (a complete
// line that does not parse, see docs/ledger.md), the *Error that
// Reserve and SetBudget refuse with until Repair; otherwise nil.
func (l *Ledger) Damaged() *Error {
	return l.state().damageError(l.path)
}

// HardLinked returns, if the ledger file had more than one hard link when
// last read (Unix and Windows), the *HardLinkError every write, Repair
// included, refuses with; otherwise nil.
func (l *Ledger) HardLinked() *HardLinkError {
	return l.state().linkError(l.path)
}

// linkError is the refusal of writes through a file with several hard
// links.
func (st *ledgerState) linkError(path string) *HardLinkError {
	if st.links > 1 {
		return &HardLinkError{File: path, Links: st.links}
	}
	return nil
}

// TipProblem returns, if the ledger did not end where its tip file says
// when last read (lines removed from its end, or the tip file damaged or
// missing; see docs/ledger.md, "The tip file"), the *TipError that every
// write but Repair refuses with; otherwise nil. While it is set, Spent
// counts what the tip shows the missing lines spent, for every dataset,
// and is a lower bound if the tip shows nothing.
func (l *Ledger) TipProblem() *TipError {
	return l.state().tipErr
}

// Spent returns the ε and δ spent on a dataset: the sums over its release,
// validation and repair entries (sequential composition, Dwork & Roth 2014,
// Theorem 3.16: mechanisms that are (ε_i, δ_i)-DP compose to
// (Σε_i, Σδ_i)-DP), plus what an unrepaired torn last line reveals for it.
//
// While the ledger is damaged, Spent also counts the charge Repair would
// record for each damaged line whose dataset can be read (see
// docs/ledger.md); lines that need the curator's attribution count only
// once attributed.
func (l *Ledger) Spent(datasetHash string) (eps, delta float64) {
	st := l.state()
	eps, delta = spent(st.entries, st.torn, datasetHash)
	for _, c := range st.charges {
		if c.hash == datasetHash || c.all {
			eps += c.eps
			delta += c.delta
		}
	}
	return eps, delta
}

func spent(entries []Entry, torn *TornError, hash string) (eps, delta float64) {
	for _, e := range entries {
		if e.charges(hash) && e.Kind.spends() {
			eps += e.Epsilon
			delta += e.Delta
		}
	}
	if torn != nil && torn.DatasetHash == hash {
		eps += torn.Epsilon
		delta += torn.Delta
	}
	return eps, delta
}

// charges reports whether e is an entry of dataset hash or an unattributed
// repair, which charges every dataset.
func (e Entry) charges(hash string) bool {
	return e.DatasetHash == hash || e.AllDatasets
}

// Budget returns the total ε budget of a dataset: the Budget of its last
// KindBudget entry that sets one, or DefaultBudget.
func (l *Ledger) Budget(datasetHash string) float64 {
	return budget(l.state().entries, datasetHash)
}

func budget(entries []Entry, hash string) float64 {
	return lastBudget(entries, hash, func(e Entry) float64 { return e.Budget }, DefaultBudget)
}

// lastBudget returns the value field gives for the last KindBudget entry of
// the dataset that sets it (> 0), or def; but 0 (in effect exhausted) if
// a repair of lines that may have held a budget entry (BudgetsLost)
// charging the dataset comes after that entry: the lost entry may have
// lowered the budget, so it holds until the curator sets it again.
func lastBudget(entries []Entry, hash string, field func(Entry) float64, def float64) float64 {
	for _, e := range slices.Backward(entries) {
		if e.DatasetHash == hash && e.Kind == KindBudget && field(e) > 0 {
			return field(e)
		}
		if e.BudgetsLost && e.charges(hash) {
			return 0
		}
	}
	return def
}

// Entries returns a copy of the entries of a dataset in file order,
// unattributed repairs (AllDatasets) included (all entries if datasetHash
// is empty).
func (l *Ledger) Entries(datasetHash string) []Entry {
	var out []Entry
	for _, e := range l.state().entries {
		if datasetHash == "" || e.charges(datasetHash) {
			e.Params = cloneParams(e.Params)
			if e.Totals != nil {
				t := *e.Totals
				e.Totals = &t
			}
			out = append(out, e)
		}
	}
	return out
}

func cloneParams(p map[string][]float64) map[string][]float64 {
	if p == nil {
		return nil
	}
	out := make(map[string][]float64, len(p))
	for k, v := range p {
		out[k] = slices.Clone(v)
	}
	return out
}

// Reserve records a release (or validation) in the ledger BEFORE the caller
// writes its synopsis: the entry is appended and fsynced, and only a nil
// error allows the release. A crash after Reserve leaves the spend recorded
// even if the synopsis is never written; a crash during Reserve leaves at
// most a torn last line, which is counted (see Torn) and never allowed a
// release, since Reserve did not return.
//
// e.Kind must be KindRelease (the default if empty), KindValidation or
// KindBounds; e.DatasetHash a hex SHA-256; e.Epsilon > 0 and
// e.Delta ∈ [0, 1), finite.
// The ledger sets Version, ID, OverBudget and Time (if zero).
//
// If the dataset's spent ε plus e.Epsilon exceeds its ε budget, or its
// spent δ plus e.Delta exceeds its δ budget (each up to a relative 1e-9 for
// rounding), Reserve returns a *BudgetError and records nothing, unless
// allowOver, in which case the entry is recorded with OverBudget set.
//
// It returns the entry as recorded. Errors: invalid entry fields (naming the
// field and rule), a torn last line (*TornError), a damaged ledger
// (*Error), the budget (*BudgetError), or I/O errors.
func (l *Ledger) Reserve(e Entry, allowOver bool) (Entry, error) {
	if e.Kind == "" {
		e.Kind = KindRelease
	}
	if e.Kind != KindRelease && e.Kind != KindValidation && e.Kind != KindBounds {
		return Entry{}, fmt.Errorf("ledger: entry kind %q cannot be reserved: use %q, %q or %q", e.Kind, KindRelease, KindValidation, KindBounds)
	}
	if e.OverBudget || e.AdmittedBy != "" {
		return Entry{}, errors.New("ledger: OverBudget and AdmittedBy are set by the ledger, not by the caller")
	}
	if err := e.prepare(); err != nil {
		return Entry{}, err
	}
	if err := e.validate(); err != nil {
		return Entry{}, fmt.Errorf("ledger: %w", err)
	}
	err := l.appendChecked(func(st *ledgerState) ([]byte, error) {
		if err := st.refuseWrites(l.path); err != nil {
			return nil, err
		}
		switch zcdp, err := st.admit(l.path, e); {
		case err != nil && !allowOver:
			return nil, err
		case err != nil:
			e.OverBudget = true
		case zcdp:
			e.AdmittedBy = AdmittedByZCDP
		}
		e.Totals = st.next(e)
		return marshalEntry(e)
	})
	if err != nil {
		return Entry{}, err
	}
	return e, nil
}

// SetBudget records a new total ε budget for a dataset (eps > 0, finite).
// Lowering it below what is already spent is allowed and blocks further
// releases. Errors as for Reserve.
func (l *Ledger) SetBudget(datasetHash string, eps float64) error {
	return l.SetBudgets(datasetHash, eps, 0)
}

// SetBudgets records a new total ε budget and/or δ budget for a dataset in
// one entry: eps > 0 and finite, or 0 to keep the ε budget; delta in
// (0, 1), or 0 to keep the δ budget; not both 0. Errors as for Reserve.
func (l *Ledger) SetBudgets(datasetHash string, eps, delta float64) error {
	e := Entry{DatasetHash: datasetHash, Kind: KindBudget, Budget: eps, DeltaBudget: delta}
	if err := e.prepare(); err != nil {
		return err
	}
	if err := e.validate(); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	return l.appendChecked(func(st *ledgerState) ([]byte, error) {
		if err := st.refuseWrites(l.path); err != nil {
			return nil, err
		}
		// Never date a budget entry before the dataset's last one (a clock
		// stepped back), which reading would take for reordered lines.
		for _, p := range st.entries {
			if p.DatasetHash == e.DatasetHash && p.Kind == KindBudget && p.Time.After(e.Time) {
				e.Time = p.Time
			}
		}
		e.Totals = st.next(e)
		return marshalEntry(e)
	})
}

var errNothingToAppend = errors.New("nothing to append")

// appendChecked locks the ledger, re-reads it, lets decide compute the bytes
// to append from the current entries (or refuse with an error), appends them
// in a single write, fsyncs, and updates the cache.
//
// Crash safety: the bytes go out in one write(2) on an O_APPEND descriptor,
// followed by fsync. If the write or the fsync fails, the file is truncated
// back to its previous length (best effort) so no partial line remains; a
// crash can leave at most a torn last line, which the next read reports.
func (l *Ledger) appendChecked(decide func(st *ledgerState) ([]byte, error)) error {
	unlock, err := lockLedger(l.path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := l.readLocked()
	if err != nil {
		return err
	}
	if le := l.state().linkError(l.path); le != nil {
		return le // checked under the lock: a write through any name sees the other
	}
	line, err := decide(l.state())
	if err != nil {
		return err
	}
	// A blank tail (harmless, docs/ledger.md) holds no entry; left in
	// place, it would become a blank line between entries (damage) or, if
	// unterminated, be glued to the entry appended now.
	if keep := blankTail(data); keep < len(data) {
		if err := truncateLedger(l.path, int64(keep), "remove the blank tail"); err != nil {
			return err
		}
		data = data[:keep]
	}
	if err := appendDurably(l.path, int64(len(data)), line); err != nil {
		return err
	}
	// Under the lock the file now holds exactly data+line; its tip, under
	// the same lock, names the last line written.
	data = append(data, line...)
	if err := writeTip(l.path, parseLedger(data, l.path), int64(len(data)-len(line))); err != nil {
		_, _ = l.readLocked()
		return err
	}
	return l.load(data)
}

// truncateLedger cuts the ledger back to size bytes (to do what) and
// syncs it. The caller holds the lock.
func truncateLedger(path string, size int64, what string) error {
	f, err := fsops.Current.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("ledger: open to %s: %w", what, err)
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ledger: %s: %s: %w", path, what, err)
	}
	return nil
}

// appendDurably appends line to path in a single write and fsyncs it; on
// failure it truncates the file back to size.
func appendDurably(path string, size int64, line []byte) (err error) {
	dir := filepath.Dir(path)
	created := false
	if size == 0 {
		if _, statErr := os.Stat(path); errors.Is(statErr, os.ErrNotExist) {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("ledger: %w", err)
			}
			created = true
		}
	}
	f, err := fsops.Current.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("ledger: open for append: %w", err)
	}
	defer func() {
		if err != nil {
			// Take back a partial or unsynced line; if this fails too, the
			// next read reports the torn line.
			if terr := f.Truncate(size); terr == nil {
				_ = f.Sync()
			}
		}
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("ledger: %s: close: %w", path, cerr)
		}
	}()
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("ledger: %s: append: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("ledger: %s: sync: %w", path, err)
	}
	if created {
		if err := fsops.Current.SyncDir(dir); err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
	}
	return nil
}

// prepare fills the fields the ledger owns.
func (e *Entry) prepare() error {
	e.Version = Version
	e.Tip = true
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return fmt.Errorf("ledger: entry id: %w", err)
	}
	e.ID = hex.EncodeToString(id[:])
	return nil
}

// marshalEntry encodes e as one ledger line with its checksum (Sum) and
// line end.
func marshalEntry(e Entry) ([]byte, error) {
	e.Sum = ""
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("ledger: encode entry: %w", err)
	}
	e.Sum = lineSum(b)
	if b, err = json.Marshal(e); err != nil {
		return nil, fmt.Errorf("ledger: encode entry: %w", err)
	}
	return append(b, '\n'), nil
}

// validate checks the rules an entry must satisfy, in the file and in
// Reserve. Errors name the field.
func (e *Entry) validate() error {
	switch {
	case e.Version != Version && e.Version != 1:
		return fmt.Errorf("v: version %d is not supported (this program reads versions 1 and %d)", e.Version, Version)
	case e.ID == "":
		return errors.New("id: missing")
	case e.Time.IsZero():
		return errors.New("time: missing")
	case !isFinite(e.Epsilon) || e.Epsilon < 0:
		return fmt.Errorf("epsilon: %v must be finite and ≥ 0", e.Epsilon)
	case !isFinite(e.Delta) || e.Delta < 0 || e.Delta >= 1:
		return fmt.Errorf("delta: %v must be in [0, 1)", e.Delta)
	}
	if e.AdmittedBy != "" && (e.AdmittedBy != AdmittedByZCDP || e.OverBudget || !(e.Kind == KindRelease || e.Kind == KindValidation || e.Kind == KindBounds)) {
		return fmt.Errorf("admitted_by: %q is allowed only as %q, on a release, validation or bounds entry not over budget", e.AdmittedBy, AdmittedByZCDP)
	}
	if e.BudgetsLost && e.Kind != KindRepair {
		return errors.New("budgets_lost: only a repair entry sets budgets aside")
	}
	if e.RepairsTip && !e.AllDatasets {
		return errors.New("repairs_tip: only an unattributed repair (all_datasets) resolves the tip file")
	}
	if e.AllDatasets && (e.Kind != KindRepair || e.DatasetHash != "") {
		return errors.New("all_datasets: only an unattributed repair (kind repair, no dataset_hash) charges every dataset")
	}
	if !(e.Kind == KindRepair && e.DatasetHash == "") && !IsSHA256Hex(e.DatasetHash) {
		return fmt.Errorf("dataset_hash: %q is not a hex SHA-256 (64 lower-case hex digits)", e.DatasetHash)
	}
	if err := e.Identity.Validate(); err != nil {
		return err
	}
	if err := e.Totals.validate(e); err != nil {
		return err
	}
	for name, v := range e.Params {
		for _, x := range v {
			if !isFinite(x) {
				return fmt.Errorf("params: %s = %v is not finite", name, x)
			}
		}
	}
	switch e.Kind {
	case KindRelease, KindValidation, KindBounds:
		if e.Epsilon <= 0 {
			return fmt.Errorf("epsilon: %v must be > 0 for a %s", e.Epsilon, e.Kind)
		}
		if e.Budget != 0 || e.DeltaBudget != 0 || e.RepairsLine != 0 {
			return fmt.Errorf("kind %s: budget, delta_budget and repairs_line must be unset", e.Kind)
		}
	case KindBudget:
		if err := validateBudgets(e.Budget, e.DeltaBudget); err != nil {
			return err
		}
		if e.Epsilon != 0 || e.Delta != 0 {
			return errors.New("kind budget: epsilon and delta must be 0")
		}
	case KindRepair:
		if e.Budget != 0 || e.DeltaBudget != 0 {
			return errors.New("kind repair: budget and delta_budget must be unset")
		}
		if e.RepairsLine < 1 {
			return fmt.Errorf("repairs_line: %d must be ≥ 1", e.RepairsLine)
		}
	default:
		return fmt.Errorf("kind: %q is not one of release, validation, bounds, budget, repair", e.Kind)
	}
	return nil
}

// IsSHA256Hex reports whether s is a hex SHA-256: 64 lower-case hex digits.
func IsSHA256Hex(s string) bool {
	return len(s) == 64 && isLowerHex(s)
}

// isLowerHex reports whether s consists of lower-case hex digits only.
func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// decodeEntry strictly decodes one ledger line: known fields only, the
// rules of validate, the line exactly as marshalEntry writes it (so no
// byte can change without the line failing, see docs/ledger.md), and its
// checksum if it has one. requireSum is set once a line with a checksum
// has been read: this version never writes a line without one, and older
// versions refuse a ledger with checksums. Running totals are checked by
// checkVersionTotals and checkTotals (parseLedger).
func decodeEntry(line []byte, requireSum bool) (Entry, error) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, err
	}
	if dec.More() {
		return Entry{}, errTrailing
	}
	if err := e.validate(); err != nil {
		return Entry{}, err
	}
	if err := checkLineBytes(line, e, requireSum); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// parseLedger parses the ledger file's bytes; it never fails, since a
// damaged ledger must still open to be shown and repaired.
//
// Every complete line (ending in '\n') must be a valid entry. A complete
// line that is not is damaged (docs/ledger.md): it is kept in
// ledgerState.damaged, which refuses every write but Repair, until a
// KindRepair entry after it names it. Only the last line, if it has no line
// end, can be a crash tear: it is returned as a *TornError carrying what it
// reveals.
func parseLedger(data []byte, path string) *ledgerState {
	return parseLedgerTip(data, path, nil)
}

// parseLedgerTip is parseLedger compared with the tip file read tip
// (checkTip; nil: not compared). A tip that shows lines missing at the
// end bounds the damaged lines no valid line follows, as the running
// totals of an intact line bound the damaged lines before it.
func parseLedgerTip(data []byte, path string, tip *tipRead) *ledgerState {
	st := &ledgerState{tipFirst: -1}
	var tol tolerated
	if bytes.HasPrefix(data, dataset.UTF8BOM) {
		data = data[len(dataset.UTF8BOM):]
		tol.bom = true
	}
	lines := bytes.Split(data, []byte{'\n'})
	last := lines[len(lines)-1]
	lines = lines[:len(lines)-1] // complete lines; last is "" if data ends in '\n'

	var damaged []damagedLine // every damaged line, resolved or not
	validLine := 0            // number of the last valid line
	pending := 0              // damaged[pending:] follow the last valid line
	sinceTotals := 0          // damaged[sinceTotals:] follow the last valid line with totals
	lastReordered := 0        // the last intact line whose totals are below what the lines before it recompute
	budgetAt := map[string]budgetLine{}
	// Blank lines are harmless only after the last entry (an editor's final
	// newline): one between entries may be a byte damaged into a line end,
	// which shifts the line numbers repair entries refer to, so it is damage.
	lastContent := len(lines)
	if len(last) == 0 || isBlankLine(last) {
		lastContent = -1
		for i, line := range lines {
			if !isBlankLine(line) {
				lastContent = i
			}
		}
	}
	for i, line := range lines {
		n := i + 1
		if i < lastContent && isBlankLine(line) {
			damaged = append(damaged, newDamagedLine(n, line, errors.New("a blank line between entries (a line end may have been damaged into it)")))
			continue
		}
		line, blank := tol.line(n, line)
		if blank {
			continue
		}
		e, err := decodeEntry(line, st.summed)
		if err == nil && e.Kind == KindRepair && !e.RepairsTip {
			err = resolveRepair(damaged, n, validLine, e, st.want(e))
		}
		if err == nil && e.Kind == KindBudget {
			err = checkBudgetOrder(budgetAt, n, e)
		}
		if err == nil {
			err = checkVersionTotals(e, st.totaled, st.budgeted)
		}
		if err == nil {
			err = checkTipMarker(e, st.tipFirst >= 0)
		}
		var order error // totals that do not follow: lines removed, added or reordered
		if err == nil {
			// Clean only if no damaged line lies since the last line with
			// totals: the valid lines without totals (version 1) after a
			// damaged line do not show what it held.
			order = checkTotals(st.want(e), e, sinceTotals == len(damaged))
		}
		if err != nil {
			damaged = append(damaged, newDamagedLine(n, line, err))
			continue
		}
		if e.Sum != "" {
			st.summed = true
		}
		if e.Tip && st.tipFirst < 0 {
			st.tipFirst, st.tipFirstLine = len(st.entries), n
		}
		for i := pending; i < len(damaged); i++ {
			damaged[i].followed = true
		}
		if e.Totals != nil && order == nil && sinceTotals < len(damaged) {
			// Its totals bound every damaged line since the last line
			// with totals, together (one span).
			bound := newSpanBound(n, st.want(e), e)
			for i := sinceTotals; i < len(damaged); i++ {
				damaged[i].bound = bound
			}
		}
		if order != nil {
			// The line itself is intact (its checksum holds): it counts as
			// written, and the ledger is damaged until a repair names it.
			d := newDamagedLine(n, line, order)
			d.outOfOrder = true
			if e.Totals.Entries > st.run.after(e).Entries {
				// Entries are missing before it: what they spent.
				d.gap = newSpanBound(n, st.want(e), e)
			}
			if d.gap == nil || checkTotals(st.want(e), e, false) != nil {
				// Not lines missing only: its totals are below the
				// chain in some count (a line moved, duplicated or added
				// before it), which can lower the bound of a span before
				// it.
				lastReordered = n
			}
			damaged = append(damaged, d)
		} else {
			validLine = n
		}
		pending = len(damaged)
		if e.Totals != nil {
			sinceTotals = len(damaged)
		}
		st.run, st.totaled = st.run.advance(e), st.totaled || e.Totals != nil
		st.budgeted = st.budgeted || e.Totals != nil && e.Totals.Budgets != nil
		if e.Kind == KindBudget {
			st.budgets++
		}
		st.longest = max(st.longest, len(line))
		st.entries = append(st.entries, e)
	}
	if len(last) > 0 {
		last, _ = tol.line(len(lines)+1, last)
	}
	if len(last) > 0 {
		if _, err := decodeEntry(last, st.summed); err != nil && !isTruncated(err) {
			// A complete object that breaks a rule is not a tear.
			damaged = append(damaged, newDamagedLine(len(lines)+1, last, err))
			st.unterminated = true
		} else {
			st.torn = newTornError(path, fragment{line: len(lines) + 1, data: last, unterminated: true}, st.summed)
		}
	}
	st.notes = tol.notes()
	kept := data[:blankTail(data)]
	st.nextLine = bytes.Count(kept, []byte{'\n'}) + 1
	if len(kept) > 0 && kept[len(kept)-1] != '\n' {
		st.nextLine++ // a torn line, terminated by the repair
	}
	if tip != nil {
		st.checkTip(path, *tip, damaged)
	}
	markLong(damaged, st.longest)
	for _, d := range damaged {
		if d.line < lastReordered {
			// Lines were moved, duplicated or added before it: the
			// totals of the lines around d need not bound it (an intact
			// line moved into its span lowers their difference). Lines
			// missing only (a gap) leave the bound of every span as the
			// writer wrote it.
			d.bound = nil
		}
		if !d.resolved {
			st.damaged = append(st.damaged, d)
		}
	}
	st.charges, _ = damageCharges(st, nil, true)
	if te := st.tipErr; te != nil && !te.boundsDamage && (te.Epsilon > 0 || te.Delta > 0) {
		st.charges = append(st.charges, damageCharge{all: true, eps: te.Epsilon, delta: te.Delta,
			why: "the tip file shows lines missing at the end of the ledger"})
	}
	return st
}

// budgetOrderSlack is how far a dataset's budget entry may be dated before
// its previous one (a clock stepped back) without counting as reordered.
const budgetOrderSlack = time.Second

// budgetLine is where and when a dataset's last budget entry was read.
type budgetLine struct {
	line int
	time time.Time
}

// checkBudgetOrder refuses a budget entry dated more than budgetOrderSlack
// before the dataset's previous budget entry: since the last budget entry
// counts and checksums are per line, swapped budget lines would silently
// change the budget (docs/ledger.md, "Damage"). It records e otherwise.
func checkBudgetOrder(at map[string]budgetLine, n int, e Entry) error {
	if prev, ok := at[e.DatasetHash]; ok && e.Time.Before(prev.time.Add(-budgetOrderSlack)) {
		return fmt.Errorf("time: this budget entry is dated %s, before the dataset's budget entry on line %d (%s): the lines may have been reordered, and the last budget entry counts",
			e.Time.UTC().Format(time.RFC3339Nano), prev.line, prev.time.UTC().Format(time.RFC3339Nano))
	}
	at[e.DatasetHash] = budgetLine{line: n, time: e.Time}
	return nil
}

// isTruncated reports whether a decoding error is what a torn write leaves:
// JSON cut short or followed by garbage (e.g. the zeros a crash can leave at
// the end of a file). A complete JSON object that breaks a rule (unknown
// field, version or kind, bad value) or a blank line is not a tear.
func isTruncated(err error) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errTrailing) || errors.As(err, &se)
}

var errTrailing = errors.New("trailing data after the entry")

// fragment is an unterminated last line.
type fragment struct {
	line         int
	data         []byte
	unterminated bool // the file's last bytes, without a line end
}

// newTornError summarises an unterminated last line: what it reveals of
// the dataset, ε and δ of the interrupted append.
func newTornError(path string, f fragment, requireSum bool) *TornError {
	t := &TornError{File: path, Line: f.line, Fragment: f.data, Unterminated: true}
	if e, err := decodeEntry(f.data, requireSum); err == nil {
		t.Complete, t.Charged = true, true
		t.DatasetHash, t.Epsilon, t.Delta = e.DatasetHash, e.Epsilon, e.Delta
		if !e.Kind.spends() {
			t.Epsilon, t.Delta = 0, 0
		}
		return t
	}
	r := recoverFields(f.data)
	t.DatasetHash = r.hash
	if r.hasEps {
		t.Epsilon, t.Delta, t.Charged = r.eps, r.delta, true
	}
	if t.DatasetHash == "" || !t.Charged {
		t.Epsilon, t.Delta, t.Charged = 0, 0, false
	}
	return t
}
