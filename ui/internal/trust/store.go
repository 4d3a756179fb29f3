package trust

import (
	"errors"
	"fmt"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// Store is the analyst's list of trusted curator keys: an OpenSSH
// allowed_signers file (by default keys.DefaultAllowedSignersPath(), in
// the user configuration directory). Every method reads the file afresh and
// writes it back atomically (keys.AllowedSigners.Save), so two open viewer
// windows never overwrite each other's changes with a stale copy.
type Store struct {
	Path string // the allowed_signers file
}

// Entries returns the file's entries; a missing file has none.
func (s Store) Entries() ([]keys.AllowedSigner, error) {
	a, err := Load(s.Path)
	if err != nil {
		return nil, err
	}
	return a.Entries(), nil
}

// Add trusts key for synopsis files under principal (an e-mail address or
// name without spaces; rules in keys.AllowedSigners.Add) and saves the
// file. Adding a key already trusted under the same principal changes
// nothing.
func (s Store) Add(principal string, key ssh.PublicKey) error {
	if s.Path == "" {
		return errors.New("no trusted-keys file configured")
	}
	return keys.TrustKey(s.Path, principal, key)
}

// Remove deletes every entry with the key of the given fingerprint and
// saves the file; it returns how many entries it removed.
func (s Store) Remove(fingerprint string) (int, error) {
	a, err := Load(s.Path)
	if err != nil {
		return 0, err
	}
	n := a.Remove(fingerprint)
	if n == 0 {
		return 0, fmt.Errorf("no trusted key has fingerprint %s", fingerprint)
	}
	return n, a.Save(s.Path)
}

// fingerprintOf returns the SHA256 fingerprint of key as ssh-keygen prints it.
func fingerprintOf(key ssh.PublicKey) string { return ssh.FingerprintSHA256(key) }

// Load loads the allowed_signers file (keys.LoadTrust: a missing
// file trusts nobody); no path, no file.
func Load(path string) (*keys.AllowedSigners, error) {
	if path == "" {
		return nil, nil
	}
	return keys.LoadTrust(path)
}
