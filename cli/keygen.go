package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/user"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

func keygenCommand() *command {
	return &command{
		Name:    "keygen",
		Args:    "[--out FILE] [--principal NAME] [--passphrase-file FILE] [--trust] [--force]",
		Summary: "Create the curator's Ed25519 signing key (passphrase-protected OpenSSH key).",
		Details: `Writes three files: the private key FILE (mode 0600, always encrypted with a
passphrase), FILE.pub (the public key) and FILE.allowed_signers (the one line
analysts add to their allowed_signers file to trust your synopses). The
passphrase comes from --passphrase-file, else $` + passphraseEnv + `, else a prompt
(asked twice) when standard input is a terminal.`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var out, principal, passFile, allowed string
			var force, trust bool
			fs.StringVar(&out, "out", "", "private key `FILE` (default: curator_ed25519 in the user config directory)")
			fs.StringVar(&principal, "principal", "", "identity in the allowed_signers line, e.g. an e-mail address `NAME` (default: USER@HOST)")
			fs.StringVar(&passFile, "passphrase-file", "", "read the new key's passphrase from `FILE` (else $"+passphraseEnv+", else a prompt)")
			fs.BoolVar(&force, "force", false, "overwrite an existing key (the old key is lost)")
			fs.BoolVar(&trust, "trust", false, "also add the new key to your own allowed signers file, so verify reports your synopses as trusted")
			trustFlag(fs, &allowed)
			return func(context.Context, []string) error {
				var err error
				if err := refuseDashOut(out, "a key"); err != nil {
					return err
				}
				if out == "" {
					if out, err = keys.DefaultKeyPath(); err != nil {
						return err
					}
				}
				if principal == "" {
					principal = defaultPrincipal()
				}
				if err := checkKeygenOutputs(out, allowed, passFile); err != nil {
					return err
				}
				if !force {
					// Fail before asking for a passphrase.
					for _, p := range []string{out, out + keys.PublicKeySuffix, out + keys.AllowedSignersSuffix} {
						if _, err := os.Lstat(p); err == nil {
							return &fileio.ExistsError{Path: p}
						}
					}
				}
				pass, err := readPassphrase(e, passFile, "the new key "+out, true)
				if err != nil {
					return err
				}
				kp, err := keys.WriteKeyPair(out, pass, principal, force)
				clear(pass)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.Stdout, "private key:     %s (passphrase-protected, keep it secret)\n", kp.PrivatePath)
				fmt.Fprintf(e.Stdout, "public key:      %s\n", kp.PublicPath)
				fmt.Fprintf(e.Stdout, "fingerprint:     %s\n", kp.Fingerprint)
				fmt.Fprintf(e.Stdout, "allowed_signers: %s\n", kp.AllowedSignersPath)
				fmt.Fprintf(e.Stdout, "\nGive analysts this line for their allowed_signers file:\n%s\n", kp.AllowedSignersLine)
				if trust {
					path, err := trustKey(allowed, kp)
					if err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "\nadded to your allowed signers: %s\n", path)
				}
				return nil
			}
		},
	}
}

// trustKey adds a new key to the allowed signers file (given or default).
func trustKey(path string, kp *keys.KeyPair) (string, error) {
	var err error
	if path == "" {
		if path, err = keys.DefaultAllowedSignersPath(); err != nil {
			return "", err
		}
	}
	return path, keys.TrustKey(path, kp.Principal, kp.Key)
}

// defaultPrincipal is USER@HOST with characters an allowed_signers
// principal cannot hold replaced by '_'.
func defaultPrincipal() string {
	name := "curator"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		name += "@" + h
	}
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("\",*?!", r) {
			return '_'
		}
		return r
	}, name)
}
