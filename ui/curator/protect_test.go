package curator

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
)

// TestCuratorRefusesProtectedOutputs (issue 14 item 6): the curator's
// synopsis file and project "Save as" refuse the dataset, the ledger (by
// name or symbolic link) and the key.
func TestCuratorRefusesProtectedOutputs(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	data := filepath.Join(f.dir, "data.csv")
	if err := os.WriteFile(data, []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(c.opts.LedgerPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.opts.LedgerPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(c.opts.LedgerPath, filepath.Join(f.dir, "l.bernstein")); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.state.CSVPath = data })
	rp := c.pages[stepRelease].(*releasePage)
	for _, out := range []string{data, c.opts.LedgerPath, c.opts.LedgerPath + ".lock", c.opts.KeyPath,
		c.opts.KeyPath + keys.PublicKeySuffix, filepath.Join(f.dir, "l.bernstein")} {
		var err error
		f.do(func() {
			rp.out.SetText(out)
			err = rp.out.Validate()
		})
		if !errors.Is(err, release.ErrProtectedPath) {
			t.Errorf("synopsis file %s: validation %v, want ErrProtectedPath", out, err)
		}
	}
	var err error
	f.do(func() {
		rp.out.SetText(filepath.Join(f.dir, "fine.synopsis"))
		err = rp.out.Validate()
	})
	if err != nil {
		t.Errorf("a fresh synopsis file refused: %v", err)
	}
	target := files.ProtectTarget(projectSaveTarget, c.protectedFiles)
	if _, _, err := target(f.dir, "l"); !errors.Is(err, release.ErrProtectedPath) {
		t.Errorf("project saved over a link to the ledger: %v", err)
	}
	if _, _, err := target(f.dir, "study"); err != nil {
		t.Errorf("project save refused: %v", err)
	}
}
