package synopsis

import (
	"bytes"
	"fmt"

	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// signatureHash is the SSHSIG hash algorithm of synopsis signatures (the
// OpenSSH default for ssh-keygen -Y sign).
const signatureHash = sshsig.HashSHA512

// signatureBegin is the line that starts the armored signature block. The
// payload can never contain it at the start of a line: the metadata is
// indented JSON whose strings escape line breaks, and the value lines are
// decimal numbers.
var signatureBegin = []byte("-----BEGIN " + sshsig.PEMType + "-----\n")

// signPayload returns the armored SSHSIG block (RFC 7468 style, 64-column
// base64, final newline) over exactly payload, made with an Ed25519 signer
// in namespace Namespace with SHA-512, as OpenSSH's
// PROTOCOL.sshsig specifies. Ed25519 signatures are deterministic, so the
// same payload and key always give the same bytes.
func signPayload(payload []byte, signer ssh.Signer) ([]byte, error) {
	if signer == nil {
		return nil, fmt.Errorf("sign synopsis: no signing key")
	}
	if t := signer.PublicKey().Type(); t != ssh.KeyAlgoED25519 {
		return nil, fmt.Errorf("sign synopsis: key type %s is not supported; synopsis files are signed with %s keys", t, ssh.KeyAlgoED25519)
	}
	sig, err := sshsig.Sign(bytes.NewReader(payload), signer, signatureHash, keys.Namespace)
	if err != nil {
		return nil, fmt.Errorf("sign synopsis: %w", err)
	}
	return sshsig.Armor(sig), nil
}

// verifyBlock checks that block is exactly the canonical armored SSHSIG
// block that signPayload would produce for its contents (so that no bit of
// it can change without detection, padding bits and line breaks included),
// that it uses an Ed25519 key, namespace Namespace and a supported
// hash, and that the signature verifies, with the key it carries, over the
// payload whose digests sums holds (the payload is hashed as it streams
// past; see readSynopsis). It returns that key. Errors are *FormatError
// wrapping ErrBadSignature at the block's offset off and line.
func verifyBlock(block []byte, sums *payloadHashes, off int64, line int) (ssh.PublicKey, error) {
	bad := func(format string, args ...any) error {
		return &FormatError{Line: line, Offset: off, Field: "signature", Rule: fmt.Sprintf(format, args...), Err: ErrBadSignature}
	}
	sig, err := sshsig.Unarmor(block)
	if err != nil {
		return nil, bad("the SSH signature block cannot be decoded: %v", err)
	}
	if !bytes.Equal(sshsig.Armor(sig), block) {
		return nil, bad("the SSH signature block is not in canonical form, or data follows it (the file must end with the END line and one newline)")
	}
	if sig.PublicKey.Type() != ssh.KeyAlgoED25519 {
		return nil, bad("signed with a %s key; synopsis files are signed with %s keys", sig.PublicKey.Type(), ssh.KeyAlgoED25519)
	}
	if sig.Namespace != keys.Namespace {
		return nil, bad("signature namespace is %q, not %q: it was made for something else", sig.Namespace, keys.Namespace)
	}
	digest := sums.sum(sig.HashAlgorithm.String())
	if digest == nil {
		return nil, bad("signature hash %q is not supported", sig.HashAlgorithm)
	}
	// The message PROTOCOL.sshsig signs: MAGIC_PREAMBLE "SSHSIG", then the
	// namespace, reserved, hash algorithm and H(payload) as SSH strings.
	signed := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Namespace, Reserved, HashAlgorithm, Hash string
	}{keys.Namespace, "", sig.HashAlgorithm.String(), string(digest)})...)
	if err := sig.PublicKey.Verify(signed, sig.Signature); err != nil {
		return nil, bad("the signature of key %s does not match the content: the file was changed or damaged after signing (%v)",
			ssh.FingerprintSHA256(sig.PublicKey), err)
	}
	return sig.PublicKey, nil
}
