package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

func TestWriteFileAtomicFaults(t *testing.T) {
	testWriteFileAtomicFaults(t, fsops.Faults{})
}

// TestWriteFileAtomicFaultsWithoutHardLinks: the same on a file system
// where link(2) returns EPERM (FAT, exFAT, SMB), where no-clobber writes
// take the exclusive-create fallback.
func TestWriteFileAtomicFaultsWithoutHardLinks(t *testing.T) {
	testWriteFileAtomicFaults(t, fsops.Faults{LinkErr: syscall.EPERM})
}

func testWriteFileAtomicFaults(t *testing.T, fs fsops.Faults) {
	for _, overwrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("overwrite=%v", overwrite), func(t *testing.T) {
			fsops.ForEachWith(t, fs, func(t *testing.T, dir string, f *fsops.Faults) {
				path := filepath.Join(dir, "out.json")
				old := ""
				if overwrite {
					old = strings.Repeat("old ", 1000)
					if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				fsops.Install(t, f)
				data := strings.Repeat("new ", 1000)
				err := WriteAtomic(path, []byte(data), 0o644, overwrite)
				if f.Hit && err == nil {
					t.Errorf("fault at %s not reported", f.Faulted())
				}
				if err != nil && !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the path", err)
				}
				got, rerr := os.ReadFile(path)
				switch {
				case errors.Is(rerr, os.ErrNotExist) && !overwrite && err != nil:
					// absent before, absent after: fine
				case rerr != nil:
					t.Fatal(rerr)
				case string(got) == data:
				case overwrite && string(got) == old && err != nil:
				case len(got) == 0 && f.Crash && fs.LinkErr != nil && !overwrite:
					// the fallback's empty reservation, left by a crash
				default:
					t.Errorf("torn file: %d bytes, err = %v", len(got), err)
				}
				// Without a crash, only a failure to remove the temporary
				// file itself may leave it behind (and is reported).
				if !f.Crash && f.Faulted() != "remove" {
					fsops.AssertNoTemp(t, dir)
				}
			})
		})
	}
}
