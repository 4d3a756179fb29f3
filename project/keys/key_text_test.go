package keys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestParseKeyText: a pasted OpenSSH public key line or allowed_signers
// line gives the key and a suggested principal; anything else is refused
// with a message saying what was expected.
func TestParseKeyText(t *testing.T) {
	key := synSigner(t, "alice").PublicKey()
	pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
	line, err := AllowedSignersLine("alice@example.org", key)
	if err != nil {
		t.Fatal(err)
	}
	line = strings.TrimSpace(line)
	cases := []struct {
		name, text, principal, errPart string
	}{
		{"public key with comment", pub + " alice@example.org", "alice@example.org", ""},
		{"public key, no comment", pub, "", ""},
		{"comment with a space is no principal", pub + " Alice Smith", "", ""},
		{"allowed_signers line", line, "alice@example.org", ""},
		{"surrounded by blank and comment lines", "\n# trusted curator\n" + line + "\n\n", "alice@example.org", ""},
		{"empty", "  \n", "", "paste a public key"},
		{"two keys", line + "\n" + pub, "", "found 2 key lines"},
		{"garbage", "ssh-ed25519 not-base64", "", "not an OpenSSH public key or allowed_signers line"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, principal, err := ParseKeyText(c.text)
			if c.errPart != "" {
				if err == nil || !strings.Contains(err.Error(), c.errPart) {
					t.Fatalf("err = %v, want one containing %q", err, c.errPart)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ssh.FingerprintSHA256(got) != ssh.FingerprintSHA256(key) || principal != c.principal {
				t.Errorf("got key %s, principal %q; want %s, %q", ssh.FingerprintSHA256(got), principal, ssh.FingerprintSHA256(key), c.principal)
			}
		})
	}
}

// TestLoadTrust: the one trust policy. A missing file trusts nobody (an
// empty list, no error); a file that exists but cannot be read as an
// allowed_signers file is an error, never "trust nobody" or "trust all".
func TestLoadTrust(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadTrust(filepath.Join(dir, "missing", "allowed_signers"))
	if err != nil || a == nil || len(a.Entries()) != 0 {
		t.Fatalf("missing file: %v, %v; want an empty list", a, err)
	}
	key := synSigner(t, "alice").PublicKey()
	if _, _, ok := a.Match(key, Namespace, synTime); ok {
		t.Error("the empty list trusts a key")
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("alice@example.org ssh-ed25519 !!!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTrust(bad); err == nil {
		t.Error("a damaged file was accepted")
	}
	if _, err := LoadTrust(dir); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a folder: %v, want an error other than not-exist", err)
	}
	good := filepath.Join(dir, "good")
	trusted := synTrust(t, "alice")
	if err := trusted.Save(good); err != nil {
		t.Fatal(err)
	}
	a, err = LoadTrust(good)
	if err != nil || len(a.Entries()) != 1 {
		t.Fatalf("good file: %v entries, %v", a, err)
	}
}
