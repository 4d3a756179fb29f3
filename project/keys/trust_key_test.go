package keys

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestTrustKey: the one way a key is added to an allowed_signers file. A
// missing file starts empty; the key is then trusted (for synopsis files,
// under the trimmed principal); adding it again changes nothing; a damaged
// file is an error and stays as it was; no path is refused.
func TestTrustKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "allowed_signers")
	key := synSigner(t, "alice").PublicKey()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := TrustKey(path, " alice@test ", key); err != nil {
		t.Fatalf("missing file: %v", err)
	}
	a, err := LoadAllowedSigners(path)
	if err != nil {
		t.Fatal(err)
	}
	if e := a.Entries(); len(e) != 1 || e[0].Principals != "alice@test" {
		t.Fatalf("entries after TrustKey: %+v, want one for alice@test", e)
	}
	if _, why, ok := a.Match(key, Namespace, synTime); !ok {
		t.Errorf("the added key is not trusted: %s", why)
	}
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := TrustKey(path, "alice@test", key); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, first) {
		t.Errorf("adding the same key again changed the file:\n%s\n---\n%s", first, again)
	}

	damaged := filepath.Join(dir, "damaged")
	bad := []byte("alice@test ssh-ed25519 not-base64!\n")
	if err := os.WriteFile(damaged, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := TrustKey(damaged, "bob@test", synSigner(t, "bob").PublicKey()); err == nil {
		t.Error("a damaged file: no error")
	}
	if got, _ := os.ReadFile(damaged); !bytes.Equal(got, bad) {
		t.Errorf("a damaged file was rewritten: %q", got)
	}
	if err := TrustKey("", "bob@test", key); err == nil {
		t.Error("no path: no error")
	}
}
