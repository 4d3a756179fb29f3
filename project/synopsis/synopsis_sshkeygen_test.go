package synopsis

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// These tests check the format against the real OpenSSH ssh-keygen. They
// skip only when ssh-keygen is not on PATH (CI installs openssh-client).

func needSSHKeygen(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not on PATH (install openssh-client)")
	}
}

// docVerifyScript returns the shell block of docs/synopsis-format.md that
// tells analysts how to verify a file with OpenSSH.
func docVerifyScript(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "synopsis-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- The block below is run verbatim by project/synopsis/synopsis_sshkeygen_test.go. -->\n```sh\n"
	_, rest, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatal("docs/synopsis-format.md lost its tested verification block")
	}
	script, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("unterminated verification block in docs/synopsis-format.md")
	}
	return script
}

// runDocScript runs the documented commands in dir and returns their
// combined output and whether they succeeded.
func runDocScript(t *testing.T, dir, script string) (string, bool) {
	t.Helper()
	cmd := exec.Command("sh", "-e", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func TestSynopsisVerifiesWithSSHKeygen(t *testing.T) {
	needSSHKeygen(t)
	script := docVerifyScript(t)
	alice := synSigner(t, "alice")
	data := encodeSyn(t, buildSynFile(t, synSpec{kind: "regression", k: []int{2, 3}, h: 2}), "alice")

	aliceLine, err := keys.AllowedSignersLine("alice@example.org", alice.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	bobLine, err := keys.AllowedSignersLine("alice@example.org", synSigner(t, "bob").PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	setup := func(t *testing.T, file []byte, signers string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "release.synopsis"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "allowed_signers"), []byte(signers+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	t.Run("good", func(t *testing.T) {
		dir := setup(t, data, aliceLine)
		out, ok := runDocScript(t, dir, script)
		if !ok || !strings.Contains(out, `Good "bernstein-synopsis" signature for alice@example.org`) {
			t.Fatalf("documented verification failed:\n%s", out)
		}
		payload, err := os.ReadFile(filepath.Join(dir, "release.payload"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(payload, data[:synSigIndex(data)]) {
			t.Error("the documented sed command does not extract exactly the payload")
		}
		// find-principals names the signer from the signature alone.
		cmd := exec.Command("ssh-keygen", "-Y", "find-principals", "-f", "allowed_signers", "-s", "release.sig")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "alice@example.org" {
			t.Errorf("find-principals: %v\n%s", err, out)
		}
	})

	t.Run("untrusted key", func(t *testing.T) {
		out, ok := runDocScript(t, setup(t, data, bobLine), script)
		if ok {
			t.Fatalf("ssh-keygen accepted a key not in allowed_signers:\n%s", out)
		}
	})

	t.Run("tampered value", func(t *testing.T) {
		i := synSigIndex(data)
		bad := bytes.Clone(data)
		j := bytes.LastIndexByte(bad[:i-1], '\n') + 1 // last value line
		bad[j] ^= 1
		out, ok := runDocScript(t, setup(t, bad, aliceLine), script)
		if ok {
			t.Fatalf("ssh-keygen accepted a tampered payload:\n%s", out)
		}
	})
}

// TestSynopsisSignatureMatchesSSHKeygen signs the same payload with
// ssh-keygen -Y sign and with signPayload: Ed25519 is deterministic, so the
// SSHSIG blobs must be identical (only the armor's line width differs).
func TestSynopsisSignatureMatchesSSHKeygen(t *testing.T) {
	needSSHKeygen(t)
	dir := t.TempDir()
	seed := sha256.Sum256([]byte("bernstein-synopsis TEST key, not secret: alice"))
	priv := ed25519.NewKeyFromSeed(seed[:])
	block, err := ssh.MarshalPrivateKey(priv, "alice@test")
	if err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(dir, "id")
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	data := encodeSyn(t, smallSynFile(t), "alice")
	i := synSigIndex(data)
	payloadPath := filepath.Join(dir, "payload")
	if err := os.WriteFile(payloadPath, data[:i], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("ssh-keygen", "-Y", "sign", "-f", keyPath, "-n", keys.Namespace, payloadPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
	}
	theirs, err := os.ReadFile(payloadPath + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	a, b := synUnarmor(t, theirs), synUnarmor(t, data[i:])
	if !bytes.Equal(a.Marshal(), b.Marshal()) {
		t.Error("ssh-keygen and signPayload produce different SSHSIG blobs for the same key and payload")
	}
	// Our canonical armor of their signature is our file's signature block.
	if !bytes.Equal(synArmor(a), data[i:]) {
		t.Error("re-armoring ssh-keygen's signature does not give the file's block")
	}
}
