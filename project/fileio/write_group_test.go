package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// TestWriteKeyFilesFaults: whichever step fails, WriteGroup either
// publishes the whole new pair or leaves the old private key unchanged and
// the public files as they were; after a crash the private key is complete
// (old or new). With and without hard links, overwriting or not.
func TestWriteKeyFilesFaults(t *testing.T) {
	for _, fs := range []fsops.Faults{{}, {LinkErr: syscall.EPERM}} {
		for _, overwrite := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/overwrite=%v", fmtBool("nolink", fs.LinkErr != nil), overwrite), func(t *testing.T) {
				fsops.ForEachWith(t, fs, func(t *testing.T, dir string, f *fsops.Faults) {
					base := filepath.Join(dir, "k")
					names := []string{base, base + ".pub", base + ".allowed_signers"}
					old := map[string]string{}
					if overwrite {
						for _, n := range names {
							old[n] = "old " + filepath.Base(n)
							if err := os.WriteFile(n, []byte(old[n]), 0o600); err != nil {
								t.Fatal(err)
							}
						}
					}
					files := make([]Pending, len(names))
					for i, n := range names {
						files[i] = Pending{Path: n, Data: []byte("new " + filepath.Base(n)), Mode: 0o600}
					}
					fsops.Install(t, f)
					err := WriteGroup(files, overwrite)
					fsops.Current = fsops.OS{}
					if f.Hit && err == nil {
						t.Errorf("fault at %s not reported", f.Faulted())
					}
					read := func(n string) string {
						b, err := os.ReadFile(n)
						if errors.Is(err, os.ErrNotExist) {
							return ""
						}
						if err != nil {
							t.Fatal(err)
						}
						return string(b)
					}
					priv := read(base)
					switch {
					case err == nil:
						for i, n := range names {
							if got := read(n); got != string(files[i].Data) {
								t.Errorf("%s = %q after success", filepath.Base(n), got)
							}
						}
					case f.Crash:
						if priv != old[base] && priv != string(files[0].Data) && !(priv == "" && fs.LinkErr != nil && !overwrite) {
							t.Errorf("private key %q after a crash", priv)
						}
					default:
						if f.Faulted() == "sync-dir" || f.Faulted() == "remove" {
							return // published; the error reports the rest
						}
						for _, n := range names {
							if got := read(n); got != old[n] {
								t.Errorf("%s = %q after a failed write, want %q", filepath.Base(n), got, old[n])
							}
						}
						fsops.AssertNoTemp(t, dir)
					}
				})
			})
		}
	}
}
