package synopsis

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the synopsis reader and writer. Every error returned by
// Read, Open, Encode and (*File).Validate
// that concerns the file's content matches exactly one of them under
// errors.Is; most are a *FormatError that also says where and which rule.
var (
	// ErrMalformed: the bytes are not a well-formed synopsis file of a
	// supported format version (bad syntax, non-canonical encoding, a field
	// that breaks a rule, NaN/Inf, a truncated or padded file, an unknown
	// metadata field).
	ErrMalformed = errors.New("malformed synopsis file")
	// ErrUnsupportedFormat: the file names a format version this build does
	// not read (Format is the only one).
	ErrUnsupportedFormat = errors.New("unsupported synopsis format")
	// ErrTooLarge: the file, its metadata or its lattice exceeds a cap
	// (MaxFileSize, MaxMetadataSize, mechanism.MaxCoefficients,
	// mechanism.MaxDim). Checked before any allocation that depends on it.
	ErrTooLarge = errors.New("synopsis too large")
	// ErrBadSignature: the file carries no SSH signature block, the block is
	// not canonical, its namespace, key type or hash is not the one this
	// format uses, or the signature does not verify over the payload bytes.
	// Nothing in the file may be trusted, not even that it came from anyone.
	ErrBadSignature = errors.New("synopsis signature does not verify")
	// ErrUntrusted is returned by (*Verified).RequireTrusted when the
	// signature is valid but its key is not in the reader's allowed signers.
	ErrUntrusted = errors.New("synopsis signer is not trusted")
)

// FormatError says where a synopsis file breaks which rule. It wraps one of
// ErrMalformed, ErrUnsupportedFormat, ErrTooLarge or ErrBadSignature, so both
// errors.Is(err, ErrMalformed) and errors.As(err, &fe) work.
type FormatError struct {
	// Line is the 1-based line of the file where the problem was found, or 0
	// when it does not concern a position (e.g. Validate on a struct).
	Line int
	// Offset is the 0-based byte offset in the file, or −1 if unknown.
	Offset int64
	// Field names the metadata field in JSON path notation
	// (e.g. "mechanism.k[1]", "values[12]"), or "" for the file structure.
	Field string
	// Rule is the rule broken, with the offending value where it helps.
	Rule string
	// Err is the sentinel class (ErrMalformed, ErrUnsupportedFormat,
	// ErrTooLarge, ErrBadSignature).
	Err error
}

func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString("synopsis")
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
		if e.Offset >= 0 {
			fmt.Fprintf(&b, " (byte %d)", e.Offset)
		}
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Rule)
	if e.Err != nil {
		fmt.Fprintf(&b, " [%v]", e.Err)
	}
	return b.String()
}

// Unwrap returns the sentinel class.
func (e *FormatError) Unwrap() error { return e.Err }

// fieldErr is a FormatError without a position (from Validate).
func fieldErr(class error, field, format string, args ...any) *FormatError {
	return &FormatError{Offset: -1, Field: field, Rule: fmt.Sprintf(format, args...), Err: class}
}

// posErr is a FormatError at byte offset off of data.
func posErr(data []byte, off int, class error, field, format string, args ...any) *FormatError {
	return &FormatError{Line: lineAt(data, off), Offset: int64(off), Field: field,
		Rule: fmt.Sprintf(format, args...), Err: class}
}

// lineAt returns the 1-based line number of byte offset off in data.
func lineAt(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	n := 1
	for _, c := range data[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}
