package keys

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// TestWriteKeyPairForceKeepsOldKey (issue 14 item 7): with the public key's
// name taken by a folder, an overwriting WriteKeyPair fails and the old
// private key is still there, byte for byte.
func TestWriteKeyPairForceKeepsOldKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fk")
	pass := []byte("correct horse battery staple")
	if _, err := WriteKeyPair(path, pass, "carol@example.org", false); err != nil {
		t.Fatal(err)
	}
	oldPriv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	oldLine, err := os.ReadFile(path + AllowedSignersSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path + PublicKeySuffix); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path+PublicKeySuffix, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteKeyPair(path, pass, "carol@example.org", true); err == nil {
		t.Fatal("overwrite succeeded with a folder at the public key's name")
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, oldPriv) {
		t.Fatalf("old private key lost or changed (%v)", err)
	}
	if got, _ := os.ReadFile(path + AllowedSignersSuffix); !bytes.Equal(got, oldLine) {
		t.Error("allowed_signers line changed")
	}
	if _, err := LoadSigner(path, pass); err != nil {
		t.Errorf("old key no longer loads: %v", err)
	}
	fsops.AssertNoTemp(t, filepath.Dir(path))
}
