package keys

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// Curator keys: an Ed25519 key pair in OpenSSH formats. The private key is
// only ever written encrypted with a passphrase (OpenSSH's bcrypt KDF and
// AES-256-CTR, as ssh-keygen does), so ssh-keygen can use it too.
const (
	// PassphraseEnv is the environment variable that automation may use to
	// pass the key passphrase (the CLI's --passphrase-file is the
	// alternative; an interactive prompt is the default).
	PassphraseEnv = "BERNSTEIN_PASSPHRASE"
	// PublicKeySuffix is appended to the private key path for the public key.
	PublicKeySuffix = ".pub"
	// AllowedSignersSuffix is appended to the private key path for the
	// allowed_signers line to hand to analysts.
	AllowedSignersSuffix = ".allowed_signers"

	maxKeyFileSize        = 64 << 10
	maxPassphraseFileSize = 4 << 10
)

// Key errors; test with errors.Is.
var (
	// ErrEmptyPassphrase: a private key would be written unencrypted.
	ErrEmptyPassphrase = errors.New("the passphrase is empty; curator keys are always passphrase-protected")
	// ErrWrongPassphrase: the passphrase does not decrypt the key.
	ErrWrongPassphrase = errors.New("wrong passphrase for the curator key")
	// ErrPassphraseRequired: the key is encrypted and no passphrase was given.
	ErrPassphraseRequired = errors.New("the curator key is passphrase-protected; a passphrase is required")
	// ErrKeyType: the key is not an Ed25519 key.
	ErrKeyType = errors.New("curator keys must be Ed25519 keys")
	// ErrKeyPermissions: the private key file is accessible to other users.
	ErrKeyPermissions = errors.New("private key file is accessible to other users")
)

// GenerateKey creates an Ed25519 key (crypto/rand) and returns the private
// key as an OpenSSH PEM file encrypted with passphrase
// (ssh.MarshalPrivateKeyWithPassphrase) and the public key as one
// authorized_keys line "ssh-ed25519 AAAA… comment\n". An empty passphrase
// is refused (ErrEmptyPassphrase); comment must be one line of printable
// text (it is visible in both files).
func GenerateKey(passphrase []byte, comment string) (privPEM, pubAuthorized []byte, err error) {
	if len(passphrase) == 0 {
		return nil, nil, ErrEmptyPassphrase
	}
	for _, r := range comment {
		if unicode.IsControl(r) {
			return nil, nil, fmt.Errorf("key comment %q must not contain control characters", comment)
		}
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate Ed25519 key: %w", err)
	}
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, comment, passphrase)
	if err != nil {
		return nil, nil, fmt.Errorf("encrypt private key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	line := bytes.TrimSuffix(ssh.MarshalAuthorizedKey(sshPub), []byte("\n"))
	if comment != "" {
		line = append(append(line, ' '), comment...)
	}
	return pem.EncodeToMemory(block), append(line, '\n'), nil
}

// KeyPair names the files WriteKeyPair wrote.
type KeyPair struct {
	// PrivatePath is the encrypted private key (mode 0600).
	PrivatePath string
	// PublicPath is PrivatePath + PublicKeySuffix (authorized_keys format).
	PublicPath string
	// AllowedSignersPath is PrivatePath + AllowedSignersSuffix: the one
	// line analysts add to their allowed_signers file.
	AllowedSignersPath string
	// Principal is the identity in the allowed_signers line.
	Principal string
	// Fingerprint is ssh.FingerprintSHA256 of the public key.
	Fingerprint string
	// AllowedSignersLine is the content of AllowedSignersPath, no newline.
	AllowedSignersLine string
	// Key is the public key.
	Key ssh.PublicKey
}

// WriteKeyPair generates a curator key (GenerateKey, comment = principal)
// and writes three files: the encrypted private key at path (mode 0600),
// the public key at path+".pub" (0644) and the allowed_signers line
// `principal namespaces="bernstein-synopsis" ssh-ed25519 …` at
// path+".allowed_signers" (0644). The directory is created with mode 0700
// if missing. Unless overwrite, nothing is written if any of the three
// exists (error matching ErrExists). The new files are written completely
// under temporary names and only then renamed into place, the private key
// last (fileio.WriteGroup): a failure never removes or damages the old key.
// principal follows the rules of (*AllowedSigners).Add (e.g. an e-mail
// address).
func WriteKeyPair(path string, passphrase []byte, principal string, overwrite bool) (*KeyPair, error) {
	if path == "" {
		return nil, errors.New("write key pair: empty path")
	}
	if err := checkPrincipal(principal); err != nil {
		return nil, err
	}
	if len(passphrase) == 0 {
		return nil, ErrEmptyPassphrase
	}
	kp := &KeyPair{PrivatePath: path, PublicPath: path + PublicKeySuffix,
		AllowedSignersPath: path + AllowedSignersSuffix, Principal: principal}
	paths := []string{kp.PrivatePath, kp.PublicPath, kp.AllowedSignersPath}
	if !overwrite {
		for _, p := range paths {
			if _, err := os.Lstat(p); err == nil {
				return nil, &fileio.ExistsError{Path: p}
			}
		}
	}
	priv, pub, err := GenerateKey(passphrase, principal)
	if err != nil {
		return nil, err
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(pub)
	if err != nil {
		return nil, err
	}
	kp.Key, kp.Fingerprint = key, ssh.FingerprintSHA256(key)
	kp.AllowedSignersLine, err = AllowedSignersLine(principal, key)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create key directory: %w", err)
	}
	if err := fileio.WriteGroup([]fileio.Pending{
		{Path: kp.PrivatePath, Data: priv, Mode: 0o600},
		{Path: kp.PublicPath, Data: pub, Mode: 0o644},
		{Path: kp.AllowedSignersPath, Data: []byte(kp.AllowedSignersLine + "\n"), Mode: 0o644},
	}, overwrite); err != nil {
		return nil, err
	}
	return kp, nil
}

// LoadSigner reads the OpenSSH private key at path and returns a signer for
// Encode. An encrypted key needs its passphrase: a wrong one gives
// ErrWrongPassphrase, none gives ErrPassphraseRequired. An unencrypted key
// (e.g. made by ssh-keygen -N "") is accepted, whatever passphrase is
// given. The key must be Ed25519 (ErrKeyType). On Unix-like systems the file
// must not be accessible to group or others (ErrKeyPermissions), as OpenSSH
// requires.
func LoadSigner(path string, passphrase []byte) (ssh.Signer, error) {
	data, err := readPrivateKeyFile(path)
	if err != nil {
		return nil, err
	}
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if len(passphrase) == 0 {
			return nil, fmt.Errorf("%s: %w", path, ErrPassphraseRequired)
		}
		raw, err = ssh.ParseRawPrivateKeyWithPassphrase(data, passphrase)
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("%s: %w", path, ErrWrongPassphrase)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the private key: %w", path, err)
	}
	var priv ed25519.PrivateKey
	switch k := raw.(type) {
	case *ed25519.PrivateKey:
		priv = *k
	case ed25519.PrivateKey:
		priv = k
	default:
		return nil, fmt.Errorf("%s: %w (found %T)", path, ErrKeyType, raw)
	}
	return ssh.NewSignerFromKey(priv)
}

// DefaultKeyPath returns os.UserConfigDir()/bernstein/curator_ed25519, the
// curator's key when none is named.
func DefaultKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user configuration directory: %w", err)
	}
	return filepath.Join(dir, "bernstein", "curator_ed25519"), nil
}

// ReadPassphraseFile reads a passphrase for automation (the CLI's
// --passphrase-file): the file's content without one trailing "\n" or
// "\r\n". An empty passphrase or a file above 4 KiB is an error.
func ReadPassphraseFile(path string) ([]byte, error) {
	fh, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxPassphraseFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPassphraseFileSize {
		return nil, fmt.Errorf("%s: a passphrase file must be at most %d bytes", path, maxPassphraseFileSize)
	}
	s := string(data)
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		s = t
	} else {
		s = strings.TrimSuffix(s, "\n")
	}
	if s == "" {
		return nil, fmt.Errorf("%s: %w", path, ErrEmptyPassphrase)
	}
	return []byte(s), nil
}

// KeyEncrypted reports whether the OpenSSH private key at path is
// protected by a passphrase, without asking for one: callers check it
// before prompting, so that an unencrypted key (ssh-keygen -N "") is
// signalled with a warning and no passphrase is demanded for it. The file
// is checked as LoadSigner checks it (a regular file, not accessible to
// others, at most 64 KiB); a file that is not a private key is an error.
func KeyEncrypted(path string) (bool, error) {
	data, err := readPrivateKeyFile(path)
	if err != nil {
		return false, err
	}
	_, err = ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing):
		return true, nil
	case err != nil:
		return false, fmt.Errorf("%s: cannot read the private key: %w", path, err)
	}
	return false, nil
}

// readPrivateKeyFile reads a private key file for LoadSigner and
// KeyEncrypted: a regular file (OpenRegular), on Unix-like systems not
// accessible to group or others (ErrKeyPermissions), at most
// maxKeyFileSize bytes.
func readPrivateKeyFile(path string) ([]byte, error) {
	fh, st, err := fileio.OpenRegularStat(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s: %w (mode %04o); restrict it with chmod 600", path, ErrKeyPermissions, st.Mode().Perm())
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxKeyFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxKeyFileSize {
		return nil, fmt.Errorf("%s: not a private key (larger than %d bytes)", path, maxKeyFileSize)
	}
	return data, nil
}
