package viewer

import (
	"github.com/bernsteinrelease/bernstein/project/release"
)

// protectedFiles are the files no export of the viewer may be: the
// analyst's allowed_signers file and the defaults
// (release.DefaultProtected). The open synopsis is protected by
// viewerSaveTarget itself.
func (v *viewer) protectedFiles() []release.ProtectedFile {
	return append(release.AllowedSignersProtected(v.cfg.trustPath), release.DefaultProtected()...)
}
