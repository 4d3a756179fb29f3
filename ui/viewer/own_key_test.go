package viewer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// TestViewerOwnKey: a release signed by this machine's curator key (the
// key pair the curator writes, keys.WriteKeyPair) is called so, trusted
// or not, with the key's principal offered when untrusted. The curator's
// side (its release is signed by that key and trusted when the curator
// agreed) is TestCuratorOwnKeyTrustedInViewer in ui/curator.
func TestViewerOwnKey(t *testing.T) {
	for _, trusted := range []bool{true, false} {
		dir := t.TempDir()
		keyPath := filepath.Join(dir, "curator_ed25519")
		if _, err := keys.WriteKeyPair(keyPath, []byte("pass"), "me@example.org", false); err != nil {
			t.Fatal(err)
		}
		signer, err := keys.LoadSigner(keyPath, []byte("pass"))
		if err != nil {
			t.Fatal(err)
		}
		path := viewerFixtureKDE.write(t, dir, signer)
		trustPath := ""
		if trusted {
			trustPath = viewerTrustFile(t, dir, "me@example.org", signer)
		}
		d := viewerLoadOwn(path, trustPath, keyPath)
		switch {
		case trusted && (d.State != viewerTrusted || !strings.Contains(d.Headline, "signed by this machine's curator key")):
			t.Errorf("own trusted release: %v, %q", d.State, d.Headline)
		case !trusted && (d.State != viewerUntrusted || !strings.Contains(d.Headline, "signed by this machine's curator key") || d.OwnPrincipal != "me@example.org"):
			t.Errorf("own untrusted release: %v, %q, principal %q", d.State, d.Headline, d.OwnPrincipal)
		}
		if strings.Contains(d.Headline, "NOT in your trusted keys") {
			t.Errorf("the curator's own release reads %q", d.Headline)
		}
	}
}

// TestViewerForeignKeyNotOwn: a release signed by another key is never
// called this machine's curator key, trusted or not.
func TestViewerForeignKeyNotOwn(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 9)
	path := viewerFixtureKDE.write(t, dir, signer)
	keyPath := filepath.Join(dir, "curator_ed25519")
	if _, err := keys.WriteKeyPair(keyPath, []byte("pass"), "me@example.org", false); err != nil {
		t.Fatal(err)
	}
	for _, trustPath := range []string{"", viewerTrustFile(t, dir, "other@example.org", signer)} {
		d := viewerLoadOwn(path, trustPath, keyPath)
		if d.Own || strings.Contains(d.Headline, "this machine") {
			t.Errorf("trust %q: %q", trustPath, d.Headline)
		}
	}
}
