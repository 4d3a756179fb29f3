package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// passphraseEnv is the environment variable read when --passphrase-file is
// not given (for automation; a prompt is safer on a shared machine).
const passphraseEnv = keys.PassphraseEnv

// readPassphrase returns the key passphrase, from (in this order)
// --passphrase-file, $BERNSTEIN_PASSPHRASE, or a prompt without echo when
// standard input is a terminal. confirm asks twice (for a new key). Without
// any of these it returns an error saying how to provide one.
func readPassphrase(e *env, file, purpose string, confirm bool) ([]byte, error) {
	if file != "" {
		return keys.ReadPassphraseFile(file)
	}
	if e.Getenv != nil {
		if v := e.Getenv(passphraseEnv); v != "" {
			return []byte(v), nil
		}
	}
	if e.Terminal == nil || !e.Terminal() || e.ReadPassword == nil {
		return nil, errors.New("no passphrase: standard input is not a terminal, so give --passphrase-file FILE or set " +
			passphraseEnv)
	}
	fmt.Fprintf(e.Stderr, "Passphrase for %s: ", purpose)
	p, err := e.ReadPassword()
	fmt.Fprintln(e.Stderr)
	if err != nil {
		return nil, fmt.Errorf("reading passphrase: %w", err)
	}
	if len(p) == 0 {
		return nil, errors.New("empty passphrase; a key passphrase must not be empty")
	}
	if confirm {
		fmt.Fprintf(e.Stderr, "Repeat the passphrase: ")
		q, err := e.ReadPassword()
		fmt.Fprintln(e.Stderr)
		if err != nil {
			return nil, fmt.Errorf("reading passphrase: %w", err)
		}
		if !bytes.Equal(p, q) {
			return nil, errors.New("the two passphrases differ")
		}
	}
	return p, nil
}
