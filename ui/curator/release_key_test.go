package curator

import (
	"crypto/ed25519"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/trust"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// TestCuratorUnencryptedKey: with an unencrypted curator key (ssh-keygen
// -N "") the release dialog warns instead of asking for a passphrase, and
// releasing with the passphrase field empty works (issue 14 item 16).
func TestCuratorUnencryptedKey(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	block, err := ssh.MarshalPrivateKey(priv, "TEST KEY, not secret")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(c.opts.KeyPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.opts.KeyPath, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	rp := c.pages[stepRelease].(*releasePage)
	out := filepath.Join(f.dir, "plain-key.synopsis")
	f.do(func() { curatorType(rp.out, out) })
	f.do(func() { test.Tap(rp.release) })
	fl := c.release
	if fl == nil {
		t.Fatal("no release dialog")
	}
	f.waitIdentity(fl) // the dialog's background check updates its widgets
	if !f.onTop(fl.dlg) {
		t.Fatal("no release dialog")
	}
	if !fl.pass.Hidden {
		t.Error("the passphrase field is shown for an unencrypted key")
	}
	warned := false
	f.do(func() {
		for _, o := range test.LaidOutObjects(fl.dlg.Pop) {
			if l, ok := o.(*widget.Label); ok && l.Text == unencryptedKeyWarning {
				warned = true
			}
		}
	})
	if !warned {
		t.Error("the release dialog does not warn about the unencrypted key")
	}
	f.do(func() { test.Tap(fl.dlg.Button("Release")) })
	if o := f.waitRelease(); o.err != nil || o.res.Path != out {
		t.Fatalf("release with an unencrypted key: %+v, %v", o.res, o.err)
	}
}

// TestCuratorOwnKeyTrustedInViewer: a curator who creates the key in the
// app and agrees (the box is ticked) has its allowed_signers line written
// to this machine's trusted keys; opening their own release, the viewer
// says it was signed by this machine's curator key, trusted. Unticked, the
// key is not trusted, and the viewer names it as this machine's key and
// offers to trust it under the curator's principal (issue 18 item 12).
func TestCuratorOwnKeyTrustedInViewer(t *testing.T) {
	for _, agree := range []bool{true, false} {
		t.Run(fmt.Sprintf("agree=%v", agree), func(t *testing.T) {
			f := newCuratorFixture(t)
			c := f.c
			f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
			f.waitDataset()
			f.preview()
			rp := c.pages[stepRelease].(*releasePage)
			out := filepath.Join(f.dir, "own.synopsis")
			f.do(func() { curatorType(rp.out, out) })
			f.do(func() { test.Tap(rp.release) })
			fl := c.release
			if fl == nil || !f.onTop(fl.keyDlg) {
				t.Fatal("no key-creation dialog")
			}
			var box *widgets.KeyCheck
			f.do(func() {
				for _, o := range test.LaidOutObjects(fl.keyDlg.Pop) {
					if ch, ok := o.(*widgets.KeyCheck); ok && ch.Text == ownKeyTrustText {
						box = ch
					}
				}
			})
			if box == nil || !box.Checked {
				t.Fatalf("the key dialog has no ticked %q box", ownKeyTrustText)
			}
			if !agree {
				f.do(func() { test.Tap(box) })
			}
			f.do(func() { curatorType(fl.principal, "me@example.org") })
			f.do(func() { curatorType(fl.keyPass, "correct horse") })
			f.do(func() { curatorType(fl.keyPass2, "correct horse") })
			f.do(func() { test.Tap(fl.keyDlg.Button("Create key")) })
			if !f.onTop(fl.keyInfo) {
				t.Fatal("no key info after creating the key")
			}
			f.do(func() { test.Tap(fl.keyInfo.Button("Continue")) })
			fl = c.release
			f.waitIdentity(fl)
			f.do(func() { curatorType(fl.pass, "correct horse") })
			f.do(func() { test.Tap(fl.dlg.Button("Release")) })
			if o := f.waitRelease(); o.err != nil {
				t.Fatalf("release: %v", o.err)
			}

			as, err := trust.Load(c.trustPath())
			if err != nil {
				t.Fatal(err)
			}
			kp, err := fileio.ReadRegular(c.opts.KeyPath+keys.AllowedSignersSuffix, keys.MaxAllowedSignersSize)
			if err != nil {
				t.Fatal(err)
			}
			if trusted := len(as.Entries()) == 1 && as.Entries()[0].Principals == "me@example.org" &&
				as.Entries()[0].Fingerprint == keyFingerprint(strings.TrimSpace(string(kp))); trusted != agree {
				t.Fatalf("trusted keys %+v after agree=%v", as.Entries(), agree)
			}

			// The release is signed by this machine's curator key, trusted
			// exactly when the curator agreed; how the viewer words that is
			// TestViewerOwnKey (ui/viewer).
			v, err := synopsis.Open(out, as)
			if err != nil {
				t.Fatal(err)
			}
			if v.Fingerprint != keyFingerprint(strings.TrimSpace(string(kp))) || v.Trusted != agree {
				t.Errorf("own release signed by %s (trusted %v), want the curator key %s (trusted %v)", v.Fingerprint, v.Trusted, keyFingerprint(strings.TrimSpace(string(kp))), agree)
			}
		})
	}
}
