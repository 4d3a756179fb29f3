package synopsis

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

func TestSynopsisRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		s    synSpec
	}{
		{"density ℓ=1 laplace", synSpec{kind: learners.OutputDensity, k: []int{3}}},
		{"density ℓ=2 h=3 gaussian", synSpec{kind: learners.OutputDensity, k: []int{4, 2}, h: 3, noise: mechanism.NoiseGaussian, delta: 1e-6}},
		{"regression ℓ=2 laplace-approx", synSpec{kind: learners.OutputRegression, k: []int{5, 6}, h: 2, noise: mechanism.NoiseLaplaceApprox, eps: 5, delta: 1e-5}},
		{"class-score ℓ=3", synSpec{kind: learners.OutputClassScore, k: []int{2, 3, 1},
			values: []float64{-0, 1e-300, -1.5e300, 0.1, 1.0 / 3, -2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}}},
		{"probability ℓ=1", synSpec{kind: learners.OutputProbability, k: []int{7}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := buildSynFile(t, c.s)
			data := encodeSyn(t, f, "alice")
			v, err := Read(bytes.NewReader(data), int64(len(data)), synTrust(t, "bob", "alice"))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v.File, f) {
				t.Errorf("read back\n%+v\nwant\n%+v", v.File, f)
			}
			for i, x := range v.Release.Coefficients() {
				if x != f.Values[i] || (x == 0 && (1/x > 0) != (1/f.Values[i] > 0)) {
					t.Errorf("coefficient %d = %v, want %v (bit-exact)", i, x, f.Values[i])
				}
			}
			if !v.Trusted || v.Principal != "alice@test" {
				t.Errorf("Trusted, Principal = %v, %q; want true, alice@test (%s)", v.Trusted, v.Principal, v.TrustNote)
			}
			if want := ssh.FingerprintSHA256(synSigner(t, "alice").PublicKey()); v.Fingerprint != want {
				t.Errorf("Fingerprint = %s, want %s", v.Fingerprint, want)
			}
			if err := v.RequireTrusted(); err != nil {
				t.Error(err)
			}
			again := encodeSyn(t, v.File, "alice")
			if !bytes.Equal(again, data) {
				t.Error("re-encoding the read file changed its bytes")
			}
		})
	}
}

func TestSynopsisLayout(t *testing.T) {
	data := encodeSyn(t, smallSynFile(t), "alice")
	s := string(data)
	if !strings.HasPrefix(s, "bernstein-synopsis format 1\n{\n  \"format\": 1,\n  \"app_version\": \"0.1.0-test\",\n  \"created\": \"2026-03-14T15:09:26Z\",\n") {
		t.Errorf("unexpected start:\n%s", s[:200])
	}
	if !strings.Contains(s, "\"title\": \"Test release <density>\",") {
		t.Error("title not stored verbatim (HTML escaping?)")
	}
	if !strings.Contains(s, "  \"lattice\": {\n    \"count\": 4,\n    \"order\": \"row-major, last axis fastest\"\n  }\n}\n0.25\n0.41666666666666663\n0.5833333333333333\n0.75\n-----BEGIN SSH SIGNATURE-----\n") {
		t.Errorf("unexpected lattice/values section:\n%s", s)
	}
	if !strings.HasSuffix(s, "\n-----END SSH SIGNATURE-----\n") {
		t.Error("file does not end with the END line and one newline")
	}
}

// TestSynopsisBitFlips flips every single bit of a small signed file
// (ℓ = 1, k = 3) and requires every variant to be rejected. This covers the
// payload (signature), the synArmor (canonical re-encoding: base64 padding
// bits, line breaks) and the trailer.
func TestSynopsisBitFlips(t *testing.T) {
	data := encodeSyn(t, smallSynFile(t), "alice")
	trusted := synTrust(t, "alice")
	if _, err := Read(bytes.NewReader(data), int64(len(data)), trusted); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	buf := make([]byte, len(data))
	for i := range data {
		for bit := range 8 {
			copy(buf, data)
			buf[i] ^= 1 << bit
			v, err := Read(bytes.NewReader(buf), int64(len(buf)), trusted)
			if err == nil {
				t.Fatalf("flip of bit %d of byte %d (%q) accepted: %+v", bit, i, data[i], v.File)
			}
			switch {
			case errors.Is(err, ErrBadSignature):
				counts["bad signature"]++
			case errors.Is(err, ErrMalformed):
				counts["malformed"]++
			case errors.Is(err, ErrUnsupportedFormat):
				counts["unsupported format"]++
			default:
				t.Fatalf("flip of bit %d of byte %d: untyped error %v", bit, i, err)
			}
		}
	}
	t.Logf("%d bytes, %d flips rejected: %v", len(data), 8*len(data), counts)
}

func TestSynopsisTruncationsAndExtensions(t *testing.T) {
	data := encodeSyn(t, smallSynFile(t), "alice")
	for n := range len(data) {
		if _, err := Read(bytes.NewReader(data[:n]), int64(n), nil); err == nil {
			t.Fatalf("truncation to %d of %d bytes accepted", n, len(data))
		}
		// The stated size cannot hide a truncation either.
		if _, err := Read(bytes.NewReader(data[:n]), int64(len(data)), nil); !errors.Is(err, ErrMalformed) {
			t.Fatalf("truncation to %d bytes with the full size stated: %v, want ErrMalformed", n, err)
		}
	}
	for _, extra := range []string{"\n", " ", "\r\n", "x", "-----END SSH SIGNATURE-----\n", "\x00"} {
		ext := append(slices.Clone(data), extra...)
		if _, err := Read(bytes.NewReader(ext), int64(len(ext)), nil); !errors.Is(err, ErrBadSignature) {
			t.Errorf("file + %q: %v, want ErrBadSignature", extra, err)
		}
		if _, err := Read(bytes.NewReader(ext), -1, nil); !errors.Is(err, ErrBadSignature) {
			t.Errorf("file + %q, unknown size: %v, want ErrBadSignature", extra, err)
		}
	}
	if _, err := Read(bytes.NewReader(data), int64(len(data)-1), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("stated size one short: %v, want ErrMalformed", err)
	}
	if _, err := Read(bytes.NewReader(data), -1, nil); err != nil {
		t.Errorf("unknown size: %v", err)
	}
}

func TestSynopsisSigners(t *testing.T) {
	f := smallSynFile(t)
	data := encodeSyn(t, f, "mallory")

	t.Run("valid but untrusted", func(t *testing.T) {
		for _, trusted := range []*keys.AllowedSigners{nil, {}, synTrust(t, "alice", "bob")} {
			v, err := Read(bytes.NewReader(data), int64(len(data)), trusted)
			if err != nil {
				t.Fatal(err)
			}
			if v.Trusted || v.Principal != "" {
				t.Errorf("Trusted = %v, Principal = %q for an unlisted key", v.Trusted, v.Principal)
			}
			if err := v.RequireTrusted(); !errors.Is(err, ErrUntrusted) {
				t.Errorf("RequireTrusted = %v, want ErrUntrusted", err)
			}
			if v.TrustNote == "" {
				t.Error("no TrustNote")
			}
		}
	})

	t.Run("listed for another namespace", func(t *testing.T) {
		line := "mallory@test namespaces=\"git,file\" " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(synSigner(t, "mallory").PublicKey())))
		a, err := keys.ParseAllowedSigners(strings.NewReader(line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		v, err := Read(bytes.NewReader(data), int64(len(data)), a)
		if err != nil {
			t.Fatal(err)
		}
		if v.Trusted || !strings.Contains(v.TrustNote, "namespace") {
			t.Errorf("Trusted = %v, note %q; want untrusted because of the namespace", v.Trusted, v.TrustNote)
		}
	})

	t.Run("key swapped in signature block", func(t *testing.T) {
		// Mallory's signature with Alice's public key substituted: the
		// block is well-formed, names a trusted key, and must not verify.
		i := synSigIndex(data)
		sig := synUnarmor(t, data[i:])
		sig.PublicKey = synSigner(t, "alice").PublicKey()
		forged := append(slices.Clone(data[:i]), synArmor(sig)...)
		_, err := Read(bytes.NewReader(forged), int64(len(forged)), synTrust(t, "alice"))
		if !errors.Is(err, ErrBadSignature) {
			t.Fatalf("got %v, want ErrBadSignature", err)
		}
	})

	t.Run("signature from another file", func(t *testing.T) {
		other := encodeSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{3}, values: []float64{1, 2, 3, 4}}), "alice")
		i, j := synSigIndex(data), synSigIndex(other)
		mixed := append(slices.Clone(data[:i]), other[j:]...)
		if _, err := Read(bytes.NewReader(mixed), int64(len(mixed)), nil); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("got %v, want ErrBadSignature", err)
		}
	})

	t.Run("wrong namespace", func(t *testing.T) {
		i := synSigIndex(data)
		payload := data[:i]
		sig := synSignNS(t, payload, synSigner(t, "alice"), "file")
		bad := append(slices.Clone(payload), synArmor(sig)...)
		_, err := Read(bytes.NewReader(bad), int64(len(bad)), synTrust(t, "alice"))
		if !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "namespace") {
			t.Fatalf("got %v, want ErrBadSignature about the namespace", err)
		}
	})

	t.Run("unsigned", func(t *testing.T) {
		payload := data[:synSigIndex(data)]
		_, err := Read(bytes.NewReader(payload), int64(len(payload)), nil)
		if !errors.Is(err, ErrBadSignature) || !strings.Contains(err.Error(), "unsigned") {
			t.Fatalf("got %v, want ErrBadSignature saying unsigned", err)
		}
	})

	t.Run("non-Ed25519 signer refused", func(t *testing.T) {
		if _, err := Encode(f, synECDSASigner(t)); err == nil || !strings.Contains(err.Error(), "ssh-ed25519") {
			t.Fatalf("got %v, want a refusal naming ssh-ed25519", err)
		}
		if _, err := Encode(f, nil); err == nil {
			t.Fatal("nil signer accepted")
		}
	})
}

// TestSynopsisParseStrict edits the payload, re-signs it with a trusted key
// and checks that the parser (not the signature) rejects each edit with the
// right class, field and line.
func TestSynopsisParseStrict(t *testing.T) {
	good := encodeSyn(t, smallSynFile(t), "alice")
	payload := string(good[:synSigIndex(good)])
	cases := []struct {
		name     string
		edit     func(string) string
		class    error
		field    string
		line     int    // 0: don't check
		contains string // in the message
	}{
		{"format 2", synRep("bernstein-synopsis format 1\n", "bernstein-synopsis format 2\n"), ErrUnsupportedFormat, "format", 1, "format 2"},
		{"format 01", synRep("bernstein-synopsis format 1\n", "bernstein-synopsis format 01\n"), ErrMalformed, "format", 1, ""},
		{"not a synopsis", synRep("bernstein-synopsis format 1\n", "hello\n"), ErrMalformed, "", 1, "not a Bernstein synopsis"},
		{"metadata format 2", synRep(`"format": 1,`, `"format": 2,`), ErrUnsupportedFormat, "format", 0, ""},
		{"unknown field", synRep(`  "title":`, `  "colour": "red",`+"\n"+`  "title":`), ErrMalformed, "colour", 2, "unknown field"},
		{"duplicate key", synRep(`  "title":`, `  "note": "x",`+"\n"+`  "title":`), ErrMalformed, "", 6, "canonical"},
		{"key case", synRep(`"title":`, `"Title":`), ErrMalformed, "", 0, "canonical"},
		{"reordered", synSwap(`  "title": "Test release <density>",`, `  "note": "A synopsis made by the tests.\nSecond line & \"quotes\".",`), ErrMalformed, "", 0, "canonical"},
		{"number spelling", synRep(`"epsilon": 1,`, `"epsilon": 1.0,`), ErrMalformed, "", 0, "canonical"},
		{"tab indent", synRep("\n  \"title\"", "\n\t\"title\""), ErrMalformed, "", 0, ""},
		{"CRLF", synRep("\n", "\r\n"), ErrMalformed, "", 0, ""},
		{"time zone", synRep(`"2026-03-14T15:09:26Z"`, `"2026-03-14T16:09:26+01:00"`), ErrMalformed, "created", 0, "UTC"},
		{"wrong type", synRep(`"n": 1234`, `"n": "1234"`), ErrMalformed, "learner.n", 0, ""},
		{"not JSON", synRep(`"h": 1,`, `"h": 1,,`), ErrMalformed, "", 0, "JSON"},
		{"no closing brace", synRep("\n}\n", "\n"), ErrMalformed, "", 0, "closing"},
		{"bad noise", synRep(`"noise": "laplace"`, `"noise": "uniform"`), ErrMalformed, "mechanism.noise", 0, "uniform"},
		{"k = 0", synRep("\"k\": [\n      3\n    ]", "\"k\": [\n      0\n    ]"), ErrMalformed, "mechanism.k[0]", 0, ""},
		{"huge lattice", synRep("\"k\": [\n      3\n    ]", "\"k\": [\n      1000,\n      1000,\n      1000\n    ]"), ErrTooLarge, "mechanism.k", 0, "10000000"},
		{"k above MaxK", synRep("\"k\": [\n      3\n    ]", "\"k\": [\n      100000\n    ]"), ErrTooLarge, "mechanism.k[0]", 0, ""},
		{"count mismatch", synRep(`"count": 4,`, `"count": 5,`), ErrMalformed, "lattice.count", 0, ""},
		{"order", synRep(`"order": "row-major, last axis fastest"`, `"order": "column-major"`), ErrMalformed, "lattice.order", 0, ""},
		{"NaN value", synRep("\n0.75\n", "\nNaN\n"), ErrMalformed, "values[3]", 0, "finite"},
		{"Inf value", synRep("\n0.75\n", "\n+Inf\n"), ErrMalformed, "values[3]", 0, "finite"},
		{"overflowing value", synRep("\n0.75\n", "\n1e400\n"), ErrMalformed, "values[3]", 0, ""},
		{"non-canonical value", synRep("\n0.75\n", "\n0.750\n"), ErrMalformed, "values[3]", 0, "canonical"},
		{"value with space", synRep("\n0.75\n", "\n 0.75\n"), ErrMalformed, "values[3]", 0, ""},
		{"missing value", synRep("\n0.75\n", "\n"), ErrMalformed, "values[3]", 61, "only 3 of 4"},
		{"extra value", synRep("\n0.75\n", "\n0.75\n0.5\n"), ErrMalformed, "values", 0, "after"},
		{"blank line", synRep("\n0.75\n", "\n0.75\n\n"), ErrMalformed, "values", 0, ""},
		{"scale does not match ε", synRep(`"epsilon": 1,`, `"epsilon": 2,`), ErrMalformed, "mechanism", 0, "scale"},
		{"sensitivity does not match scale", synRep(`"sensitivity": 0.125,`, `"sensitivity": 0.0625,`), ErrMalformed, "mechanism", 0, "scale"},
		{"bounds_from_data lies", synRep(`"bounds_from_data": false`, `"bounds_from_data": true`), ErrMalformed, "domain.bounds_from_data", 0, ""},
		{"class labels on a density", synRep(`"class_labels": null`, `"class_labels": ["a", "b"]`), ErrMalformed, "", 0, ""},
		{"control char in title", synRep(`"title": "Test`, `"title": "Te\u0007st`), ErrMalformed, "title", 0, "control"},
		{"newline in title", synRep(`"title": "Test`, `"title": "Te\nst`), ErrMalformed, "title", 0, "control"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			edited := c.edit(payload)
			if edited == payload {
				t.Fatal("edit did not apply")
			}
			data := resignSyn(t, []byte(edited), "alice")
			v, err := Read(bytes.NewReader(data), int64(len(data)), synTrust(t, "alice"))
			if err == nil {
				t.Fatalf("accepted: %+v", v.File)
			}
			if !errors.Is(err, c.class) {
				t.Fatalf("error %v is not %v", err, c.class)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if c.field != "" && fe.Field != c.field {
				t.Errorf("Field = %q, want %q (%v)", fe.Field, c.field, err)
			}
			if c.line != 0 && fe.Line != c.line {
				t.Errorf("Line = %d, want %d (%v)", fe.Line, c.line, err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("message %q does not contain %q", err, c.contains)
			}
		})
	}
}

func synRep(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func synSwap(a, b string) func(string) string {
	return func(s string) string {
		s = strings.Replace(s, a, "\x00A", 1)
		s = strings.Replace(s, b, a, 1)
		return strings.Replace(s, "\x00A", b, 1)
	}
}

func TestSynopsisValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(f *File)
		class error
		field string
	}{
		{"ok", func(*File) {}, nil, ""},
		{"format", func(f *File) { f.Format = 2 }, ErrUnsupportedFormat, "format"},
		{"app version", func(f *File) { f.AppVersion = "1.0 beta" }, ErrMalformed, "app_version"},
		{"created zero", func(f *File) { f.Created = time.Time{} }, ErrMalformed, "created"},
		{"created local", func(f *File) { f.Created = f.Created.In(time.FixedZone("CET", 3600)) }, ErrMalformed, "created"},
		{"long title", func(f *File) { f.Title = strings.Repeat("é", 201) }, ErrMalformed, "title"},
		{"bad UTF-8", func(f *File) { f.Note = "\xff" }, ErrMalformed, "note"},
		{"mechanism name", func(f *File) { f.Mechanism.Name = "laplace" }, ErrMalformed, "mechanism.name"},
		{"no axes", func(f *File) { f.Mechanism.K = nil }, ErrMalformed, "mechanism.k"},
		{"7 axes", func(f *File) { f.Mechanism.K = []int{1, 1, 1, 1, 1, 1, 1} }, ErrTooLarge, "mechanism.k"},
		{"h = 0", func(f *File) { f.Mechanism.H = 0 }, ErrMalformed, "mechanism.h"},
		{"h = 11", func(f *File) { f.Mechanism.H = 11 }, ErrMalformed, "mechanism.h"},
		{"delta for laplace", func(f *File) { f.Mechanism.Delta = 1e-6 }, ErrMalformed, "mechanism.delta"},
		{"no delta for gaussian", func(f *File) { f.Mechanism.Noise = "gaussian" }, ErrMalformed, "mechanism.delta"},
		{"scale 0", func(f *File) { f.Mechanism.Scale = 0 }, ErrMalformed, "mechanism.scale"},
		{"epsilon Inf", func(f *File) { f.Mechanism.Epsilon = synInf }, ErrMalformed, "mechanism.epsilon"},
		{"neighbouring", func(f *File) { f.Mechanism.Neighbouring = "add-remove" }, ErrMalformed, "mechanism.neighbouring"},
		{"learner kind", func(f *File) { f.Learner.Kind = "KDE!" }, ErrMalformed, "learner.kind"},
		{"param NaN", func(f *File) { f.Learner.Params["bandwidth"] = []float64{synNaN} }, ErrMalformed, "learner.params.bandwidth[0]"},
		{"param empty", func(f *File) { f.Learner.Params["bandwidth"] = nil }, ErrMalformed, "learner.params.bandwidth"},
		{"sensitivity", func(f *File) { f.Learner.Sensitivity = -1 }, ErrMalformed, "learner.sensitivity"},
		{"n = 0", func(f *File) { f.Learner.N = 0 }, ErrMalformed, "learner.n"},
		{"bounds count", func(f *File) { f.Domain.Features = nil }, ErrMalformed, "domain.features"},
		{"bounds reversed", func(f *File) { f.Domain.Features[0].Lo = 99 }, ErrMalformed, "domain.features[0]"},
		{"bound unnamed", func(f *File) { f.Domain.Features[0].Name = "" }, ErrMalformed, "domain.features[0].name"},
		{"label on density", func(f *File) { f.Domain.Label = &Bound{Name: "y", Lo: 0, Hi: 1} }, ErrMalformed, "domain.label"},
		{"from data not flagged", func(f *File) { f.Domain.Features[0].FromData = true }, ErrMalformed, "domain.bounds_from_data"},
		{"output kind", func(f *File) { f.Output.Kind = "histogram" }, ErrMalformed, "output.kind"},
		{"output range NaN", func(f *File) { f.Output.Range[1] = synNaN }, ErrMalformed, "output.range"},
		{"class labels on density", func(f *File) { f.Output.ClassLabels = []string{"a", "b"} }, ErrMalformed, "output.class_labels"},
		{"empty class labels", func(f *File) { f.Output.ClassLabels = []string{} }, ErrMalformed, "output.class_labels"},
		{"class labels from data on density", func(f *File) { f.Output.ClassLabelsFromData = true }, ErrMalformed, "output.class_labels_from_data"},
		{"values count", func(f *File) { f.Values = f.Values[:3] }, ErrMalformed, "values"},
		{"value Inf", func(f *File) { f.Values[2] = -synInf }, ErrMalformed, "values[2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := smallSynFile(t)
			c.edit(f)
			err := f.Validate()
			if c.class == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FormatError
			if !errors.Is(err, c.class) || !errors.As(err, &fe) {
				t.Fatalf("error %v, want a *FormatError wrapping %v", err, c.class)
			}
			if fe.Field != c.field {
				t.Errorf("Field = %q, want %q (%v)", fe.Field, c.field, err)
			}
			if _, err := Encode(f, synSigner(t, "alice")); !errors.Is(err, c.class) {
				t.Errorf("EncodeSynopsis: %v, want %v", err, c.class)
			}
		})
	}
	t.Run("classifier labels", func(t *testing.T) {
		f := buildSynFile(t, synSpec{kind: learners.OutputProbability, k: []int{2}})
		f.Output.ClassLabels = []string{"x", "x"}
		if err := f.Validate(); !errors.Is(err, ErrMalformed) {
			t.Errorf("equal labels: %v", err)
		}
		f.Output.ClassLabels = []string{"x"}
		if err := f.Validate(); !errors.Is(err, ErrMalformed) {
			t.Errorf("one label: %v", err)
		}
	})
	t.Run("classes from data round trip", func(t *testing.T) {
		f := buildSynFile(t, synSpec{kind: learners.OutputProbability, k: []int{2}})
		f.Output.ClassLabelsFromData = true
		b, err := Encode(f, synSigner(t, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"class_labels_from_data": true`)) {
			t.Errorf("the signed payload does not record class_labels_from_data")
		}
		v, err := Read(bytes.NewReader(b), int64(len(b)), synTrust(t, "alice"))
		if err != nil {
			t.Fatal(err)
		}
		if !v.File.Output.ClassLabelsFromData {
			t.Error("class_labels_from_data lost in the round trip")
		}
	})
	t.Run("regression needs label", func(t *testing.T) {
		f := buildSynFile(t, synSpec{kind: learners.OutputRegression, k: []int{2}})
		f.Domain.Label = nil
		if err := f.Validate(); !errors.Is(err, ErrMalformed) {
			t.Errorf("no label bound: %v", err)
		}
	})
}

func TestReadSynopsisSizeCap(t *testing.T) {
	_, err := Read(synFailReader{t}, MaxFileSize+1, nil)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	// Unknown size: the reader stops one byte past the cap (a small cap
	// here; Read passes MaxFileSize), also on a stream
	// that looks like a synopsis and never ends.
	const limit = 1000
	r := &synEndless{head: []byte("bernstein-synopsis format 1\n{\n")}
	_, err = readSynopsis(r, -1, limit, nil, synTime)
	if !errors.Is(err, ErrTooLarge) || r.n != limit+1 {
		t.Fatalf("got %v after %d bytes, want ErrTooLarge after %d", err, r.n, limit+1)
	}
	// A valid file of exactly the cap is read.
	good := encodeSyn(t, smallSynFile(t), "alice")
	if _, err := readSynopsis(bytes.NewReader(good), -1, int64(len(good)), synTrust(t, "alice"), synTime); err != nil {
		t.Fatalf("a file of exactly the cap: %v", err)
	}
}

type synFailReader struct{ t *testing.T }

func (r synFailReader) Read([]byte) (int, error) {
	r.t.Fatal("read before the size check")
	return 0, nil
}

// synEndless yields head, then "0\n" lines forever, counting the bytes.
type synEndless struct {
	head []byte
	n    int64
}

func (c *synEndless) Read(p []byte) (int, error) {
	for i := range p {
		k := c.n + int64(i)
		switch {
		case k < int64(len(c.head)):
			p[i] = c.head[k]
		case (k-int64(len(c.head)))%2 == 0:
			p[i] = '0'
		default:
			p[i] = '\n'
		}
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestWriteAndOpenSynopsis(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "release"+Ext)
	f := smallSynFile(t)
	alice := synSigner(t, "alice")
	if err := Write(path, f, alice, false); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, f, alice, false); !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("second write without overwrite: %v, want ErrExists", err)
	}
	f2 := buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{3}, values: []float64{4, 3, 2, 1}})
	if err := Write(path, f2, alice, true); err != nil {
		t.Fatal(err)
	}
	v, err := Open(path, synTrust(t, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v.File.Values, []float64{4, 3, 2, 1}) || !v.Trusted {
		t.Errorf("read %v trusted=%v", v.File.Values, v.Trusted)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// Errors name the path and keep their class.
	if err := os.WriteFile(path, []byte("junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, nil)
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), path) {
		t.Errorf("junk file: %v", err)
	}
	if _, err := Open(dir, nil); err == nil {
		t.Error("a directory was accepted")
	}
	if err := Write(filepath.Join(dir, "bad.synopsis"), &File{}, alice, false); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("invalid file written? %v", err)
	}
}
