package ui

import (
	"crypto/ed25519"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/crypto/ssh"
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
		for _, o := range test.LaidOutObjects(fl.dlg.pop) {
			if l, ok := o.(*widget.Label); ok && l.Text == unencryptedKeyWarning {
				warned = true
			}
		}
	})
	if !warned {
		t.Error("the release dialog does not warn about the unencrypted key")
	}
	f.do(func() { test.Tap(fl.dlg.button("Release")) })
	if o := f.waitRelease(); o.err != nil || o.res.Path != out {
		t.Fatalf("release with an unencrypted key: %+v, %v", o.res, o.err)
	}
}
