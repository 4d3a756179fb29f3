package ui

import (
	"github.com/bernsteinrelease/bernstein/project/release"
)

// The app's save forms and the curator's synopsis file never name a file
// the app must not overwrite: the dataset, the privacy-budget ledger or its
// lock, a curator key (private, .pub, .allowed_signers) or an
// allowed_signers file, whether by name, symbolic link or hard link. The
// rule lives in release.CheckOutputPath; this file only says which files
// each window protects.

// saveTargetFunc checks a folder and a file name typed into a save form and
// returns the full path and whether a file exists there (showSaveForm).
type saveTargetFunc func(dir, name string) (string, bool, error)

// protectTarget wraps target so that it also refuses any path that
// resolves to one of protected() (release.CheckOutputPath).
func protectTarget(target saveTargetFunc, protected func() []release.ProtectedFile) saveTargetFunc {
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

// protectedFiles are the files no output of the curator may be: the loaded
// dataset, the ledger and its lock, the curator key and its companions, and
// the defaults (release.DefaultProtected).
func (c *curator) protectedFiles() []release.ProtectedFile {
	var out []release.ProtectedFile
	if c.state != nil {
		out = append(out, release.DatasetProtected(c.state.CSVPath)...)
	}
	out = append(out, release.LedgerProtected(c.opts.LedgerPath)...)
	out = append(out, release.KeyProtected(c.opts.KeyPath)...)
	return append(out, release.DefaultProtected()...)
}

// checkSynopsisOut is the release page's check of the synopsis file typed
// by the curator (also applied, authoritatively, by project's Release).
func (c *curator) checkSynopsisOut(path string) error {
	return release.CheckOutputPath(path, c.protectedFiles())
}

// protectedFiles are the files no export of the viewer may be: the
// analyst's allowed_signers file and the defaults
// (release.DefaultProtected). The open synopsis is protected by
// viewerSaveTarget itself.
func (v *viewer) protectedFiles() []release.ProtectedFile {
	return append(release.AllowedSignersProtected(v.cfg.trustPath), release.DefaultProtected()...)
}
