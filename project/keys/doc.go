// Package keys holds who signs a synopsis and whom an analyst trusts: the
// curator's Ed25519 key pair and the analyst's OpenSSH allowed_signers
// list.
//
// Contract:
//
//   - Curator keys are Ed25519 only (ErrKeyType). WriteKeyPair writes the
//     private key (mode 0600, passphrase-protected with OpenSSH's bcrypt KDF
//     unless the passphrase is empty by choice), its .pub file and its
//     .allowed_signers line through project/fileio.WriteGroup, so a failed
//     or interrupted write never loses the old key. LoadSigner refuses a
//     private key readable by others (ErrKeyPermissions) and names a wrong
//     passphrase (ErrWrongPassphrase).
//   - allowed_signers files are read as ssh-keygen(1) reads them (patterns,
//     namespaces, validity windows, cert-authority entries never match),
//     capped at MaxAllowedSignersSize; TestAllowedSignersAgreeWithSSHKeygen
//     checks the verdicts against ssh-keygen itself. Saving is atomic.
//   - Trust has one policy, LoadTrust: a missing allowed_signers file is an
//     empty list, which trusts nobody; a damaged one is an error, never
//     "trust nobody" silently nor "trust everybody". Keys are added by one
//     function, TrustKey (keygen --trust, the curator, the viewer).
//   - Key text an analyst pastes (an OpenSSH public key line or an
//     allowed_signers line) is read by ParseKeyText, the only key parser
//     outside this package's file readers.
//   - Signatures are made and checked in one namespace, Namespace, so a
//     key trusted for synopses signs nothing else the app accepts.
//
// Package keys imports project/fileio only.
package keys
