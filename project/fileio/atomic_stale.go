package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// Stale temporary files.
//
// WriteAtomic removes its temporary file on every error path, but a
// process that is killed (or loses power) between creating and publishing it
// leaves ".NAME.tmp-DIGITS" behind (and a probe may leave
// ".NAME.tmp-DIGITS.probe"; earlier versions' probes were
// ".bernstein-probe-DIGITS"). The next write in that directory clears the
// stale ones it owns: regular files (never symlinks or folders) whose name
// is exactly that pattern, whose NAME is the file being written or one of
// the app's own formats (.synopsis, .bernstein), and that were last modified
// more than staleTempAge ago — no write in progress takes that long between
// creating its temporary file and publishing it. Clearing is best effort and
// never fails the write.

// staleTempAge is the age after which an owned temporary file is stale.
const staleTempAge = time.Hour

// maxStaleScan bounds the directory entries looked at per write, so that a
// huge directory does not make every write slow.
const maxStaleScan = 10000

// ownedTempExts are the extensions of files only this app writes (the
// synopsis, project/synopsis.Ext, and the workspace, project.WorkspaceExt):
// their temporary files are ours whatever the name. This package sits below
// both, so it cannot name their constants; TestOwnedTempExtensions (project)
// pins this list to them.
var ownedTempExts = []string{".synopsis", ".bernstein"}

// OwnedTempExtensions returns the extensions whose stale temporary files
// every write clears (see above).
func OwnedTempExtensions() []string { return append([]string(nil), ownedTempExts...) }

// removeStaleTemps removes the stale temporary files in dir that a write of
// dir/base owns (see above).
func removeStaleTemps(dir, base string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	defer d.Close()
	cutoff := time.Now().Add(-staleTempAge)
	for seen := 0; seen < maxStaleScan; {
		ents, err := d.ReadDir(256)
		for _, e := range ents {
			if !e.Type().IsRegular() || !ownedTemp(e.Name(), base) {
				continue
			}
			info, ierr := e.Info()
			if ierr != nil || !info.ModTime().Before(cutoff) {
				continue
			}
			_ = fsops.Current.Remove(filepath.Join(dir, e.Name()))
		}
		seen += len(ents)
		if err != nil || len(ents) == 0 {
			return
		}
	}
}

// ownedTemp reports whether name is a temporary file of this package's
// writers (".NAME.tmp-DIGITS", optionally followed by ".probe") for NAME =
// base or a NAME with one of ownedTempExts, or an earlier version's probe.
func ownedTemp(name, base string) bool {
	if digits, ok := strings.CutPrefix(name, legacyProbePrefix); ok {
		return allDigits(digits)
	}
	rest, ok := strings.CutPrefix(name, ".")
	if !ok {
		return false
	}
	rest = strings.TrimSuffix(rest, probeSuffix)
	i := strings.LastIndex(rest, tempInfix)
	if i <= 0 {
		return false
	}
	target, digits := rest[:i], rest[i+len(tempInfix):]
	if !allDigits(digits) {
		return false
	}
	if target == base {
		return true
	}
	for _, ext := range ownedTempExts {
		if strings.EqualFold(filepath.Ext(target), ext) {
			return true
		}
	}
	return false
}

// legacyProbePrefix names the write probes of earlier versions
// (".bernstein-probe-DIGITS"); a killed release could leave one.
const legacyProbePrefix = ".bernstein-probe-"

func allDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
