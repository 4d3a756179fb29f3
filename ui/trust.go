package ui

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bernsteinrelease/bernstein/project"
	"golang.org/x/crypto/ssh"
)

// trustStore is the analyst's list of trusted curator keys: an OpenSSH
// allowed_signers file (by default project.DefaultAllowedSignersPath(), in
// the user configuration directory). Every method reads the file afresh and
// writes it back atomically (AllowedSigners.Save), so two open viewer
// windows never overwrite each other's changes with a stale copy.
type trustStore struct {
	path string
}

// entries returns the file's entries; a missing file has none.
func (s trustStore) entries() ([]project.AllowedSigner, error) {
	a, err := trustLoad(s.path)
	if err != nil {
		return nil, err
	}
	return a.Entries(), nil
}

// add trusts key for synopsis files under principal (an e-mail address or
// name without spaces; rules in project.AllowedSigners.Add) and saves the
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

// parseKeyText reads a public key the analyst pasted or imported: either an
// OpenSSH public key line ("ssh-ed25519 AAAA… comment", as in a .pub file)
// or an allowed_signers line ("principal [options] ssh-ed25519 AAAA…", as
// `bernstein keygen` prints for analysts). It returns the key and a
// suggested principal (the allowed_signers principals, or the key comment
// when it looks like one), which may be "".
func parseKeyText(text string) (ssh.PublicKey, string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, "", errors.New("paste a public key (ssh-ed25519 AAAA…) or an allowed_signers line")
	}
	if strings.Contains(text, "\n") {
		// Several lines: take the only non-comment line.
		var lines []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		if len(lines) != 1 {
			return nil, "", fmt.Errorf("found %d key lines; add one key at a time", len(lines))
		}
		text = lines[0]
	}
	if key, comment, _, _, err := ssh.ParseAuthorizedKey([]byte(text)); err == nil {
		principal := ""
		if c := strings.TrimSpace(comment); c != "" && !strings.ContainsAny(c, " \t,\"*?!") {
			principal = c
		}
		return key, principal, nil
	}
	a, err := project.ParseAllowedSigners(strings.NewReader(text + "\n"))
	if err != nil {
		return nil, "", fmt.Errorf("not an OpenSSH public key or allowed_signers line: %v", err)
	}
	e := a.Entries()
	if len(e) != 1 {
		return nil, "", errors.New("not an OpenSSH public key or allowed_signers line")
	}
	return e[0].Key, e[0].Principals, nil
}

// fingerprintOf returns the SHA256 fingerprint of key as ssh-keygen prints it.
func fingerprintOf(key ssh.PublicKey) string { return ssh.FingerprintSHA256(key) }
