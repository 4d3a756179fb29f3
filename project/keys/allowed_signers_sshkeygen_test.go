package keys

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// trickyAllowedSigners are single allowed_signers lines (KEY stands for
// alice's public key) on which our verdict — the file parses and Match
// trusts alice's key for Namespace now — must equal ssh-keygen's
// (`ssh-keygen -Y verify -I alice@example.org -n bernstein-synopsis`
// accepts a signature by alice). want is that verdict, so the table is
// checked even where ssh-keygen is missing. They are also the seeds of
// FuzzParseAllowedSigners.
var trickyAllowedSigners = []struct {
	line string
	want bool
}{
	{`alice@example.org KEY`, true},
	{`alice@example.org KEY alice's laptop`, true},
	{"  alice@example.org\tKEY", true},
	{`alice@example.org namespaces="bernstein-synopsis" KEY`, true},
	{`alice@example.org NAMESPACES="bernstein-*" KEY`, true},
	{`alice@example.org namespaces="git,bernstein-synopsis" KEY`, true},
	{`alice@example.org namespaces="git" KEY`, false},
	{`alice@example.org namespaces="*,!bernstein-synopsis" KEY`, false},
	{`"bob@example.org,alice@example.org" KEY`, true},
	{`alice@example.org valid-after="20200101",valid-before="29990101" KEY`, true},
	{`alice@example.org valid-before="29990101Z" KEY`, true},
	{`alice@example.org valid-before="20200101" KEY`, false},
	{`alice@example.org valid-after="29990101" KEY`, false},
	{`alice@example.org valid-before="2999" KEY`, false},
	{`alice@example.org cert-authority KEY`, false},
	{`alice@example.org cert-authority,cert-authority KEY`, false},
	{`alice@example.org restrict KEY`, false},
	// Issue 14 item 14: repeated clauses ("multiple clauses" in ssh-keygen).
	{`alice@example.org valid-before="20200101",valid-before="29990101" KEY`, false},
	{`alice@example.org valid-before="29990101",valid-before="29990102" KEY`, false},
	{`alice@example.org valid-after="20200101",Valid-After="20210101" KEY`, false},
	{`alice@example.org namespaces="git",namespaces="bernstein-synopsis" KEY`, false},
	{`alice@example.org namespaces="bernstein-synopsis",namespaces="bernstein-synopsis" KEY`, false},
}

// sshkeygenTestKey is alice's test key (not secret), as written by
// ssh-keygen without a passphrase, and its public key.
func sshkeygenTestKey(t testing.TB) ([]byte, ssh.PublicKey) {
	t.Helper()
	seed := sha256.Sum256([]byte("bernstein-synopsis TEST key, not secret: alice"))
	priv := ed25519.NewKeyFromSeed(seed[:])
	block, err := ssh.MarshalPrivateKey(priv, "alice@test")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(block), pub
}

// ourAllowedVerdict is the app's verdict on an allowed_signers file for
// alice's key now.
func ourAllowedVerdict(file string, key ssh.PublicKey, now time.Time) bool {
	a, err := ParseAllowedSigners(strings.NewReader(file))
	if err != nil {
		return false
	}
	_, _, ok := a.Match(key, Namespace, now)
	return ok
}

func TestAllowedSignersAgreeWithSSHKeygen(t *testing.T) {
	privPEM, pub := sshkeygenTestKey(t)
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	now := time.Now()

	_, lookErr := exec.LookPath("ssh-keygen")
	dir := t.TempDir()
	msg := filepath.Join(dir, "msg")
	if lookErr == nil {
		keyPath := filepath.Join(dir, "id")
		if err := os.WriteFile(keyPath, privPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(msg, []byte("payload\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("ssh-keygen", "-Y", "sign", "-f", keyPath, "-n", Namespace, msg).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
		}
	} else {
		t.Log("ssh-keygen not on PATH (install openssh-client): checking the table's verdicts only")
	}

	for i, c := range trickyAllowedSigners {
		file := strings.ReplaceAll(c.line, "KEY", key) + "\n"
		if got := ourAllowedVerdict(file, pub, now); got != c.want {
			t.Errorf("%q: our verdict %v, want %v", c.line, got, c.want)
		}
		if lookErr != nil {
			continue
		}
		signers := filepath.Join(dir, "allowed_signers")
		if err := os.WriteFile(signers, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(msg)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", signers, "-I", "alice@example.org",
			"-n", Namespace, "-s", msg+".sig")
		cmd.Stdin = in
		out, err := cmd.CombinedOutput()
		in.Close()
		if theirs := err == nil; theirs != c.want {
			t.Errorf("case %d %q: ssh-keygen -Y verify says %v, the table %v:\n%s", i, c.line, theirs, c.want, out)
		}
	}
}
