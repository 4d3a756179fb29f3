package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// signatureJSON is the verdict part of inspect --json.
type signatureJSON struct {
	Valid       bool   `json:"valid"`
	Trusted     bool   `json:"trusted"`
	Principal   string `json:"principal"`
	Fingerprint string `json:"fingerprint"`
	Note        string `json:"note"`
}

// inspectJSON is the document printed by inspect --json: the verdict, the
// metadata fields of the synopsis (inlined) and its values.
type inspectJSON struct {
	Path      string        `json:"path"`
	Signature signatureJSON `json:"signature"`
	*synopsis.File
	LatticeOrder string    `json:"lattice_order"`
	Values       []float64 `json:"values"`
}

// writeInspectJSON writes the inspectJSON document exactly as
// json.Encoder with two-space indentation would, but streams it (issue 14
// item 10: buffering the encoded document took 1.17 GB for a 224 MB file).
// Everything before the values is encoded as one small document whose
// values are empty; the values, the document's last field, follow one by
// one through a 64 KiB buffer, each number written as encoding/json writes
// a float64 (appendJSONFloat), so the bytes are those of encoding the whole
// document at once (TestInspectJSONStreamsIdentically). Memory: the
// metadata and the buffer; no garbage per value.
func writeInspectJSON(w io.Writer, path string, v *synopsis.Verified) error {
	doc := inspectJSON{
		Path: path,
		Signature: signatureJSON{Valid: true, Trusted: v.Trusted, Principal: v.Principal,
			Fingerprint: v.Fingerprint, Note: v.TrustNote},
		File:         v.File,
		LatticeOrder: v.File.ValueOrder(),
		Values:       []float64{},
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	const emptyTail = "[]\n}\n"
	prefix, ok := bytes.CutSuffix(head.Bytes(), []byte(emptyTail))
	if !ok || !bytes.HasSuffix(prefix, []byte(`"values": `)) {
		return fmt.Errorf("inspect --json: the document does not end with its values")
	}
	vals := v.File.Values
	if len(vals) == 0 {
		_, err := w.Write(head.Bytes())
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(prefix)
	bw.WriteString("[\n")
	num := make([]byte, 0, 32)
	for i, x := range vals {
		num = append(num[:0], "    "...)
		num = appendJSONFloat(num, x)
		if i < len(vals)-1 {
			num = append(num, ',')
		}
		bw.Write(append(num, '\n'))
	}
	bw.WriteString("  ]\n}\n")
	return bw.Flush()
}

// appendJSONFloat appends x (finite) as encoding/json encodes a float64:
// the shortest representation that reads back exactly, in 'f' form, or in
// 'e' form for magnitudes below 1e-6 or from 1e21 on, with the exponent's
// leading zero dropped ("1e-07" becomes "1e-7").
func appendJSONFloat(b []byte, x float64) []byte {
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}
