package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/bernsteinrelease/bernstein/project"
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
	*project.SynopsisFile
	LatticeOrder string    `json:"lattice_order"`
	Values       []float64 `json:"values"`
}

// inspectValuesChunk is how many values writeInspectJSON encodes at once.
const inspectValuesChunk = 4096

// writeInspectJSON writes the inspectJSON document exactly as
// json.Encoder with two-space indentation would, but streams it (issue 14
// item 10: buffering the encoded document took 1.17 GB for a 224 MB file).
// Everything before the values is encoded as one small document whose
// values are empty; the values, the document's last field, follow in chunks
// of inspectValuesChunk, each number encoded by encoding/json itself, so
// the bytes are those of encoding the whole document at once
// (TestInspectJSONStreamsIdentically). Memory: the metadata plus one chunk.
func writeInspectJSON(w io.Writer, path string, v *project.VerifiedSynopsis) error {
	doc := inspectJSON{
		Path: path,
		Signature: signatureJSON{Valid: true, Trusted: v.Trusted, Principal: v.Principal,
			Fingerprint: v.Fingerprint, Note: v.TrustNote},
		SynopsisFile: v.File,
		LatticeOrder: project.LatticeOrder,
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
	for lo := 0; lo < len(vals); lo += inspectValuesChunk {
		hi := min(lo+inspectValuesChunk, len(vals))
		enc, err := json.Marshal(vals[lo:hi]) // "[v,v,…]": numbers never hold a comma
		if err != nil {
			return err
		}
		for i, num := range bytes.Split(enc[1:len(enc)-1], []byte{','}) {
			bw.WriteString("    ")
			bw.Write(num)
			if lo+i < len(vals)-1 {
				bw.WriteByte(',')
			}
			bw.WriteByte('\n')
		}
	}
	bw.WriteString("  ]\n}\n")
	return bw.Flush()
}
