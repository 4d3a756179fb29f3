package keys

// Test fixtures shared with project/synopsis's tests (synopsis_fixture_test.go
// there; test files of another package cannot be imported).

import (
	"crypto/ed25519"
	"crypto/sha256"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// The committed one-round test key of project/synopsis's golden files.
const (
	goldenKeyPath    = "../synopsis/testdata/synopsis/test_curator_ed25519"
	goldenPassphrase = "bernstein-TEST-passphrase-not-secret"
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
func synTrust(t testing.TB, names ...string) *AllowedSigners {
	t.Helper()
	a := &AllowedSigners{}
	for _, n := range names {
		if err := a.Add(n+"@test", synSigner(t, n).PublicKey()); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

var synTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
