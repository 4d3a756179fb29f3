package dataset

// The synopsis fixtures of project/synopsis's tests (synopsis_fixture_test.go
// there) that the evaluation tests here need; test files of another package
// cannot be imported.

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
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

// buildSynFile assembles a valid synopsis.File through synopsis.NewFile.
func buildSynFile(t testing.TB, s synSpec) *synopsis.File {
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
	meta := synopsis.Meta{
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
			synopsis.Bound{Name: fmt.Sprintf("x%d", j), Unit: "cm", Lo: 10, Hi: 30 + float64(10*j)})
	}
	switch s.kind {
	case learners.OutputDensity:
		meta.OutputRange = [2]float64{0, 4}
	case learners.OutputRegression:
		meta.Learner = learners.KindPriestleyChao
		meta.Domain.Label = &synopsis.Bound{Name: "y", Unit: "kg", Lo: -5, Hi: 15, FromData: true}
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
	f, err := synopsis.NewFile(rel, meta)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// encodeSyn signs f with the named test key.
func encodeSyn(t testing.TB, f *synopsis.File, key string) []byte {
	t.Helper()
	data, err := synopsis.Encode(f, synSigner(t, key))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
