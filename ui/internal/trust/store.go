package ui

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// trustStore is the analyst's list of trusted curator keys: an OpenSSH
// allowed_signers file (by default keys.DefaultAllowedSignersPath(), in
// the user configuration directory). Every method reads the file afresh and
// writes it back atomically (keys.AllowedSigners.Save), so two open viewer
// windows never overwrite each other's changes with a stale copy.
type trustStore struct {
	path string
}

// entries returns the file's entries; a missing file has none.
func (s trustStore) entries() ([]keys.AllowedSigner, error) {
	a, err := trustLoad(s.path)
	if err != nil {
		return nil, err
	}
	return a.Entries(), nil
}

// add trusts key for synopsis files under principal (an e-mail address or
// name without spaces; rules in keys.AllowedSigners.Add) and saves the
// file. Adding a key already trusted under the same principal changes
// nothing.
func (s trustStore) add(principal string, key ssh.PublicKey) error {
	if s.path == "" {
		return errors.New("no trusted-keys file configured")
	}
	a, err := trustLoad(s.path)
	if err != nil {
		return err
	}
	if err := a.Add(strings.TrimSpace(principal), key); err != nil {
		return err
	}
	return a.Save(s.path)
}

// remove deletes every entry with the key of the given fingerprint and
// saves the file; it returns how many entries it removed.
func (s trustStore) remove(fingerprint string) (int, error) {
	a, err := trustLoad(s.path)
	if err != nil {
		return 0, err
	}
	n := a.Remove(fingerprint)
	if n == 0 {
		return 0, fmt.Errorf("no trusted key has fingerprint %s", fingerprint)
	}
	return n, a.Save(s.path)
}

// fingerprintOf returns the SHA256 fingerprint of key as ssh-keygen prints it.
func fingerprintOf(key ssh.PublicKey) string { return ssh.FingerprintSHA256(key) }
