package keys

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// Curator keys are encrypted with OpenSSH's bcrypt KDF (16 rounds), which
// is slow under the race detector; these tests keep the number of
// full-strength encryptions and decryptions to four. Decryption errors are
// tested on the committed one-round test key (goldenKeyPath).

func TestGenerateKey(t *testing.T) {
	if _, _, err := GenerateKey(nil, "x"); !errors.Is(err, ErrEmptyPassphrase) {
		t.Fatalf("empty passphrase: %v, want ErrEmptyPassphrase", err)
	}
	if _, _, err := GenerateKey([]byte("pw"), "two\nlines"); err == nil {
		t.Fatal("multi-line comment accepted")
	}
	priv, pub, err := GenerateKey([]byte("correct horse"), "carol@example.org")
	if err != nil {
		t.Fatal(err)
	}
	checkEncryptedKey(t, priv)
	if !strings.HasPrefix(string(pub), "ssh-ed25519 AAAA") || !strings.HasSuffix(string(pub), " carol@example.org\n") {
		t.Errorf("public key line %q", pub)
	}
	if _, _, _, _, err := ssh.ParseAuthorizedKey(pub); err != nil {
		t.Errorf("public key line does not parse: %v", err)
	}
}

// checkEncryptedKey requires an OpenSSH PEM private key that cannot be
// parsed without a passphrase (no KDF runs for this check).
func checkEncryptedKey(t *testing.T, priv []byte) {
	t.Helper()
	block, _ := pem.Decode(priv)
	if block == nil || block.Type != "OPENSSH PRIVATE KEY" {
		t.Fatalf("private key is not an OpenSSH PEM block:\n%s", priv)
	}
	var missing *ssh.PassphraseMissingError
	if _, err := ssh.ParseRawPrivateKey(priv); !errors.As(err, &missing) {
		t.Fatalf("private key parses without a passphrase (%v): it was written unencrypted", err)
	}
}

func TestLoadSignerErrors(t *testing.T) {
	keyData, err := os.ReadFile(goldenKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(path, keyData, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(path, []byte("wrong")); !errors.Is(err, ErrWrongPassphrase) {
		t.Errorf("wrong passphrase: %v, want ErrWrongPassphrase", err)
	}
	if _, err := LoadSigner(path, nil); !errors.Is(err, ErrPassphraseRequired) {
		t.Errorf("no passphrase: %v, want ErrPassphraseRequired", err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSigner(path, []byte(goldenPassphrase)); !errors.Is(err, ErrKeyPermissions) || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("group-readable key: %v, want ErrKeyPermissions", err)
		}
	}
}

func TestLoadSignerOtherKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, block *pem.Block) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ssh.MarshalPrivateKey(edPriv, "unencrypted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(write("plain", plain), nil); err != nil {
		t.Errorf("unencrypted Ed25519 key (made elsewhere): %v", err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecBlock, err := ssh.MarshalPrivateKey(ec, "ecdsa")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(write("ecdsa", ecBlock), nil); !errors.Is(err, ErrKeyType) {
		t.Errorf("ECDSA key: %v, want ErrKeyType", err)
	}
	junk := filepath.Join(dir, "junk")
	if err := os.WriteFile(junk, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSigner(junk, []byte("x")); err == nil {
		t.Error("junk accepted as a key")
	}
	if _, err := LoadSigner(filepath.Join(dir, "missing"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing key: %v", err)
	}
}

func TestReadPassphraseFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		content string
		want    string
		err     bool
	}{
		{"secret\n", "secret", false},
		{"secret\r\n", "secret", false},
		{"secret", "secret", false},
		{"two words \n", "two words ", false},
		{"secret\n\n", "secret\n", false},
		{"\n", "", true},
		{"", "", true},
		{strings.Repeat("x", 5000), "", true},
	}
	for i, c := range cases {
		p := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPassphraseFile(p)
		if (err != nil) != c.err || string(got) != c.want {
			t.Errorf("%q: got %q, %v; want %q, error %v", c.content, got, err, c.want, c.err)
		}
	}
}

func TestDefaultPaths(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg)
	t.Setenv("AppData", cfg)
	k, err := DefaultKeyPath()
	if err != nil {
		t.Fatal(err)
	}
	a, err := DefaultAllowedSignersPath()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(k) != "curator_ed25519" || filepath.Base(filepath.Dir(k)) != "bernstein" || !strings.HasPrefix(k, cfg) {
		t.Errorf("DefaultKeyPath = %s", k)
	}
	if filepath.Base(a) != "allowed_signers" || filepath.Dir(a) != filepath.Dir(k) {
		t.Errorf("DefaultAllowedSignersPath = %s", a)
	}
}
