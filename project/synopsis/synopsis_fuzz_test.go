package synopsis

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// FuzzReadSynopsis feeds arbitrary bytes to the reader, twice: as they are
// (almost everything must then fail the signature), and as a payload that
// passed verification, so that the parser behind the signature check is
// fuzzed too. Properties: no panic; every error matches one of the four
// sentinels; every accepted file is canonical — its payload re-encodes to
// exactly the input bytes, and its content passes Validate.
//
// Seed corpus: the golden files (with and without a source record, and
// one per peer kind: hall-gp, wang-trig, output-perturbation), the
// fixtures below and testdata/fuzz/FuzzReadSynopsis/. CI runs it for
// 300000 executions (make fuzz: go test -run '^$' -fuzz '^FuzzReadSynopsis$'
// -fuzztime 300000x ./project/synopsis).
func FuzzReadSynopsis(f *testing.F) {
	// One lean seed per kind: the golden files of the peer kinds
	// (kinds_golden_test.go) beside the Bernstein ones.
	for _, path := range []string{goldenPath, goldenSourcePath, kindGoldenPaths[MechanismGP],
		kindGoldenPaths[MechanismTrig], kindGoldenPaths[MechanismOutputPerturbation]} {
		if golden, err := os.ReadFile(path); err == nil {
			f.Add(golden)
		}
	}
	for _, s := range []synSpec{
		{kind: learners.OutputDensity, k: []int{3}},
		{kind: learners.OutputRegression, k: []int{2, 2}, h: 2},
		{kind: learners.OutputProbability, k: []int{1, 1, 1}},
	} {
		data := encodeSyn(f, buildSynFile(f, s), "fuzz")
		f.Add(data)
		f.Add(data[:synSigIndex(data)])
	}
	f.Add([]byte("bernstein-synopsis format 1\n{\n}\n"))
	f.Add([]byte("bernstein-synopsis format 2\n"))
	f.Add([]byte{})

	trusted := synTrust(f, "fuzz")
	f.Fuzz(func(t *testing.T, data []byte) {
		// 1. The whole reader on the bytes as they are.
		v, err := parseSynopsis(data, trusted, synTime)
		if err != nil {
			checkSynopsisError(t, err)
		} else {
			checkCanonical(t, v.File, data[:synSigIndex(data)])
		}
		// 2. The parser behind the signature check, on the bytes taken as a
		//    verified payload (as if re-signed: skipping the crypto keeps
		//    executions cheap).
		magicEnd, err := parseMagic(data)
		if err != nil {
			checkSynopsisError(t, err)
			return
		}
		file, _, err := parsePayload(data, magicEnd, len(data))
		if err != nil {
			checkSynopsisError(t, err)
			return
		}
		checkCanonical(t, file, data)
	})
}

func checkSynopsisError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrBadSignature) &&
		!errors.Is(err, ErrUnsupportedFormat) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("untyped error: %v", err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error is not a *FormatError: %v", err)
	}
}

// checkCanonical requires accepted content to be valid and to re-encode to
// exactly the payload it was read from.
func checkCanonical(t *testing.T, f *File, payload []byte) {
	t.Helper()
	if err := f.Validate(); err != nil {
		t.Fatalf("accepted content fails Validate: %v", err)
	}
	again, err := encodePayload(f)
	if err != nil {
		t.Fatalf("accepted content does not re-encode: %v", err)
	}
	if !bytes.Equal(again, payload) {
		t.Fatalf("accepted a non-canonical payload:\n%q\nre-encodes as\n%q", payload, again)
	}
}

// parseSynopsis (the fuzz target's reader) is Read on bytes, with the clock for allowed_signers
// validity windows passed in.
func parseSynopsis(data []byte, trusted *keys.AllowedSigners, now time.Time) (*Verified, error) {
	return readSynopsis(bytes.NewReader(data), int64(len(data)), MaxFileSize, trusted, now)
}

// parsePayload parses data[:sigOff] as a verified payload whose magic line
// ends at magicEnd (the fuzz target's way past the signature check): the
// same payloadParser, fed line by line.
func parsePayload(data []byte, magicEnd, sigOff int) (*File, *mechanism.Synopsis, error) {
	p := &payloadParser{bound: int64(sigOff)}
	if err := p.feed(data[:magicEnd], 0, 1, true); err != nil {
		return nil, nil, err
	}
	ln := 2
	for off := magicEnd; off < sigOff; {
		end := sigOff
		if nl := bytes.IndexByte(data[off:sigOff], '\n'); nl >= 0 {
			end = off + nl + 1
		}
		_ = p.feed(data[off:end], int64(off), ln, true)
		off, ln = end, ln+1
	}
	f, _, rel, err := p.finish(int64(sigOff))
	return f, rel, err
}
