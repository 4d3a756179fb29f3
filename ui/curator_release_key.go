package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// unencryptedKeyWarning is shown in the release dialog instead of the
// passphrase field when the curator key has no passphrase.
const unencryptedKeyWarning = "Warning: your curator key is not encrypted (it has no passphrase), so anyone who can read the key file can sign synopses in your name. No passphrase is needed. Protect the key with 'ssh-keygen -p -f KEYFILE'."

// releaseKeyLabel checks the curator key before the release dialog asks for
// its passphrase (keys.KeyEncrypted). For an encrypted key it returns
// the "Key passphrase:" label; for an unencrypted one it hides pass and
// returns a warning label instead. An unusable key file is an error.
func releaseKeyLabel(keyPath string, pass *widget.Entry) (*widget.Label, bool, error) {
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
