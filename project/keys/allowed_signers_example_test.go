package keys_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// The line a curator hands to analysts, and what an analyst's
// allowed_signers file makes of it.
func ExampleAllowedSignersLine() {
	seed := sha256.Sum256([]byte("example curator key: public, never use it"))
	signer, _ := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed[:]))
	line, _ := keys.AllowedSignersLine("curator@example.org", signer.PublicKey())
	fmt.Println(line[:68] + "…")

	a, _ := keys.ParseAllowedSigners(strings.NewReader("# my curators\n" + line + "\n"))
	principal, _, ok := a.Match(signer.PublicKey(), keys.Namespace, time.Now())
	fmt.Println(principal, ok)
	_, note, ok := a.Match(signer.PublicKey(), "git", time.Now())
	fmt.Println(ok, note)
	// Output:
	// curator@example.org namespaces="bernstein-synopsis" ssh-ed25519 AAAA…
	// curator@example.org true
	// false the signing key is listed but not allowed: line 2 (curator@example.org) does not allow namespace "git"
}
