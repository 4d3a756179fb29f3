package synopsis

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// synSigner returns a deterministic Ed25519 signer derived from name. These
// keys are public by construction (their seed is in this file): test only.
func synSigner(t testing.TB, name string) ssh.Signer {
	t.Helper()
	seed := sha256.Sum256([]byte("bernstein-synopsis TEST key, not secret: " + name))
	s, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed[:]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// synTrust returns allowed signers trusting exactly the given keys under
// principals "<name>@test".
func synTrust(t testing.TB, names ...string) *keys.AllowedSigners {
	t.Helper()
	a := &keys.AllowedSigners{}
	for _, n := range names {
		if err := a.Add(n+"@test", synSigner(t, n).PublicKey()); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// synSpec describes a test release; values are "noisy" lattice values chosen
// by the test (the privacy of these files is irrelevant: no data).
type synSpec struct {
	kind   learners.OutputKind
	k      []int
	h      int
	noise  mechanism.NoiseKind
	eps    float64
	delta  float64
	values []float64 // nil: linear ramp 0.25 + 0.5·(sum of lattice coordinates)/ℓ
}

var synTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// lattice ramp: value at point ν is a + b·mean_j(ν_j/k_j); the Bernstein
// operator (and so every iterated one) reproduces it exactly.
func synRamp(k []int, a, b float64) []float64 {
	l := mechanism.Lattice{K: k}
	n := l.Size()
	out := make([]float64, n)
	for i := range n {
		rem, stride, sum := i, n, 0.0
		for _, kj := range k {
			stride /= kj + 1
			nu := rem / stride
			rem %= stride
			sum += float64(nu) / float64(kj)
		}
		out[i] = a + b*sum/float64(len(k))
	}
	return out
}

// buildSynFile assembles a valid File through NewFile.
func buildSynFile(t testing.TB, s synSpec) *File {
	t.Helper()
	if s.h == 0 {
		s.h = 1
	}
	if s.noise == "" {
		s.noise = mechanism.NoiseLaplace
	}
	if s.eps == 0 {
		s.eps = 1
	}
	if s.values == nil {
		s.values = synRamp(s.k, 0.25, 0.5)
	}
	const sens = 0.125
	scale, err := mechanism.NoiseScale(sens, mechanism.Params{Epsilon: s.eps, Delta: s.delta, Noise: s.noise, K: s.k, H: s.h})
	if err != nil {
		t.Fatal(err)
	}
	rel, err := mechanism.RestoreSynopsis(s.k, s.h, s.values, s.noise, scale, s.eps, s.delta, sens)
	if err != nil {
		t.Fatal(err)
	}
	meta := Meta{
		AppVersion: "0.1.0-test",
		Created:    synTime,
		Title:      "Test release <" + string(s.kind) + ">",
		Note:       "A synopsis made by the tests.\nSecond line & \"quotes\".",
		Learner:    learners.KindKDE,
		Params:     learners.Resolved{"bandwidth": {0.1}},
		N:          1234,
		Output:     learners.OutputSpec{Name: "out", Meaning: "what it means", Kind: s.kind},
	}
	for j := range s.k {
		meta.Domain.Features = append(meta.Domain.Features,
			Bound{Name: fmt.Sprintf("x%d", j), Unit: "cm", Lo: 10, Hi: 30 + float64(10*j)})
	}
	switch s.kind {
	case learners.OutputDensity:
		meta.OutputRange = [2]float64{0, 4}
	case learners.OutputRegression:
		meta.Learner = learners.KindPriestleyChao
		meta.Domain.Label = &Bound{Name: "y", Unit: "kg", Lo: -5, Hi: 15, FromData: true}
		meta.OutputRange = [2]float64{-1, 1}
	case learners.OutputClassScore:
		meta.Learner = learners.KindSVM
		meta.ClassLabels = []string{"benign", "malignant"}
		meta.OutputRange = [2]float64{-2, 2}
	case learners.OutputProbability:
		meta.Learner = learners.KindNaiveBayes
		meta.ClassLabels = []string{"no", "yes"}
		meta.OutputRange = [2]float64{0, 1}
	}
	f, err := NewFile(rel, meta)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// smallSynFile is the ℓ = 1, k = 3 density synopsis of the exhaustive tests.
func smallSynFile(t testing.TB) *File {
	return buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{3}})
}

// encodeSyn signs f with the named test key.
func encodeSyn(t testing.TB, f *File, key string) []byte {
	t.Helper()
	data, err := Encode(f, synSigner(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// resignSyn replaces the signature of a file (or signs a bare payload) with the
// named test key, so that tests can reach the checks after verification.
func resignSyn(t testing.TB, data []byte, key string) []byte {
	t.Helper()
	payload := data
	if i := synSigIndex(data); i >= 0 {
		payload = data[:i]
	}
	sig, err := signPayload(payload, synSigner(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte(nil), payload...), sig...)
}

// synSigIndex returns the offset of the signature block's BEGIN line, or −1.
func synSigIndex(data []byte) int {
	s := string(data)
	for i := 0; i+len(signatureBegin) <= len(s); i++ {
		if (i == 0 || s[i-1] == '\n') && s[i:i+len(signatureBegin)] == string(signatureBegin) {
			return i
		}
	}
	return -1
}

var (
	synNaN = math.NaN()
	synInf = math.Inf(1)
)

func synUnarmor(t testing.TB, block []byte) *sshsig.Signature {
	t.Helper()
	sig, err := sshsig.Unarmor(block)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func synArmor(sig *sshsig.Signature) []byte { return sshsig.Armor(sig) }

func synSignNS(t testing.TB, payload []byte, s ssh.Signer, ns string) *sshsig.Signature {
	t.Helper()
	sig, err := sshsig.Sign(bytes.NewReader(payload), s, sshsig.HashSHA512, ns)
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// synECDSASigner returns a P-256 signer (a key type synopsis files refuse).
func synECDSASigner(t testing.TB) ssh.Signer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// synFlag defines a boolean test flag once (shared with other test files
// of the package that define the same name) and returns its reader.
func synFlag(name, usage string) func() bool {
	if flag.Lookup(name) == nil {
		flag.Bool(name, false, usage)
	}
	return func() bool { return flag.Lookup(name).Value.String() == "true" }
}

// synUpdate rewrites the golden synopsis (go test -run Golden -update).
var synUpdate = synFlag("update", "rewrite golden files under testdata/")
