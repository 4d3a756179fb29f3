package synopsis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// Verified is a synopsis file whose signature verified. Whether the
// signer is one the reader trusts is a separate question, answered by
// Trusted: a valid signature by an unknown key only proves that the file is
// intact since someone signed it.
type Verified struct {
	// File is the validated content.
	File *File
	// Release is the released Bernstein polynomial, restored from the
	// lattice values (mechanism.RestoreSynopsis); nil for a peer kind.
	Release *mechanism.Synopsis
	// Function is the released function of any kind (Release for a
	// Bernstein file); evaluate it on [0,1]^ℓ or use EvalData.
	Function Function
	// Signer is the Ed25519 public key that made the signature.
	Signer ssh.PublicKey
	// Fingerprint is ssh.FingerprintSHA256(Signer), "SHA256:…".
	Fingerprint string
	// Trusted is true when an entry of the reader's allowed signers holds
	// the key, admits the namespace and is valid now.
	Trusted bool
	// Principal is the matching entry's principals field (e.g.
	// "alice@example.org"); "" when not trusted.
	Principal string
	// TrustNote explains in one sentence why the signer is or is not
	// trusted (e.g. a matching key whose entry excludes the namespace).
	TrustNote string
}

// RequireTrusted returns nil if the signer is trusted, else an error that
// matches ErrUntrusted and names the key's fingerprint.
func (v *Verified) RequireTrusted() error {
	if v.Trusted {
		return nil
	}
	return fmt.Errorf("%w: key %s (%s)", ErrUntrusted, v.Fingerprint, v.TrustNote)
}

// Open reads, verifies and validates the synopsis file at path
// (Read with the file's size). Errors are prefixed with path and
// still match the sentinels under errors.Is / errors.As.
func Open(path string, trusted *keys.AllowedSigners) (*Verified, error) {
	fh, st, err := fileio.OpenRegularStat(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	v, err := Read(fh, st.Size(), trusted) // OpenRegular checked the file is regular
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Read reads a synopsis file of size bytes from r (size < 0: unknown,
// read until EOF), verifies its signature, and only then parses and
// validates the payload. Nothing of the content is returned unless the
// signature verified over exactly the payload bytes.
//
// The file is read once, as a stream: memory does not grow with the file
// (see readSynopsis); the payload is hashed as it passes and parsed on the
// way, but a parse error is reported only after the signature verified.
//
// Order of checks: the size cap MaxFileSize (before reading); the
// magic line and format version (ErrUnsupportedFormat for another version);
// the signature block (ErrTooLarge beyond MaxSignatureBlockSize, before
// decoding; the stated size; ErrBadSignature: missing, non-canonical,
// trailing data, wrong namespace or key type, or not verifying); the metadata (size
// cap MaxMetadataSize, unknown fields, canonical form, every rule
// of Validate); the declared lattice size (∏(k_j+1) ≤
// mechanism.MaxCoefficients and within the remaining bytes, before the
// values are allocated); each value line (canonical decimal, finite); no
// bytes between the last value and the signature; then
// mechanism.RestoreSynopsis. Errors are *FormatError values wrapping
// ErrMalformed, ErrUnsupportedFormat, ErrTooLarge or ErrBadSignature, or
// read errors from r.
//
// trusted may be nil (no key is trusted). The result says whether the
// signer is trusted (see Verified); an untrusted but valid file is
// not an error.
func Read(r io.Reader, size int64, trusted *keys.AllowedSigners) (*Verified, error) {
	return readSynopsis(r, size, MaxFileSize, trusted, time.Now())
}

// parseMagic checks the first line, "bernstein-synopsis format N\n", and
// returns the offset just after it.
func parseMagic(data []byte) (int, error) {
	prefix := Magic + " format "
	const maxLine = 64
	head := data[:min(len(data), maxLine)]
	nl := bytes.IndexByte(head, '\n')
	if !bytes.HasPrefix(head, []byte(prefix)) || nl < 0 {
		return 0, posErr(data, 0, ErrMalformed, "", "not a Bernstein synopsis file: the first line must be %q", strings.TrimSpace(magicLine(Format)))
	}
	num := string(head[len(prefix):nl])
	ver, err := strconv.Atoi(num)
	if err != nil || ver < 0 || strconv.Itoa(ver) != num {
		return 0, posErr(data, 0, ErrMalformed, "format", "%q is not a format version number", num)
	}
	if ver != Format {
		return 0, posErr(data, 0, ErrUnsupportedFormat, "format",
			"the file has format %d; this build reads format %d only (a newer release of Bernstein Release may read it)", ver, Format)
	}
	return nl + 1, nil
}

// parseHeader decodes the JSON metadata between off and the first line
// "}" (the top-level object's end: nested lines are indented), strictly:
// size cap, unknown fields, canonical re-encoding, Validate's rules for the
// metadata, and the lattice declaration. It returns the offset of the
// first value line.
func parseHeader(data []byte, off, end int) (*synopsisHeader, int, error) {
	region := data[off:end]
	if len(region) == 0 || region[0] != '{' {
		return nil, 0, posErr(data, off, ErrMalformed, "", "the metadata must start with a line \"{\"")
	}
	window := region[:min(len(region), MaxMetadataSize+1)]
	j := bytes.Index(window, []byte("\n}\n"))
	if j < 0 {
		if len(region) > MaxMetadataSize {
			return nil, 0, posErr(data, off, ErrTooLarge, "", "the metadata is larger than %d bytes", MaxMetadataSize)
		}
		return nil, 0, posErr(data, off, ErrMalformed, "", "the metadata has no closing line \"}\"")
	}
	raw := region[:j+3]

	var h synopsisHeader
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, 0, jsonError(data, off, err)
	}
	canon, err := encodeHeader(&h)
	if err != nil || !bytes.Equal(canon, raw) {
		k := 0
		for k < len(raw) && k < len(canon) && raw[k] == canon[k] {
			k++
		}
		return nil, 0, posErr(data, off+k, ErrMalformed, "",
			"the metadata is not in canonical form (fixed field order, two-space indentation, no duplicate or differently spelled keys, shortest numbers, UTC time)")
	}
	if h.Format != Format {
		return nil, 0, posErr(data, off, ErrUnsupportedFormat, "format", "metadata says format %d but the first line says %d", h.Format, Format)
	}
	f := h.File
	f.Values = nil
	if err := f.validateMeta(); err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Line, fe.Offset = lineAt(data, off), int64(off)
		}
		return nil, 0, err
	}
	if want := f.ValueOrder(); h.Lattice.Order != want {
		return nil, 0, posErr(data, off, ErrMalformed, "lattice.order", "%q is not the order of a %s file; want %q", h.Lattice.Order, f.Mechanism.Name, want)
	}
	if want := f.valueCount(); h.Lattice.Count != want {
		return nil, 0, posErr(data, off, ErrMalformed, "lattice.count", "declares %d values; the %s release (k = %v) has %d", h.Lattice.Count, f.Mechanism.Name, f.Mechanism.K, want)
	}
	return &h, off + len(raw), nil
}

// jsonError turns a decoding error into a *FormatError at its position.
func jsonError(data []byte, off int, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return posErr(data, off+int(syn.Offset), ErrMalformed, "", "metadata is not valid JSON: %v", syn)
	case errors.As(err, &typ):
		field := strings.TrimPrefix(typ.Field, "File.")
		return posErr(data, off+int(typ.Offset), ErrMalformed, field, "has a JSON %s where a %v is required", typ.Value, typ.Type)
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return posErr(data, off, ErrMalformed, excerpt([]byte(strings.Trim(name, `"`))),
			"unknown field: format %d has no such field (a file from a newer release, or edited by hand)", Format)
	}
	return posErr(data, off, ErrMalformed, "", "metadata cannot be decoded: %v", err)
}

// maxValueLine is the longest canonical value line: the shortest decimal of
// a float64 is at most 24 bytes ("-2.2250738585072014e-308").
const maxValueLine = 24

// maxExcerpt caps how much of a hostile input an error message repeats.
const maxExcerpt = 40

// excerpt returns at most maxExcerpt bytes of b, marked with "…" when cut,
// so that an error never repeats a huge line or name from the file.
func excerpt(b []byte) string {
	if len(b) <= maxExcerpt {
		return string(b)
	}
	return string(b[:maxExcerpt]) + "…"
}
