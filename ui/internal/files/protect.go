package files

import (
	"github.com/bernsteinrelease/bernstein/project/release"
)

// The app's save forms and the curator's synopsis file never name a file
// the app must not overwrite: the dataset, the privacy-budget ledger or its
// lock, a curator key (private, .pub, .allowed_signers) or an
// allowed_signers file, whether by name, symbolic link or hard link. The
// rule lives in release.CheckOutputPath; this file only says which files
// each window protects (ProtectTarget).

// SaveTargetFunc checks a folder and a file name typed into a save form and
// returns the full path and whether a file exists there (ShowSaveForm).
type SaveTargetFunc func(dir, name string) (string, bool, error)

// ProtectTarget wraps target so that it also refuses any path that
// resolves to one of protected() (release.CheckOutputPath).
func ProtectTarget(target SaveTargetFunc, protected func() []release.ProtectedFile) SaveTargetFunc {
	return func(dir, name string) (string, bool, error) {
		path, exists, err := target(dir, name)
		if err != nil {
			return "", false, err
		}
		if err := release.CheckOutputPath(path, protected()); err != nil {
			return "", false, err
		}
		return path, exists, nil
	}
}
