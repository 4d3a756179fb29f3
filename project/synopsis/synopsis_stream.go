package synopsis

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// MaxSignatureBlockSize caps the armored signature block at the end of a
// synopsis file (64 KiB; a real Ed25519 SSHSIG block is about 300 bytes).
// A longer block is refused before it is decoded (issue 14 item 9: a
// 500 MB block made the reader hold several copies of it).
const MaxSignatureBlockSize = 64 << 10

// synReadBuffer is the read buffer of the streaming reader: the longest
// fragment of a line it hands on at once. It must exceed the BEGIN line and
// the magic line so that both always arrive whole.
const synReadBuffer = 64 << 10

// readSynopsis is Read with the file-size cap limit and the clock
// for allowed_signers validity windows passed in.
//
// The file is read once, front to back, in fragments of at most
// synReadBuffer bytes: every payload byte goes into the SSHSIG message hash
// as it passes, and the payload parser (payloadParser) takes what it needs
// (the metadata, at most MaxMetadataSize, and one value per line).
// A parse error is only remembered: the signature decides first, exactly as
// if the whole file had been verified before parsing, and nothing is
// returned unless it verified. Memory: the read buffer, the metadata, the
// signature block (≤ MaxSignatureBlockSize) and the declared values
// (≤ mechanism.MaxCoefficients, and at most half the bytes the file can
// still hold), never the file itself.
func readSynopsis(r io.Reader, size, limit int64, trusted *keys.AllowedSigners, now time.Time) (*Verified, error) {
	if size > limit {
		return nil, &FormatError{Offset: -1, Rule: fmt.Sprintf("file is %d bytes; at most %d", size, limit), Err: ErrTooLarge}
	}
	bound := limit // the most bytes the file may have
	if size >= 0 {
		bound = size
	}
	cr := &countingReader{r: io.LimitReader(r, bound+1)}
	br := bufio.NewReaderSize(cr, synReadBuffer)
	sums := newPayloadHashes()
	p := &payloadParser{bound: bound}

	var off int64 // offset of the next byte
	line := 1     // line of the next byte
	atStart := true
	sigOff := int64(-1)
	for {
		frag, err := br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(frag) > 0 {
			if atStart && off > 0 && bytes.Equal(frag, signatureBegin) {
				sigOff = off
				break
			}
			sums.Write(frag)
			if err := p.feed(frag, off, line, atStart); err != nil {
				return nil, err // not a synopsis file at all (the magic line)
			}
			off += int64(len(frag))
			atStart = frag[len(frag)-1] == '\n'
			if atStart {
				line++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if err := p.finishMagic(); err != nil {
		return nil, err
	}
	if sigOff < 0 {
		if err := checkLength(cr.n, size, limit); err != nil {
			return nil, err
		}
		return nil, &FormatError{Line: line, Offset: off, Field: "signature", Err: ErrBadSignature,
			Rule: fmt.Sprintf("no SSH signature block (a line %q) found: the file is unsigned or truncated", bytes.TrimSpace(signatureBegin))}
	}

	// The signature block: refused by its size alone before any decoding.
	block := make([]byte, len(signatureBegin), len(signatureBegin)+4096)
	copy(block, signatureBegin)
	rest := io.LimitReader(br, int64(MaxSignatureBlockSize-len(signatureBegin)+1))
	block, err := appendAll(block, rest)
	if err != nil {
		return nil, err
	}
	if len(block) > MaxSignatureBlockSize {
		return nil, &FormatError{Line: line, Offset: sigOff, Field: "signature", Err: ErrTooLarge,
			Rule: fmt.Sprintf("the SSH signature block is more than %d bytes (a real one is about 300): not a synopsis signature", MaxSignatureBlockSize)}
	}
	if err := checkLength(cr.n, size, limit); err != nil {
		return nil, err
	}
	pub, err := verifyBlock(block, sums, sigOff, line)
	if err != nil {
		return nil, err
	}
	f, fn, rel, err := p.finish(sigOff)
	if err != nil {
		return nil, err
	}
	v := &Verified{File: f, Release: rel, Function: fn, Signer: pub, Fingerprint: ssh.FingerprintSHA256(pub)}
	v.Principal, v.TrustNote, v.Trusted = trusted.Match(pub, keys.Namespace, now)
	return v, nil
}

// checkLength compares the bytes read, n (at most the bound + 1), with the
// stated size (or, for size < 0, the cap limit).
func checkLength(n, size, limit int64) error {
	switch {
	case size < 0 && n > limit:
		return &FormatError{Offset: -1, Rule: fmt.Sprintf("file is more than %d bytes", limit), Err: ErrTooLarge}
	case size >= 0 && n > size:
		return &FormatError{Offset: size, Rule: fmt.Sprintf("file is longer than its stated size %d", size), Err: ErrMalformed}
	case size >= 0 && n < size:
		return &FormatError{Offset: n, Rule: fmt.Sprintf("file ended after %d of %d bytes", n, size), Err: ErrMalformed}
	}
	return nil
}

// appendAll appends r's bytes to buf until EOF (r is size-limited).
func appendAll(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// payloadHashes hashes the payload with every hash an SSHSIG signature may
// name (the block, and with it the algorithm, comes after the payload).
type payloadHashes struct {
	sha256, sha512 hash.Hash
}

func newPayloadHashes() *payloadHashes {
	return &payloadHashes{sha256: sha256.New(), sha512: sha512.New()}
}

func (p *payloadHashes) Write(b []byte) {
	p.sha256.Write(b)
	p.sha512.Write(b)
}

// sum returns the payload's digest under the SSHSIG hash name, or nil.
func (p *payloadHashes) sum(name string) []byte {
	switch name {
	case "sha256":
		return p.sha256.Sum(nil)
	case "sha512":
		return p.sha512.Sum(nil)
	}
	return nil
}

// payloadParser parses the payload as it streams past, one fragment at a
// time (a whole line, or a piece of a line longer than synReadBuffer). It
// keeps the first error and ignores the rest of the payload after it; the
// caller reports that error only once the signature verified.
type payloadParser struct {
	bound int64 // the most bytes the file may have (stated size or cap)

	magicEnd int    // offset after the magic line; 0 until it is read
	hdr      []byte // the file from byte 0 through the metadata's "}" line
	header   *synopsisHeader
	valOff   int64 // offset of the first value line
	vals     []float64
	n        int // value lines read

	long    bool // inside a value line longer than maxValueLine
	longOff int64
	longLen int64
	longHd  []byte
	longLn  int

	scratch []byte
	err     error
}

// feed takes the fragment frag at offset off, line ln (atStart: it begins a
// line). It returns an error only for the magic line, which is checked at
// once: a file that is not a synopsis is not hashed to its end.
func (p *payloadParser) feed(frag []byte, off int64, ln int, atStart bool) error {
	if p.magicEnd == 0 {
		// The first fragment holds the whole magic line if there is one
		// (synReadBuffer > the longest valid magic line).
		end, err := parseMagic(frag)
		if err != nil {
			return err
		}
		p.magicEnd = end
		// One allocation for the metadata and the fragment that may cross
		// its cap, never more than the file.
		p.hdr = make([]byte, 0, min(p.bound+1, int64(end+MaxMetadataSize+1+synReadBuffer)))
		p.hdr = append(p.hdr, frag[:end]...)
		frag, off = frag[end:], off+int64(end)
		if len(frag) == 0 {
			return nil
		}
	}
	if p.err != nil {
		return nil
	}
	if p.header == nil {
		p.feedHeader(frag, atStart)
		return nil
	}
	p.feedValue(frag, off, ln, atStart)
	return nil
}

// finishMagic reports a file that ended before its magic line did.
func (p *payloadParser) finishMagic() error {
	if p.magicEnd == 0 {
		_, err := parseMagic(nil)
		return err
	}
	return nil
}

// feedHeader collects the metadata lines until the line "}" or until they
// exceed MaxMetadataSize, then parses them with parseHeader.
func (p *payloadParser) feedHeader(frag []byte, atStart bool) {
	p.hdr = append(p.hdr, frag...)
	closing := atStart && string(frag) == "}\n"
	if !closing && len(p.hdr)-p.magicEnd <= MaxMetadataSize+1 {
		return
	}
	p.parseHeader()
}

// parseHeader parses the collected metadata (complete or not) and sizes
// the values.
func (p *payloadParser) parseHeader() {
	h, valOff, err := parseHeader(p.hdr, p.magicEnd, len(p.hdr))
	if err != nil {
		p.err = err
		return
	}
	count := h.Lattice.Count
	if count < 0 || count > mechanism.MaxCoefficients {
		p.err = posErr(p.hdr, valOff, ErrTooLarge, "lattice.count", "%d values exceed the cap %d", count, mechanism.MaxCoefficients)
		return
	}
	if remaining := p.bound - int64(valOff); int64(count) > remaining/2 {
		p.err = posErr(p.hdr, valOff, ErrMalformed, "values", "%d values are declared but only %d bytes remain in the file", count, max(remaining, 0))
		return
	}
	p.header, p.valOff = h, int64(valOff)
	p.vals = make([]float64, count)
}

// fieldName is the lazily formatted "name[i]" of an error's field.
type fieldName struct {
	name string
	i    int
}

func (f fieldName) String() string { return fmt.Sprintf("%s[%d]", f.name, f.i) }

// feedValue checks one value line (or a piece of an over-long one).
func (p *payloadParser) feedValue(frag []byte, off int64, ln int, atStart bool) {
	endsLine := frag[len(frag)-1] == '\n'
	if p.long || !atStart || !endsLine {
		p.feedLong(frag, off, ln, atStart, endsLine)
		return
	}
	i := p.n
	field := fieldName{"values", i}
	if i >= len(p.vals) {
		p.err = &FormatError{Line: ln, Offset: off, Field: "values", Err: ErrMalformed,
			Rule: fmt.Sprintf("unexpected data after the %d declared values", len(p.vals))}
		return
	}
	line := frag[:len(frag)-1]
	if len(line) > maxValueLine {
		p.err = &FormatError{Line: ln, Offset: off, Field: field.String(), Err: ErrMalformed,
			Rule: fmt.Sprintf("a value line of %d bytes starting %q; a canonical value has at most %d", len(line), excerpt(line), maxValueLine)}
		return
	}
	v, err := strconv.ParseFloat(string(line), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		p.err = &FormatError{Line: ln, Offset: off, Field: field.String(), Err: ErrMalformed,
			Rule: fmt.Sprintf("%q is not a finite decimal number", line)}
		return
	}
	p.scratch = appendValue(p.scratch[:0], v)
	if !bytes.Equal(p.scratch, line) {
		p.err = &FormatError{Line: ln, Offset: off, Field: field.String(), Err: ErrMalformed,
			Rule: fmt.Sprintf("%q is not in canonical form %q", line, p.scratch)}
		return
	}
	p.vals[i] = v
	p.n++
}

// feedLong measures a value line that arrives in pieces (longer than the
// read buffer, so far longer than any canonical value) and reports it,
// with its length and a short excerpt, when it ends. A piece without a line
// end at the end of the payload cannot occur in a signed file (the BEGIN
// line follows a line feed); the missing signature is reported instead.
func (p *payloadParser) feedLong(frag []byte, off int64, ln int, atStart, endsLine bool) {
	if atStart {
		p.long, p.longOff, p.longLen, p.longLn = true, off, 0, ln
		p.longHd = append(p.longHd[:0], frag[:min(len(frag), maxExcerpt+1)]...)
	}
	p.longLen += int64(len(frag))
	if !endsLine {
		return
	}
	p.long = false
	field := "values"
	if p.n < len(p.vals) {
		field = fieldName{"values", p.n}.String()
	}
	p.err = &FormatError{Line: p.longLn, Offset: p.longOff, Field: field, Err: ErrMalformed,
		Rule: fmt.Sprintf("a value line of %d bytes starting %q; a canonical value has at most %d", p.longLen-1, excerpt(p.longHd), maxValueLine)}
}

// finish completes the verified payload that ended at sigOff: the first
// parse error, or the values' count, Validate and the restored release.
func (p *payloadParser) finish(sigOff int64) (*File, Function, *mechanism.Synopsis, error) {
	if p.err == nil && p.header == nil {
		p.parseHeader() // the metadata ended without its "}" line
	}
	if p.err == nil && p.long {
		// Only where the payload is not followed by the BEGIN line (the
		// fuzz target's parsePayload): the real reader reports the missing
		// signature first.
		p.err = &FormatError{Line: p.longLn, Offset: p.longOff, Field: "values", Err: ErrMalformed,
			Rule: "the last line of the payload has no line feed"}
	}
	if p.err != nil {
		return nil, nil, nil, p.err
	}
	if p.n < len(p.vals) {
		return nil, nil, nil, &FormatError{Line: lineAt(p.hdr, len(p.hdr)) + p.n, Offset: sigOff, Field: fmt.Sprintf("values[%d]", p.n), Err: ErrMalformed,
			Rule: fmt.Sprintf("missing: the file has only %d of %d values", p.n, len(p.vals))}
	}
	f := &p.header.File
	f.Values = p.vals
	if err := f.Validate(); err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Line == 0 {
			fe.Line, fe.Offset = 2, int64(p.magicEnd)
		}
		return nil, nil, nil, err
	}
	fn, rel, err := f.restoreFunction()
	if err != nil {
		return nil, nil, nil, &FormatError{Line: 2, Offset: int64(p.magicEnd), Field: "mechanism",
			Rule: "the release parameters are inconsistent: " + err.Error(), Err: ErrMalformed}
	}
	return f, fn, rel, nil
}
