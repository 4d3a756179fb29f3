package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// trustFlag is the --allowed-signers flag shared by verify, inspect and eval.
func trustFlag(fs *flag.FlagSet, path *string) {
	fs.StringVar(path, "allowed-signers", "", "the OpenSSH allowed_signers `FILE` listing trusted curator keys\n(default: allowed_signers in the user config directory; a missing default file trusts no one)")
}

// allowUntrustedFlag is the --allow-untrusted flag of inspect and eval.
func allowUntrustedFlag(fs *flag.FlagSet, allow *bool) {
	fs.BoolVar(allow, "allow-untrusted", false, "accept a valid signature by a key outside your allowed signers\n(with a warning on standard error); without it such a file is refused (exit 5)")
}

// requireTrust refuses an untrusted synopsis (an error matching
// synopsis.ErrUntrusted: exit 5) unless allow is set, in which case it warns
// on stderr and accepts it.
func requireTrust(v *synopsis.Verified, allow bool, stderr io.Writer) error {
	if v.Trusted {
		return nil
	}
	if !allow {
		return fmt.Errorf("%w; compare its fingerprint with the one the curator published, then add the key to your allowed signers or pass --allow-untrusted", v.RequireTrusted())
	}
	fmt.Fprintf(stderr, "warning: %s\n", trustLine(v))
	return nil
}

// openVerified opens and verifies a synopsis against the allowed signers.
// A verification failure is wrapped so that it exits with exitVerify.
func openVerified(path, allowed string) (*synopsis.Verified, error) {
	trusted, err := loadTrust(allowed)
	if err != nil {
		return nil, err
	}
	v, err := synopsis.Open(path, trusted)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, err // cannot read the file: a runtime error, not a verdict
		}
		return nil, &verifyError{err: err}
	}
	return v, nil
}

// loadTrust loads the allowed signers file: the given one (which must
// exist) or the default one (which may be missing: synopsis.LoadTrust,
// nobody is trusted).
func loadTrust(path string) (*keys.AllowedSigners, error) {
	if path != "" {
		return keys.LoadAllowedSigners(path)
	}
	def, err := keys.DefaultAllowedSignersPath()
	if err != nil {
		return nil, nil
	}
	return keys.LoadTrust(def)
}

// trustLine describes the signer: trusted (with principal) or not.
func trustLine(v *synopsis.Verified) string {
	if v.Trusted {
		return fmt.Sprintf("trusted signer %s, key %s", v.Principal, v.Fingerprint)
	}
	s := fmt.Sprintf("UNTRUSTED signer: key %s is not in your allowed signers", v.Fingerprint)
	if v.TrustNote != "" {
		s += " (" + v.TrustNote + ")"
	}
	return s
}

func verifyCommand() *command {
	return &command{
		Name:    "verify",
		Args:    "FILE.synopsis [--allowed-signers FILE]",
		Summary: "Check a synopsis's signature; say whether the signer is trusted and print the key fingerprint.",
		Details: `Exits 0 only when the signature is valid over the whole payload, the
content is well-formed and the signer is in your allowed signers; exits 5
when the signature is valid but the key is not trusted (the output says so and
prints its fingerprint); exits 3 when the file is tampered with, truncated,
malformed or unsigned. Trust comes from
an OpenSSH allowed_signers file; the same check works with OpenSSH alone:
  ssh-keygen -Y verify -f allowed_signers -I PRINCIPAL -n bernstein-synopsis -s SIG < PAYLOAD
(see docs/synopsis-format.md for how to split the file).`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var allowed string
			trustFlag(fs, &allowed)
			return func(_ context.Context, pos []string) error {
				v, err := openVerified(pos[0], allowed)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.Stdout, "%s: valid signature; %s\n", pos[0], trustLine(v))
				return v.RequireTrusted()
			}
		},
	}
}
