package release

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestReleaseWithoutHardLinks (issue 14 item 5): on a file system whose
// link(2) returns EPERM a release succeeds through the exclusive-create
// fallback, and ε is charged exactly once.
func TestReleaseWithoutHardLinks(t *testing.T) {
	_, p := prepareKDE(t)
	e := newReleaseEnv(t)
	f := fsops.InstallNoLinks(t, syscall.EPERM)
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatalf("release on a file system without hard links: %v", err)
	}
	if !slices.Contains(f.Trace, "link") || !slices.Contains(f.Trace, "open") {
		t.Errorf("link and fallback not exercised: trace %v", f.Trace)
	}
	if n := len(e.ledger.Entries(preparedKey(t, p))); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != p.Params.Epsilon || res.Total != p.Params.Epsilon {
		t.Errorf("spent %v (result total %v), want %v once", spent, res.Total, p.Params.Epsilon)
	}
	if _, err := synopsis.Open(e.opt.Out, e.trusted(t)); err != nil {
		t.Errorf("published synopsis: %v", err)
	}
	fsops.AssertNoTemp(t, e.dir)
}

// TestReleaseWritePathBrokenChargesNothing (issue 14 item 5): when the
// output's directory cannot take the write at all — no hard links and the
// exclusive create refused, or a link that fails with an I/O error — the
// release is refused before the ledger is touched.
func TestReleaseWritePathBrokenChargesNothing(t *testing.T) {
	_, p := prepareKDE(t)
	cases := []struct {
		name string
		fs   fsops.Faults
	}{
		{"no links, no exclusive create", fsops.Faults{LinkErr: syscall.EPERM, ExclErr: syscall.EACCES}},
		{"link I/O error", fsops.Faults{LinkErr: syscall.EIO}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			f := tc.fs
			f.FailAt = -1
			fsops.Install(t, &f)
			_, err := p.Release(context.Background(), e.opt)
			if err == nil {
				t.Fatal("release succeeded")
			}
			if n := len(e.ledger.Entries("")); n != 0 {
				t.Errorf("%d ledger entries after a refused release (%v)", n, err)
			}
			if _, serr := os.Stat(e.opt.Out); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("output exists: %v", serr)
			}
			if ents, _ := os.ReadDir(e.dir); len(ents) != 0 {
				var names []string
				for _, x := range ents {
					if !strings.HasPrefix(x.Name(), "ledger.jsonl") {
						names = append(names, x.Name())
					}
				}
				if len(names) > 0 {
					t.Errorf("left behind: %v", names)
				}
			}
		})
	}
}

// TestReleaseErrorLeavesNoTemp (issue 14 item 8): whichever step of the
// synopsis write fails after the spend, the release reports it, keeps the
// spend and leaves neither the synopsis nor a temporary file behind
// (except when the failing step is the removal of that file itself).
func TestReleaseErrorLeavesNoTemp(t *testing.T) {
	_, p := prepareKDE(t)
	for failAt := 1; ; failAt++ {
		f := &fsops.Faults{FailAt: failAt}
		e := newReleaseEnv(t)
		restore := swapWriter(func(path string, file *synopsis.File, s ssh.Signer, overwrite bool) error {
			fsops.Install(t, f)
			return synopsis.Write(path, file, s, overwrite)
		})
		_, err := p.Release(context.Background(), e.opt)
		restore()
		fsops.Current = fsops.OS{}
		if !f.Hit {
			if err != nil {
				t.Fatal(err)
			}
			if failAt < 4 {
				t.Fatalf("the write took %d steps: the seam is not used", failAt-1)
			}
			break
		}
		if err == nil {
			if f.Faulted() == "sync-dir" || f.Faulted() == "remove" {
				continue // published; reported or harmless
			}
			t.Fatalf("fault at %s not reported", f.Faulted())
		}
		if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != p.Params.Epsilon {
			t.Errorf("step %s: spent %v, want %v", f.Faulted(), spent, p.Params.Epsilon)
		}
		if f.Faulted() != "remove" {
			fsops.AssertNoTemp(t, e.dir)
		}
	}
}

// prepareKDE prepares the KDE release of a 50-row test dataset.
func prepareKDE(t *testing.T) (*dataset.Table, *Prepared) {
	t.Helper()
	ds := releaseTestDataset(t, 50)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds, p
}
