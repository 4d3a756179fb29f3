package viewer

import (
	"crypto/ed25519"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// viewerTestSigner returns a fixed Ed25519 TEST key (seed byte b); never
// use such keys for real releases.
func viewerTestSigner(t testing.TB, b byte) ssh.Signer {
	t.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = b
	}
	s, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// viewerFixture describes a test release.
type viewerFixture struct {
	name     string
	learner  learners.Kind
	features []synopsis.Bound
	label    *synopsis.Bound
	k        []int
	h        int
	noise    mechanism.NoiseKind
	delta    float64
	classes  []string
	// f gives the "noisy" lattice value at a lattice point in [0,1]^ℓ;
	// fixtures use deterministic values so that tests are reproducible.
	f func(y []float64) float64
}

var (
	// 1-D density (KDE) in centimetres.
	viewerFixtureKDE = viewerFixture{
		name: "kde-1d", learner: learners.KindKDE,
		features: []synopsis.Bound{{Name: "length", Unit: "cm", Lo: 0, Hi: 10}},
		k:        []int{20}, h: 2, noise: mechanism.NoiseLaplace,
		f: func(y []float64) float64 {
			return 1.5*math.Exp(-(y[0]-0.6)*(y[0]-0.6)/0.02) + 0.05*math.Sin(40*y[0])
		},
	}
	// 2-D classifier (SVM score), one bound taken from the data.
	viewerFixtureSVM = viewerFixture{
		name: "svm-2d", learner: learners.KindSVM,
		features: []synopsis.Bound{{Name: "x1", Lo: 0, Hi: 1}, {Name: "x2", Unit: "kg", Lo: -5, Hi: 5, FromData: true}},
		k:        []int{10, 12}, h: 1, noise: mechanism.NoiseGaussian, delta: 1e-6,
		classes: []string{"healthy", "sick"},
		f:       func(y []float64) float64 { return y[0] + y[1] - 1 + 0.1*math.Sin(9*y[0]*y[1]) },
	}
	// 3-D regression (ridge) with a label bound.
	viewerFixtureRidge = viewerFixture{
		name: "ridge-3d", learner: learners.KindRidge,
		features: []synopsis.Bound{{Name: "a", Lo: 0, Hi: 1}, {Name: "b", Lo: 0, Hi: 2}, {Name: "c", Unit: "s", Lo: -1, Hi: 1}},
		label:    &synopsis.Bound{Name: "y", Unit: "€", Lo: 100, Hi: 300},
		k:        []int{3, 4, 5}, h: 1, noise: mechanism.NoiseLaplaceApprox, delta: 1e-5,
		f: func(y []float64) float64 { return 0.5*y[0] - 0.3*y[1] + 0.2*y[2] },
	}
)

// write builds, signs and writes the fixture's synopsis into dir.
func (fx viewerFixture) write(t testing.TB, dir string, signer ssh.Signer) string {
	t.Helper()
	l, err := learners.Lookup(fx.learner)
	if err != nil {
		t.Fatal(err)
	}
	spec := l.Spec()
	params, err := spec.Resolve(nil, len(fx.features))
	if err != nil {
		t.Fatal(err)
	}
	lat, err := mechanism.NewLattice(fx.k)
	if err != nil {
		t.Fatal(err)
	}
	values := make([]float64, lat.Size())
	y := make([]float64, lat.Dim())
	for i := range values {
		lat.Point(i, y)
		values[i] = fx.f(y)
	}
	const eps, sens = 1.0, 0.01
	p := mechanism.Params{Epsilon: eps, Delta: fx.delta, Noise: fx.noise, K: fx.k, H: fx.h}
	scale, err := mechanism.NoiseScale(sens, p)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := mechanism.RestoreSynopsis(fx.k, fx.h, values, fx.noise, scale, eps, fx.delta, sens)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := synopsis.NewFile(rel, synopsis.Meta{
		AppVersion: "test", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Title: "Test release " + fx.name, Note: "A synthetic release for the viewer tests.\nSecond line.",
		Learner: fx.learner, Params: params, N: 1234,
		Domain: synopsis.DomainInfo{Features: fx.features, Label: fx.label},
		Output: spec.Output, OutputRange: [2]float64{-1, 1}, ClassLabels: fx.classes,
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fx.name+".synopsis")
	if err := synopsis.Write(path, sf, signer, false); err != nil {
		t.Fatal(err)
	}
	return path
}

// viewerTrustFile writes an allowed_signers file trusting signer as
// principal and returns its path.
func viewerTrustFile(t testing.TB, dir, principal string, signer ssh.Signer) string {
	t.Helper()
	a := &keys.AllowedSigners{}
	if err := a.Add(principal, signer.PublicKey()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "allowed_signers")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// viewerFileBytes reads a file (to check the viewer never changes it).
func viewerFileBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
