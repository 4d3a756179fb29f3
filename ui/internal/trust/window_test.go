package trust

import (
	"crypto/ed25519"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// testKey returns a fixed Ed25519 TEST public key (seed byte b).
func testKey(t *testing.T, b byte) ssh.PublicKey {
	t.Helper()
	s, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(bytesOf(b, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	return s.PublicKey()
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// TestTrustManager adds keys as a public-key line and as an allowed_signers
// line, lists them with fingerprints, rejects junk and removes a key.
func TestTrustManager(t *testing.T) {
	dir := t.TempDir()
	a := test.NewTempApp(t)
	w := a.NewWindow("keys")
	defer w.Close()
	path := filepath.Join(dir, "sub", "allowed_signers")
	changes := 0
	m := NewManager(Store{Path: path}, w, func() { changes++ })
	if len(m.entries) != 0 || !strings.Contains(m.status.Text, "No trusted keys") {
		t.Fatalf("fresh: %d entries, %q", len(m.entries), m.status.Text)
	}
	k1, k2 := testKey(t, 8), testKey(t, 9)
	pub := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k1))) + " bob@example.org"
	if err := m.addText("", pub); err != nil {
		t.Fatal(err)
	}
	line, err := keys.AllowedSignersLine("carol@example.org", k2)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.addText("", "# from carol\n"+line+"\n"); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{"", "hello", "ssh-ed25519 AAAAnotbase64", line + "\n" + line} {
		if err := m.addText("x@example.org", junk); err == nil {
			t.Errorf("accepted %q", junk)
		}
	}
	if len(m.entries) != 2 || m.entries[0].Principals != "bob@example.org" || m.entries[1].Principals != "carol@example.org" || changes != 2 {
		t.Fatalf("entries %+v, %d changes", m.entries, changes)
	}
	if m.entries[0].Fingerprint != fingerprintOf(k1) || m.list.Length() != 2 {
		t.Errorf("fingerprint %s, want %s; list %d", m.entries[0].Fingerprint, fingerprintOf(k1), m.list.Length())
	}
	if err := m.remove(fingerprintOf(k1)); err != nil {
		t.Fatal(err)
	}
	if err := m.remove(fingerprintOf(k1)); err == nil {
		t.Error("removing an absent key succeeded")
	}
	got, err := Store{Path: path}.Entries()
	if err != nil || len(got) != 1 || got[0].Principals != "carol@example.org" {
		t.Errorf("file after remove: %+v, %v", got, err)
	}
}
