package keys

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// Namespace is the SSHSIG namespace of synopsis signatures; an
// allowed_signers entry restricted by namespaces="…" must include it.
const Namespace = "bernstein-synopsis"

// MaxAllowedSignersSize caps an allowed_signers file (1 MiB).
const MaxAllowedSignersSize = 1 << 20

// AllowedSigner is one entry of an OpenSSH allowed_signers file
// (ssh-keygen(1), section ALLOWED SIGNERS):
//
//	principals [options] keytype base64-key [comment]
//
// principals is a comma-separated pattern list (optionally in double
// quotes); options are comma-separated: cert-authority,
// namespaces="pattern-list", valid-after=TIME, valid-before=TIME, where
// TIME is YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z] (Z: UTC, else local time).
type AllowedSigner struct {
	// Principals is the principals field as written, without quotes.
	Principals string
	// Options are the raw option strings, e.g. `namespaces="bernstein-synopsis"`.
	Options []string
	// Namespaces is the namespaces= pattern list, split at commas; nil
	// means every namespace.
	Namespaces []string
	// CertAuthority marks a CA key: it vouches for certificates, and a
	// plain-key signature never matches it.
	CertAuthority bool
	// ValidAfter and ValidBefore bound the entry's validity (inclusive);
	// zero means unbounded.
	ValidAfter, ValidBefore time.Time
	// Key is the public key.
	Key ssh.PublicKey
	// Fingerprint is ssh.FingerprintSHA256(Key).
	Fingerprint string
	// Comment is any text after the key.
	Comment string
	// Line is the 1-based line in the parsed file (0 for added entries).
	Line int
}

// AllowedSigners is a parsed allowed_signers file: the analyst's list of
// curator keys they trust. It keeps comments and line order so that Save
// rewrites the file with only the entries added or removed. The zero value
// and nil are empty lists; nil trusts nobody. Not safe for concurrent
// modification.
type AllowedSigners struct {
	lines []allowedLine
}

type allowedLine struct {
	raw   string         // the line as written (without newline)
	entry *AllowedSigner // nil for blank and comment lines
}

// AllowedSignersError reports a line of an allowed_signers file that cannot
// be parsed.
type AllowedSignersError struct {
	Line int
	Rule string
}

func (e *AllowedSignersError) Error() string {
	return fmt.Sprintf("allowed_signers: line %d: %s", e.Line, e.Rule)
}

// ParseAllowedSigners parses an OpenSSH allowed_signers file (format in
// AllowedSigner). Blank lines and lines starting with '#' are kept as
// comments. Any other line that cannot be parsed, that has an option
// other than cert-authority, namespaces, valid-after and valid-before, or
// that repeats namespaces, valid-after or valid-before (ssh-keygen's
// "multiple clauses" error), is an error (*AllowedSignersError) naming the
// line: a trust file with mistakes
// should be fixed, not half-used. Input above MaxAllowedSignersSize is an
// error.
func ParseAllowedSigners(r io.Reader) (*AllowedSigners, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxAllowedSignersSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAllowedSignersSize {
		return nil, fmt.Errorf("allowed_signers: larger than %d bytes", MaxAllowedSignersSize)
	}
	a := &AllowedSigners{}
	text := strings.TrimSuffix(string(data), "\n")
	if text == "" {
		return a, nil
	}
	for i, raw := range strings.Split(text, "\n") {
		raw = strings.TrimSuffix(raw, "\r")
		e, err := parseAllowedSigner(raw, i+1)
		if err != nil {
			return nil, err
		}
		a.lines = append(a.lines, allowedLine{raw: raw, entry: e})
	}
	return a, nil
}

// LoadAllowedSigners parses the allowed_signers file at path. A missing
// file is an error matching fs.ErrNotExist (callers may treat it as empty).
func LoadAllowedSigners(path string) (*AllowedSigners, error) {
	fh, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	a, err := ParseAllowedSigners(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// LoadTrust is the one trust policy for an allowed_signers file that may
// not exist yet (the default one, or the one a new key is added to): it
// loads path like LoadAllowedSigners, except that a missing file is an
// empty list, which trusts nobody. Any other failure (a damaged file, a
// folder, no permission) is returned as it is: it is never read as "trust
// nobody" silently, nor as "trust everybody".
func LoadTrust(path string) (*AllowedSigners, error) {
	a, err := LoadAllowedSigners(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &AllowedSigners{}, nil
	}
	return a, err
}

// TrustKey adds key under principal (AllowedSigners.Add: trimmed of
// spaces, its rules) to the allowed_signers file at path, loaded by the
// one trust policy (LoadTrust: a missing file starts empty) and saved
// atomically: how keygen --trust, the curator's "trust my own key" and
// the viewer's trust manager add a key. Adding a key already trusted under
// the same principal changes nothing.
func TrustKey(path, principal string, key ssh.PublicKey) error {
	if path == "" {
		return errors.New("no allowed_signers file named")
	}
	a, err := LoadTrust(path)
	if err != nil {
		return err
	}
	if err := a.Add(strings.TrimSpace(principal), key); err != nil {
		return err
	}
	return a.Save(path)
}

// DefaultAllowedSignersPath returns os.UserConfigDir()/bernstein/allowed_signers,
// the analyst's trust list used when none is named.
func DefaultAllowedSignersPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user configuration directory: %w", err)
	}
	return filepath.Join(dir, "bernstein", "allowed_signers"), nil
}

func parseAllowedSigner(raw string, line int) (*AllowedSigner, error) {
	bad := func(format string, args ...any) error {
		return &AllowedSignersError{Line: line, Rule: fmt.Sprintf(format, args...)}
	}
	s := strings.TrimLeft(raw, " \t")
	if s == "" || s[0] == '#' {
		return nil, nil
	}
	var principals, rest string
	if s[0] == '"' {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return nil, bad("unterminated quoted principals")
		}
		principals, rest = s[1:end+1], s[end+2:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return nil, bad("expected a space after the quoted principals")
		}
	} else {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return nil, bad("expected principals, options and a key; found only %q", s)
		}
		principals, rest = s[:i], s[i:]
	}
	if principals == "" {
		return nil, bad("empty principals")
	}
	rest = strings.TrimLeft(rest, " \t")
	key, comment, options, _, err := ssh.ParseAuthorizedKey([]byte(rest))
	if err != nil {
		return nil, bad("cannot parse the key: %v", err)
	}
	e := &AllowedSigner{Principals: principals, Options: options, Key: key,
		Fingerprint: ssh.FingerprintSHA256(key), Comment: comment, Line: line}
	seen := make(map[string]bool, len(options))
	for _, opt := range options {
		name, val, hasVal := strings.Cut(opt, "=")
		val = strings.TrimSuffix(strings.TrimPrefix(val, `"`), `"`)
		lower := strings.ToLower(name)
		if seen[lower] && lower != "cert-authority" {
			// As ssh-keygen (sshsigopt_parse): a repeated clause is an
			// error, not "last one wins" (a later valid-before would
			// otherwise extend an expired key). A repeated flag is harmless.
			return nil, bad("multiple %q clauses", lower)
		}
		seen[lower] = true
		switch lower {
		case "cert-authority":
			if hasVal {
				return nil, bad("option cert-authority takes no value")
			}
			e.CertAuthority = true
		case "namespaces":
			if val == "" {
				return nil, bad("option namespaces needs a value")
			}
			e.Namespaces = strings.Split(val, ",")
		case "valid-after", "valid-before":
			t, err := parseSignerTime(val)
			if err != nil {
				return nil, bad("option %s: %v", name, err)
			}
			if strings.EqualFold(name, "valid-after") {
				e.ValidAfter = t
			} else {
				e.ValidBefore = t
			}
		default:
			return nil, bad("unsupported option %q (known: cert-authority, namespaces, valid-after, valid-before)", name)
		}
	}
	return e, nil
}

// parseSignerTime parses an allowed_signers timestamp, YYYYMMDD[Z] or
// YYYYMMDDHHMM[SS][Z]; without Z it is local time, as in OpenSSH.
func parseSignerTime(s string) (time.Time, error) {
	loc := time.Local
	v := s
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		loc, v = time.UTC, v[:len(v)-1]
	}
	var layout string
	switch len(v) {
	case 8:
		layout = "20060102"
	case 12:
		layout = "200601021504"
	case 14:
		layout = "20060102150405"
	default:
		return time.Time{}, fmt.Errorf("timestamp %q must be YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]", s)
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: %v", s, err)
	}
	return t, nil
}

// Entries returns copies of the entries in file order.
func (a *AllowedSigners) Entries() []AllowedSigner {
	if a == nil {
		return nil
	}
	var out []AllowedSigner
	for _, l := range a.lines {
		if l.entry != nil {
			e := *l.entry
			e.Options = append([]string(nil), e.Options...)
			e.Namespaces = append([]string(nil), e.Namespaces...)
			if l.entry.Namespaces == nil {
				e.Namespaces = nil
			}
			out = append(out, e)
		}
	}
	return out
}

// Match reports whether key may sign in namespace at time now according to
// the entries: some entry holds exactly this key, is not a cert-authority,
// admits the namespace (no namespaces option, or its pattern list matches)
// and is valid at now. It returns the first such entry's principals; note
// explains the outcome in one sentence (e.g. why a listed key does not
// match). A nil receiver trusts nobody.
func (a *AllowedSigners) Match(key ssh.PublicKey, namespace string, now time.Time) (principal, note string, ok bool) {
	if a == nil || key == nil {
		return "", "no allowed signers given", false
	}
	want := key.Marshal()
	var why []string
	for _, l := range a.lines {
		e := l.entry
		if e == nil || !bytes.Equal(e.Key.Marshal(), want) {
			continue
		}
		switch {
		case e.CertAuthority:
			why = append(why, fmt.Sprintf("line %d lists it as a cert-authority only", e.Line))
		case e.Namespaces != nil && !matchPatternList(namespace, e.Namespaces):
			why = append(why, fmt.Sprintf("line %d (%s) does not allow namespace %q", e.Line, e.Principals, namespace))
		case !e.ValidAfter.IsZero() && now.Before(e.ValidAfter):
			why = append(why, fmt.Sprintf("line %d (%s) is valid only from %s", e.Line, e.Principals, e.ValidAfter.Format(time.RFC3339)))
		case !e.ValidBefore.IsZero() && now.After(e.ValidBefore):
			why = append(why, fmt.Sprintf("line %d (%s) expired at %s", e.Line, e.Principals, e.ValidBefore.Format(time.RFC3339)))
		default:
			return e.Principals, fmt.Sprintf("signed by %s (allowed_signers line %d)", e.Principals, e.Line), true
		}
	}
	if len(why) == 0 {
		return "", "the signing key is not in the allowed signers", false
	}
	return "", "the signing key is listed but not allowed: " + strings.Join(why, "; "), false
}

// Add appends an entry `principal namespaces="bernstein-synopsis" <key>`
// trusting key for synopsis files. The principal (usually an e-mail
// address) must be non-empty printable text without spaces, quotes, commas
// or the pattern characters * ? !, so that it matches only itself. Adding
// a key already listed under the same principal does nothing.
func (a *AllowedSigners) Add(principal string, key ssh.PublicKey) error {
	line, err := AllowedSignersLine(principal, key)
	if err != nil {
		return err
	}
	for _, e := range a.Entries() {
		if e.Principals == principal && bytes.Equal(e.Key.Marshal(), key.Marshal()) &&
			(e.Namespaces == nil || matchPatternList(Namespace, e.Namespaces)) && !e.CertAuthority {
			return nil
		}
	}
	e, err := parseAllowedSigner(line, 0)
	if err != nil {
		return err // cannot happen: AllowedSignersLine output parses
	}
	a.lines = append(a.lines, allowedLine{raw: line, entry: e})
	return nil
}

// Remove deletes every entry whose key has the given fingerprint
// ("SHA256:…") and returns how many it removed.
func (a *AllowedSigners) Remove(fingerprint string) int {
	if a == nil {
		return 0
	}
	n := 0
	kept := a.lines[:0]
	for _, l := range a.lines {
		if l.entry != nil && l.entry.Fingerprint == fingerprint {
			n++
			continue
		}
		kept = append(kept, l)
	}
	a.lines = kept
	return n
}

// WriteTo writes the file: every line as parsed or added, each ending in a
// newline. It implements io.WriterTo.
func (a *AllowedSigners) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	for _, l := range a.lines {
		buf.WriteString(l.raw)
		buf.WriteByte('\n')
	}
	return buf.WriteTo(w)
}

// Save writes the file to path atomically (fileio.WriteAtomic, mode 0644,
// replacing any old file), creating the parent directory (0700) if needed.
func (a *AllowedSigners) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := a.WriteTo(&buf); err != nil {
		return err
	}
	return fileio.WriteAtomic(path, buf.Bytes(), 0o644, true)
}

// AllowedSignersLine returns the allowed_signers line that trusts key for
// synopsis files under principal, without a newline:
//
//	alice@example.org namespaces="bernstein-synopsis" ssh-ed25519 AAAA…
//
// Rules for principal as in Add.
func AllowedSignersLine(principal string, key ssh.PublicKey) (string, error) {
	if err := checkPrincipal(principal); err != nil {
		return "", err
	}
	if key == nil {
		return "", errors.New("allowed_signers: no key given")
	}
	pub := strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(key)), "\n")
	return fmt.Sprintf("%s namespaces=%q %s", principal, Namespace, pub), nil
}

// checkPrincipal enforces the principal rules of Add.
func checkPrincipal(p string) error {
	if p == "" || len(p) > 256 {
		return fmt.Errorf("principal %q must be 1 to 256 characters", p)
	}
	if p[0] == '#' {
		return fmt.Errorf("principal %q must not start with '#'", p)
	}
	for _, r := range p {
		if r <= ' ' || r == 0x7f || strings.ContainsRune("\",*?!", r) {
			return fmt.Errorf("principal %q must not contain spaces, control characters, quotes, commas or the pattern characters '*', '?', '!'", p)
		}
	}
	return nil
}

// matchPatternList implements OpenSSH's match_pattern_list: s matches if
// some pattern matches and no negated pattern (!p) does; patterns use * and
// ? wildcards.
func matchPatternList(s string, patterns []string) bool {
	found := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		if neg {
			p = p[1:]
		}
		if matchPattern(s, p) {
			if neg {
				return false
			}
			found = true
		}
	}
	return found
}

// matchPattern matches s against a glob with * (any run) and ? (any one
// byte), as OpenSSH's match_pattern, in O(len(s)·len(p)) time (greedy
// backtracking to the last star).
func matchPattern(s, p string) bool {
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			si++
			pi++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
