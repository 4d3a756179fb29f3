package release

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// Protected paths: files no output of the app may ever be.
//
// An output path (release --out, keygen --out, eval --out, figure and
// demo-data files, the GUI's save forms) must not name the private dataset,
// the privacy-budget ledger or its lock, a curator key (private, .pub or
// .allowed_signers), an allowed_signers file or the passphrase file — not by its own name, not
// through a symbolic link (to the file or to a folder on its way), and not
// through a hard link (same device and inode, os.SameFile). Writing there
// would destroy the budget record, the data or the key. CheckOutputPath is
// the one home of this rule; the CLI and the UI call it with the files that
// matter to them, DefaultProtected included.

// ErrProtectedPath matches (errors.Is) a *ProtectedPathError.
var ErrProtectedPath = errors.New("output path names a protected file")

// ProtectedFile is a file that no output may be.
type ProtectedFile struct {
	// Path is the file (it need not exist yet).
	Path string
	// Role says what it is, e.g. "the privacy-budget ledger".
	Role string
}

// ProtectedPathError is an output path that resolves to a protected file.
type ProtectedPathError struct {
	// Path is the output path as given.
	Path string
	// Protected is the file it resolves to.
	Protected ProtectedFile
}

func (e *ProtectedPathError) Error() string {
	how := ""
	if filepath.Clean(e.Path) != filepath.Clean(e.Protected.Path) {
		how = " " + e.Protected.Path + ","
	}
	return fmt.Sprintf("%s: refusing to write there: it is%s %s; choose another output file", e.Path, how, e.Protected.Role)
}

// Is makes errors.Is(err, ErrProtectedPath) true.
func (e *ProtectedPathError) Is(target error) bool { return target == ErrProtectedPath }

// DatasetProtected protects the private dataset at path.
func DatasetProtected(path string) []ProtectedFile {
	if path == "" {
		return nil
	}
	return []ProtectedFile{{Path: path, Role: "the private dataset"}}
}

// LedgerProtected protects the ledger at path and its lock files: path +
// ".lock", and the lock beside the ledger's real path (symlinks resolved);
// the tip file beside the ledger's real path (ledger.TipPath); and the
// sketch store beside it, its lock and its key (sketch_store.go).
func LedgerProtected(path string) []ProtectedFile {
	if path == "" {
		return nil
	}
	out := []ProtectedFile{
		{Path: path, Role: "the privacy-budget ledger"},
		{Path: path + ".lock", Role: "the privacy-budget ledger's lock"},
		{Path: ledger.TipPath(path), Role: "the privacy-budget ledger's tip file"},
		{Path: ledger.SketchStorePath(path), Role: "the ledger's sketch store"},
		{Path: ledger.SketchKeyPath(path), Role: "the ledger's sketch key"},
	}
	if real := resolvePath(path); real != filepath.Clean(path) {
		out = append(out, ProtectedFile{Path: real + ".lock", Role: "the privacy-budget ledger's lock"})
	}
	return out
}

// KeyProtected protects a curator key: the private key at path, path.pub and
// path.allowed_signers.
func KeyProtected(path string) []ProtectedFile {
	if path == "" {
		return nil
	}
	return []ProtectedFile{
		{Path: path, Role: "a curator's private key"},
		{Path: path + keys.PublicKeySuffix, Role: "a curator's public key"},
		{Path: path + keys.AllowedSignersSuffix, Role: "a curator key's allowed_signers line"},
	}
}

// AllowedSignersProtected protects an allowed_signers file.
func AllowedSignersProtected(path string) []ProtectedFile {
	if path == "" {
		return nil
	}
	return []ProtectedFile{{Path: path, Role: "an allowed_signers file (the keys you trust)"}}
}

// PassphraseProtected protects the passphrase file at path (release and
// keygen --passphrase-file).
func PassphraseProtected(path string) []ProtectedFile {
	if path == "" {
		return nil
	}
	return []ProtectedFile{{Path: path, Role: "the passphrase file"}}
}

// DefaultProtected returns the files at their default places: the ledger
// (ledger.DefaultPath) and its lock, the curator key (keys.DefaultKeyPath) and its
// companions, and the allowed_signers file (keys.DefaultAllowedSignersPath). A
// default that cannot be determined (no user configuration directory) is
// left out.
func DefaultProtected() []ProtectedFile {
	var out []ProtectedFile
	if p, err := ledger.DefaultPath(); err == nil {
		out = append(out, LedgerProtected(p)...)
	}
	if p, err := keys.DefaultKeyPath(); err == nil {
		out = append(out, KeyProtected(p)...)
	}
	if p, err := keys.DefaultAllowedSignersPath(); err == nil {
		out = append(out, AllowedSignersProtected(p)...)
	}
	return out
}

// CheckOutputPath returns a *ProtectedPathError if out is, or resolves to,
// one of the protected files: the same path once made absolute with every
// symbolic link resolved (also a dangling one, and a link to a file not yet
// there), or — when both exist — the same file (os.SameFile: device and
// inode, so hard links too). Comparisons of names ignore case on Windows
// and macOS, whose usual file systems do. It only reads the file system.
func CheckOutputPath(out string, protected []ProtectedFile) error {
	if out == "" {
		return nil
	}
	real := resolvePath(out)
	st, statErr := os.Stat(out)
	for _, p := range protected {
		if p.Path == "" {
			continue
		}
		if samePathName(real, resolvePath(p.Path)) {
			return &ProtectedPathError{Path: out, Protected: p}
		}
		if statErr != nil {
			continue
		}
		if pst, err := os.Stat(p.Path); err == nil && os.SameFile(st, pst) {
			return &ProtectedPathError{Path: out, Protected: p}
		}
	}
	return nil
}

// SamePath reports whether a and b name the same file: the same resolved
// path (resolvePath) or, both existing, os.SameFile.
func SamePath(a, b string) bool {
	return CheckOutputPath(a, []ProtectedFile{{Path: b}}) != nil
}

// maxSymlinkHops bounds symbolic-link resolution (Linux's own limit is 40).
const maxSymlinkHops = 40

// resolvePath returns path made absolute and clean with every symbolic link
// resolved: the folders on its way (filepath.EvalSymlinks) and the last
// element too, even when the link's target does not exist yet. Whatever
// cannot be resolved (a missing folder, a loop) is kept as written.
func resolvePath(path string) string {
	p, err := filepath.Abs(path)
	if err != nil {
		p = filepath.Clean(path)
	}
	for range maxSymlinkHops {
		dir := filepath.Dir(p)
		if d, err := filepath.EvalSymlinks(dir); err == nil {
			dir = d
		}
		p = filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p
		}
		target, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = filepath.Clean(target)
	}
	return p
}

// samePathName compares two resolved paths as the platform's usual file
// systems do.
func samePathName(a, b string) bool {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
