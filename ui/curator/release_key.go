package curator

import (
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/ui/internal/trust"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// unencryptedKeyWarning is shown in the release dialog instead of the
// passphrase field when the curator key has no passphrase.
const unencryptedKeyWarning = "Warning: your curator key is not encrypted (it has no passphrase), so anyone who can read the key file can sign synopses in your name. No passphrase is needed. Protect the key with 'ssh-keygen -p -f KEYFILE'."

// releaseKeyLabel checks the curator key before the release dialog asks for
// its passphrase (keys.KeyEncrypted). For an encrypted key it returns
// the "Key passphrase:" label; for an unencrypted one it hides pass and
// returns a warning label instead. An unusable key file is an error.
func releaseKeyLabel(keyPath string, pass fyne.CanvasObject) (*widget.Label, bool, error) {
	encrypted, err := keys.KeyEncrypted(keyPath)
	if err != nil {
		return nil, false, err
	}
	if encrypted {
		return widget.NewLabel("Key passphrase:"), true, nil
	}
	l := widget.NewLabel(unencryptedKeyWarning)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.WarningImportance
	pass.Hide()
	return l, false, nil
}

// ownKeyTrustText is the curator's agreement, at key creation, to trust
// the new key on this machine (issue 18 item 12); ownKeyTrustNote explains
// it under the box.
const (
	ownKeyTrustText = "Trust this key on this computer"
	ownKeyTrustNote = "Adds the key's allowed_signers line to your trusted keys, so that the viewer shows your own releases as signed by this machine's curator key."
)

// ownKeyTrust is the key creation dialog's box for ownKeyTrustText with its
// note (a widget), ticked: creating the key with it ticked is the curator's
// agreement.
type ownKeyTrust struct {
	widget.BaseWidget
	check *widgets.KeyCheck
	note  *widget.Label
}

func newOwnKeyTrust() *ownKeyTrust {
	o := &ownKeyTrust{check: widgets.NewKeyCheck(ownKeyTrustText, nil), note: widget.NewLabel(ownKeyTrustNote)}
	o.check.Checked = true
	o.note.Wrapping = fyne.TextWrapWord
	o.ExtendBaseWidget(o)
	return o
}

// CreateRenderer implements fyne.Widget: the box above its note.
func (o *ownKeyTrust) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewVBox(o.check, o.note))
}

// agreed reports whether the box is ticked.
func (o *ownKeyTrust) agreed() bool { return o.check.Checked }

// trustPath is the trusted-keys file of this machine's viewer:
// ConfigDir/allowed_signers, which is keys.DefaultAllowedSignersPath()
// for the default ConfigDir (the file the viewer opened from the app
// reads).
func (c *curator) trustPath() string { return filepath.Join(c.opts.ConfigDir, "allowed_signers") }

// writeCuratorKey writes the curator key pair (keys.WriteKeyPair) and,
// if the curator agreed (trustIt), adds the key under its principal to the
// trusted keys at trustPath with the viewer's own trust logic
// (trust.Store.Add: the allowed_signers line the curator would otherwise add
// by hand). A key that could not be written is an error; a key written but
// not trusted is reported in win and returned (the key is there; the
// viewer then offers to trust it).
func writeCuratorKey(win fyne.Window, keyPath, trustPath string, pass []byte, principal string, trustIt bool) (*keys.KeyPair, error) {
	kp, err := keys.WriteKeyPair(keyPath, pass, principal, false)
	if err != nil || !trustIt {
		return kp, err
	}
	if err := (trust.Store{Path: trustPath}).Add(kp.Principal, kp.Key); err != nil {
		dialog.ShowError(fmt.Errorf("your curator key was created, but it could not be added to your trusted keys (%s): %w", trustPath, err), win)
	}
	return kp, nil
}
