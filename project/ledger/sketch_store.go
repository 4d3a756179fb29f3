package ledger

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// SketchStoreVersion is the format version of the sketch-store lines this
// program writes ("v"): 2, whose hashes are of rows encoded independently of
// the columns' names and order (IdentifyRecords). Lines of version 1 (rows
// in column-name order, the label as ±1) are still read and compared with
// the version-1 sketch of the same columns, so older sketches still count.
const SketchStoreVersion = 2

// sketchKeyBytes is the length of the secret sketch key.
const sketchKeyBytes = 32

// SketchStorePath and SketchKeyPath return where the sketches and their
// key of the ledger at ledgerPath live: beside it, as
// ledger.jsonl.sketches and ledger.jsonl.sketch-key.
func SketchStorePath(ledgerPath string) string { return ledgerPath + ".sketches" }

// SketchKeyPath returns the path of the sketch key; see SketchStorePath.
func SketchKeyPath(ledgerPath string) string { return ledgerPath + ".sketch-key" }

// SketchRecord is one line of the sketch store: the keyed sketch of the
// records a ledger dataset was charged for. See docs/ledger.md, "The sketch
// store", for the format.
type SketchRecord struct {
	Version     int      `json:"v"`
	DatasetHash string   `json:"dataset_hash"` // the ledger dataset charged
	Records     string   `json:"records"`      // DatasetIdentity.Records
	Columns     []string `json:"columns"`      // sorted used columns
	N           int      `json:"n"`            // rows
	KeyID       string   `json:"key_id"`       // which key made the hashes
	Mins        string   `json:"mins"`         // base64 of the hashes, 8 bytes big-endian each, ascending
}

// SketchStoreError is a sketch store (or its key) that cannot be trusted:
// a malformed line, a foreign key, a key readable by others. Like a damaged
// ledger it blocks releases until a person looks at it.
type SketchStoreError struct {
	File string
	Line int // 0 if not about one line
	Rule string
}

func (e *SketchStoreError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("sketch store %s, line %d: %s", e.File, e.Line, e.Rule)
	}
	return fmt.Sprintf("sketch store %s: %s", e.File, e.Rule)
}

// sketch decodes the record's hashes.
func (r SketchRecord) sketch() (Sketch, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(r.Mins)
	if err != nil || len(b)%8 != 0 || len(b)/8 > SketchSize || len(b)/8 > r.N {
		return Sketch{}, errors.New("mins: not at most min(n, 256) base64-encoded 8-byte hashes")
	}
	s := Sketch{N: r.N, Mins: make([]uint64, len(b)/8)}
	for i := range s.Mins {
		s.Mins[i] = binary.BigEndian.Uint64(b[8*i:])
		if i > 0 && s.Mins[i] <= s.Mins[i-1] {
			return Sketch{}, errors.New("mins: hashes not strictly ascending")
		}
	}
	if len(s.Mins) == 0 {
		return Sketch{}, errors.New("mins: no hashes")
	}
	return s, nil
}

func (r SketchRecord) validate() error {
	switch {
	case r.Version != 1 && r.Version != SketchStoreVersion:
		return fmt.Errorf("v: version %d is not supported (this program reads versions 1 and %d)", r.Version, SketchStoreVersion)
	case !IsSHA256Hex(r.DatasetHash):
		return fmt.Errorf("dataset_hash: %q is not a hex SHA-256", shortQuote(r.DatasetHash))
	case !IsSHA256Hex(r.Records):
		return fmt.Errorf("records: %q is not a hex SHA-256", shortQuote(r.Records))
	case len(r.Columns) == 0 || !slices.IsSorted(r.Columns):
		return errors.New("columns: want a non-empty sorted list")
	case r.N < 1:
		return fmt.Errorf("n: %d must be ≥ 1", r.N)
	case len(r.KeyID) != 16:
		return fmt.Errorf("key_id: %q is not 16 hex digits", shortQuote(r.KeyID))
	}
	_, err := r.sketch()
	return err
}

func shortQuote(s string) string {
	if len(s) > 70 {
		return s[:70] + "…"
	}
	return s
}

// sketchKeyID names a key without revealing it.
func sketchKeyID(key []byte) string {
	h := sha256.Sum256(append([]byte("bernstein sketch key id\x00"), key...))
	return hex.EncodeToString(h[:8])
}

// newSketchRecord builds the store line of a sketch.
func newSketchRecord(dataset string, id *DatasetIdentity, s Sketch, key []byte) SketchRecord {
	b := make([]byte, 8*len(s.Mins))
	for i, m := range s.Mins {
		binary.BigEndian.PutUint64(b[8*i:], m)
	}
	return SketchRecord{Version: SketchStoreVersion, DatasetHash: dataset, Records: id.Records,
		Columns: slices.Clone(id.Columns), N: s.N, KeyID: sketchKeyID(key), Mins: base64.StdEncoding.EncodeToString(b)}
}

// sketchStore is the sketch store of one ledger, read under its lock.
type sketchStore struct {
	path, keyPath string
	key           []byte // nil if there is no key yet (and then no sketch)
	records       []SketchRecord
	size          int64 // bytes of complete lines; a torn tail lies beyond
}

// readSketchStore reads the store and its key. A missing store is empty; a
// missing key is fine only while the store is empty (a store whose key is
// lost cannot be compared: *SketchStoreError). An unterminated last line is
// an append interrupted by a crash: since the ledger entry is written only
// after the sketch line, no release depends on it, and it is ignored (and
// cut off by the next append). Any other malformed line is a
// *SketchStoreError naming it.
func readSketchStore(ledgerPath string) (*sketchStore, error) {
	st := &sketchStore{path: SketchStorePath(ledgerPath), keyPath: SketchKeyPath(ledgerPath)}
	key, err := readSketchKey(st.keyPath)
	if err != nil {
		return nil, err
	}
	st.key = key
	data, err := os.ReadFile(st.path)
	if errors.Is(err, os.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sketch store: %w", err)
	}
	if err := st.parse(data); err != nil {
		return nil, err
	}
	return st, nil
}

// parse loads the store's bytes, given st.key (nil if there is none).
func (st *sketchStore) parse(data []byte) error {
	complete := data[:bytes.LastIndexByte(data, '\n')+1]
	st.size = int64(len(complete))
	if len(complete) > 0 && st.key == nil {
		return &SketchStoreError{File: st.keyPath, Rule: "the sketch key is missing, so the sketches in " + st.path +
			" cannot be compared; restore the key (from a backup of this directory) before releasing"}
	}
	lines := bytes.Split(complete, []byte{'\n'})
	lines = lines[:len(lines)-1] // the empty string after the last '\n'
	keyID := sketchKeyID(st.key)
	for i, line := range lines {
		var r SketchRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		err := dec.Decode(&r)
		if err == nil && dec.More() {
			err = errTrailing
		}
		if err == nil {
			err = r.validate()
		}
		if err == nil && r.KeyID != keyID {
			err = errors.New("key_id: made with another sketch key than " + st.keyPath)
		}
		if err != nil {
			return &SketchStoreError{File: st.path, Line: i + 1, Rule: "invalid sketch: " + err.Error()}
		}
		st.records = append(st.records, r)
	}
	return nil
}

// readSketchKey reads the key file; nil, nil if it does not exist. A key
// of the wrong size, or (on Unix) one readable by others, is refused.
func readSketchKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sketch key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("sketch key: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &SketchStoreError{File: path, Rule: "the sketch key is not a regular file"}
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, &SketchStoreError{File: path, Rule: fmt.Sprintf("the sketch key has mode %04o; it must be readable by its owner only (chmod 600)", fi.Mode().Perm())}
	}
	buf := make([]byte, 2*sketchKeyBytes+2)
	n, _ := f.Read(buf)
	text := bytes.TrimSuffix(buf[:n], []byte{'\n'})
	key, err := hex.DecodeString(string(text))
	if err != nil || len(key) != sketchKeyBytes {
		return nil, &SketchStoreError{File: path, Rule: fmt.Sprintf("the sketch key is damaged: want %d hex digits and a line end", 2*sketchKeyBytes)}
	}
	return key, nil
}

// ensureKey creates the key file if there is none: 32 random bytes in hex,
// mode 0600, created exclusively and synced. The caller holds the lock.
func (st *sketchStore) ensureKey() error {
	if st.key != nil {
		return nil
	}
	key := make([]byte, sketchKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("sketch key: %w", err)
	}
	f, err := os.OpenFile(st.keyPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sketch key: create: %w", err)
	}
	_, err = f.Write([]byte(hex.EncodeToString(key) + "\n"))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsops.Current.SyncDir(filepath.Dir(st.keyPath))
	}
	if err != nil {
		_ = os.Remove(st.keyPath)
		return fmt.Errorf("sketch key: %s: %w", st.keyPath, err)
	}
	st.key = key
	return nil
}

// has reports whether the store already holds this sketch for dataset.
func (st *sketchStore) has(dataset string, id *DatasetIdentity) bool {
	for _, r := range st.records {
		if r.DatasetHash == dataset && r.Records == id.Records && slices.Equal(r.Columns, id.Columns) {
			return true
		}
	}
	return false
}

// appendRecord appends one line durably (one write on O_APPEND, fsync),
// cutting off a torn tail first. The caller holds the lock.
func (st *sketchStore) appendRecord(r SketchRecord) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("sketch store: %w", err)
	}
	if fi, err := os.Stat(st.path); err == nil && fi.Size() > st.size {
		if err := os.Truncate(st.path, st.size); err != nil {
			return fmt.Errorf("sketch store: cutting off a torn last line: %w", err)
		}
	}
	if err := appendDurably(st.path, st.size, append(line, '\n')); err != nil {
		return fmt.Errorf("sketch store: %w", err)
	}
	st.size += int64(len(line)) + 1
	st.records = append(st.records, r)
	return nil
}
