package cli

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// checkSigningKey checks, before any passphrase prompt, that the curator's
// key at keyPath exists and is a usable private key file, and reports
// whether it is passphrase-protected. An unencrypted key (ssh-keygen -N "")
// is announced with a warning on stderr: it works, but anyone who can read
// the file can sign synopses in the curator's name.
func checkSigningKey(e *env, keyPath string) (encrypted bool, err error) {
	encrypted, err = keys.KeyEncrypted(keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("no signing key: %w; create one with 'bernstein keygen' or name it with --key", err)
	}
	if err != nil {
		return false, err
	}
	if !encrypted {
		fmt.Fprintf(e.Stderr, "warning: the signing key %s is not encrypted: anyone who can read the file can sign synopses in your name; "+
			"no passphrase is asked for or used (protect the key with 'ssh-keygen -p -f %s')\n", keyPath, keyPath)
	}
	return encrypted, nil
}

// unlockSigningKey loads the curator's key, asking for the passphrase
// (readPassphrase) only if checkSigningKey found it encrypted.
func unlockSigningKey(e *env, keyPath string, encrypted bool, passphraseFile string) (ssh.Signer, error) {
	var pass []byte
	if encrypted {
		var err error
		if pass, err = readPassphrase(e, passphraseFile, keyPath, false); err != nil {
			return nil, err
		}
		defer clear(pass)
	}
	return keys.LoadSigner(keyPath, pass)
}
