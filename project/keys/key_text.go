package keys

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// ParseKeyText reads a public key the analyst pasted or imported: either an
// OpenSSH public key line ("ssh-ed25519 AAAA… comment", as in a .pub file)
// or an allowed_signers line ("principal [options] ssh-ed25519 AAAA…", as
// `bernstein keygen` prints for analysts). It returns the key and a
// suggested principal (the allowed_signers principals, or the key comment
// when it looks like one), which may be "".
func ParseKeyText(text string) (ssh.PublicKey, string, error) {
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
	a, err := ParseAllowedSigners(strings.NewReader(text + "\n"))
	if err != nil {
		return nil, "", fmt.Errorf("not an OpenSSH public key or allowed_signers line: %v", err)
	}
	e := a.Entries()
	if len(e) != 1 {
		return nil, "", errors.New("not an OpenSSH public key or allowed_signers line")
	}
	return e[0].Key, e[0].Principals, nil
}
