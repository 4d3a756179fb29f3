package synopsis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// synopsisHeader is the JSON metadata block: the File fields in
// declaration order, then the lattice declaration that announces how many
// value lines follow.
type synopsisHeader struct {
	File
	Lattice latticeHeader `json:"lattice"`
}

type latticeHeader struct {
	// Count is ∏(k_j+1), the number of value lines after the metadata.
	Count int `json:"count"`
	// Order is LatticeOrder.
	Order string `json:"order"`
}

// magicLine returns the first line of a file of the given format version.
func magicLine(format int) string {
	return Magic + " format " + strconv.Itoa(format) + "\n"
}

// encodeHeader returns the canonical metadata block: indented JSON (two
// spaces), no HTML escaping, ending with "}\n". Reading re-encodes the
// decoded header with this function and requires identical bytes.
func encodeHeader(h *synopsisHeader) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendValue appends the canonical text of a lattice value: the shortest
// decimal that reads back to exactly v (strconv 'g', precision −1).
func appendValue(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// encodePayload returns the signed part of the file: magic line, metadata,
// value lines. f must have passed Validate.
func encodePayload(f *File) ([]byte, error) {
	h := &synopsisHeader{File: *f, Lattice: latticeHeader{Count: len(f.Values), Order: f.ValueOrder()}}
	meta, err := encodeHeader(h)
	if err != nil {
		return nil, fmt.Errorf("encode synopsis metadata: %w", err)
	}
	if len(meta) > MaxMetadataSize {
		return nil, fieldErr(ErrTooLarge, "", "metadata is %d bytes; at most %d", len(meta), MaxMetadataSize)
	}
	magic := magicLine(f.Format)
	out := make([]byte, 0, len(magic)+len(meta)+len(f.Values)*24)
	out = append(out, magic...)
	out = append(out, meta...)
	for _, v := range f.Values {
		out = appendValue(out, v)
		out = append(out, '\n')
	}
	return out, nil
}

// Encode validates f and returns the bytes of its signed synopsis
// file: the payload (magic line, canonical JSON metadata, one value per
// line) followed by an armored SSHSIG signature over exactly the payload
// bytes, made by signer (Ed25519, namespace Namespace, SHA-512).
// The layout is specified in synopsis_doc.go and docs/synopsis-format.md.
// Encoding is deterministic: the same f and key give the same bytes.
//
// Errors: a *FormatError from Validate (ErrMalformed, ErrTooLarge,
// ErrUnsupportedFormat), or a signing error (nil or non-Ed25519 signer).
func Encode(f *File, signer ssh.Signer) ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	payload, err := encodePayload(f)
	if err != nil {
		return nil, err
	}
	if len(payload)+4096 > MaxFileSize {
		return nil, fieldErr(ErrTooLarge, "", "file would be %d bytes; at most %d", len(payload), MaxFileSize)
	}
	sig, err := signPayload(payload, signer)
	if err != nil {
		return nil, err
	}
	return append(payload, sig...), nil
}

// Write encodes and signs f (Encode) and writes it to path
// atomically with mode 0644 (fileio.WriteAtomic): path ends up holding either
// its old content or the whole new file. Unless overwrite, an existing path
// is left alone and the error matches ErrExists. The caller chooses path;
// the conventional extension is Ext.
func Write(path string, f *File, signer ssh.Signer, overwrite bool) error {
	data, err := Encode(f, signer)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fileio.WriteAtomic(path, data, 0o644, overwrite)
}
