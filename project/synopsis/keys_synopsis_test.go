package synopsis

import (
	"bytes"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

func TestWriteKeyPairAndLoadSigner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "bernstein")
	path := filepath.Join(dir, "curator_ed25519")
	pass := []byte("correct horse battery staple")
	kp, err := keys.WriteKeyPair(path, pass, "carol@example.org", false)
	if err != nil {
		t.Fatal(err)
	}
	wantModes := map[string]os.FileMode{kp.PrivatePath: 0o600, kp.PublicPath: 0o644, kp.AllowedSignersPath: 0o644}
	for p, mode := range wantModes {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != mode {
			t.Errorf("%s: mode %04o, want %04o", p, st.Mode().Perm(), mode)
		}
	}
	if st, err := os.Stat(dir); err == nil && runtime.GOOS != "windows" && st.Mode().Perm() != 0o700 {
		t.Errorf("key directory mode %04o, want 0700", st.Mode().Perm())
	}
	line, err := os.ReadFile(kp.AllowedSignersPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(line), `carol@example.org namespaces="bernstein-synopsis" ssh-ed25519 AAAA`) || string(line) != kp.AllowedSignersLine+"\n" {
		t.Errorf("allowed_signers line %q", line)
	}
	// The handed-out line is a valid allowed_signers file trusting the key.
	a, err := keys.ParseAllowedSigners(bytes.NewReader(line))
	if err != nil {
		t.Fatal(err)
	}

	priv, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkEncryptedKey(t, priv)
	signer, err := keys.LoadSigner(path, pass)
	if err != nil {
		t.Fatal(err)
	}
	if ssh.FingerprintSHA256(signer.PublicKey()) != kp.Fingerprint {
		t.Error("loaded key differs from the written one")
	}
	data, err := Encode(smallSynFile(t), signer)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Read(bytes.NewReader(data), int64(len(data)), a)
	if err != nil || !v.Trusted || v.Principal != "carol@example.org" {
		t.Fatalf("file signed with the new key: %v, trusted=%v", err, v != nil && v.Trusted)
	}

	t.Run("ssh-keygen reads it", func(t *testing.T) {
		// OpenSSH itself decrypts the key and derives the same public key.
		needSSHKeygen(t)
		out, err := exec.Command("ssh-keygen", "-y", "-P", string(pass), "-f", path).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen cannot read the key: %v\n%s", err, out)
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey(out)
		if err != nil || ssh.FingerprintSHA256(k) != kp.Fingerprint {
			t.Errorf("ssh-keygen derives another public key: %s (%v)", out, err)
		}
		if out, err := exec.Command("ssh-keygen", "-y", "-P", "wrong", "-f", path).CombinedOutput(); err == nil {
			t.Errorf("ssh-keygen decrypted the key with a wrong passphrase:\n%s", out)
		}
	})
	t.Run("refuses to overwrite", func(t *testing.T) {
		for _, p := range []string{kp.PrivatePath, kp.PublicPath, kp.AllowedSignersPath} {
			other := filepath.Join(t.TempDir(), "k")
			if err := os.WriteFile(other+strings.TrimPrefix(p, path), []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := keys.WriteKeyPair(other, pass, "carol@example.org", false); !errors.Is(err, fileio.ErrExists) {
				t.Errorf("existing %s: %v, want ErrExists", filepath.Base(p), err)
			}
			if _, err := os.Stat(other); filepath.Base(p) != "curator_ed25519" && err == nil {
				t.Errorf("private key written although %s existed", filepath.Base(p))
			}
		}
		kp2, err := keys.WriteKeyPair(path, pass, "carol@example.org", true)
		if err != nil {
			t.Fatalf("overwrite: %v", err)
		}
		pub, err := os.ReadFile(kp2.PublicPath)
		if err != nil {
			t.Fatal(err)
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey(pub)
		if err != nil || kp2.Fingerprint == kp.Fingerprint || ssh.FingerprintSHA256(k) != kp2.Fingerprint {
			t.Errorf("overwrite did not replace the key pair (%v)", err)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		if _, err := keys.WriteKeyPair(filepath.Join(t.TempDir(), "k"), nil, "carol@example.org", false); !errors.Is(err, keys.ErrEmptyPassphrase) {
			t.Errorf("empty passphrase: %v", err)
		}
		for _, p := range []string{"", "carol example", "a,b", `"x"`, "*", "#x"} {
			if _, err := keys.WriteKeyPair(filepath.Join(t.TempDir(), "k"), pass, p, false); err == nil {
				t.Errorf("principal %q accepted", p)
			}
		}
	})
}

// TestAllowedSignersLineWithSSHKeygen checks that ssh-keygen reads the line
// Add writes and finds the principal for a synopsis signature.
func TestAllowedSignersLineWithSSHKeygen(t *testing.T) {
	needSSHKeygen(t)
	dir := t.TempDir()
	a := &keys.AllowedSigners{}
	if err := a.Add("alice@example.org", synSigner(t, "alice").PublicKey()); err != nil {
		t.Fatal(err)
	}
	if err := a.Save(filepath.Join(dir, "allowed_signers")); err != nil {
		t.Fatal(err)
	}
	data := encodeSyn(t, smallSynFile(t), "alice")
	if err := os.WriteFile(filepath.Join(dir, "s.sig"), data[synSigIndex(data):], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ssh-keygen", "-Y", "find-principals", "-f", "allowed_signers", "-s", "s.sig")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "alice@example.org" {
		t.Errorf("ssh-keygen find-principals: %v\n%s", err, out)
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
