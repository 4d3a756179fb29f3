package curator

import (
	"github.com/bernsteinrelease/bernstein/project/release"
)

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
