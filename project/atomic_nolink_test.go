package project

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// noLinkFS is a file system without hard links, as FAT, exFAT and SMB
// shares are: link(2) returns err. No step fails otherwise.
func noLinkFS(t *testing.T, err error) *faultOps {
	f := &faultOps{failAt: -1, linkErr: err}
	installFaults(t, f)
	return f
}

// TestWriteFileAtomicWithoutHardLinks: where link(2) fails with EPERM,
// ENOTSUP, EOPNOTSUPP or ENOSYS, a no-clobber write still publishes the
// file (exclusive create of the final name, then rename over it), still
// refuses to replace an existing file, and leaves no temporary file.
func TestWriteFileAtomicWithoutHardLinks(t *testing.T) {
	for _, errno := range []error{syscall.EPERM, syscall.ENOTSUP, syscall.EOPNOTSUPP, syscall.ENOSYS} {
		t.Run(errno.Error(), func(t *testing.T) {
			f := noLinkFS(t, errno)
			dir := t.TempDir()
			path := filepath.Join(dir, "a.synopsis")
			if err := WriteFileAtomic(path, []byte("new"), 0o644, false); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != "new" {
				t.Errorf("content %q", got)
			}
			if !slices.Contains(f.trace, "open") || !slices.Contains(f.trace, "rename") {
				t.Errorf("fallback not taken: trace %v", f.trace)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", st.Mode().Perm())
			}
			err := WriteFileAtomic(path, []byte("other"), 0o644, false)
			if !errors.Is(err, ErrExists) {
				t.Errorf("second write: err = %v, want ErrExists", err)
			}
			if got, _ := os.ReadFile(path); string(got) != "new" {
				t.Errorf("existing file changed to %q", got)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestWriteFileAtomicLinkIOError: a link failure that does not mean "no
// hard links" (here EIO) is an error, not a reason to fall back.
func TestWriteFileAtomicLinkIOError(t *testing.T) {
	f := noLinkFS(t, syscall.EIO)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.synopsis")
	err := WriteFileAtomic(path, []byte("new"), 0o644, false)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("err = %v, want EIO", err)
	}
	if slices.Contains(f.trace, "rename") {
		t.Errorf("fell back after EIO: trace %v", f.trace)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("path exists after a failed write: %v", err)
	}
	assertNoTemp(t, dir)
}

// TestProbeWritePathFaults: whatever step of the probe fails, the probe
// reports it and (unless the process "died") leaves nothing behind, on a
// file system with and without hard links.
func TestProbeWritePathFaults(t *testing.T) {
	for _, fs := range []faultOps{{}, {linkErr: syscall.EPERM}} {
		for _, overwrite := range []bool{false, true} {
			t.Run(fmtBool("nolink", fs.linkErr != nil)+"/"+fmtBool("overwrite", overwrite), func(t *testing.T) {
				forEachFaultWith(t, fs, func(t *testing.T, dir string, f *faultOps) {
					installFaults(t, f)
					path := filepath.Join(dir, "out.synopsis")
					err := probeWritePath(path, overwrite)
					if f.hit && err == nil && f.faulted() != "remove" {
						t.Errorf("fault at %s not reported", f.faulted())
					}
					if !f.hit && err != nil {
						t.Errorf("probe failed without a fault: %v", err)
					}
					if !f.crash && f.faulted() != "remove" {
						if ents, _ := os.ReadDir(dir); len(ents) != 0 {
							t.Errorf("probe left %v", ents)
						}
					}
				})
			})
		}
	}
}

func fmtBool(name string, v bool) string {
	if v {
		return name
	}
	return "no-" + name
}

// TestReleaseWithoutHardLinks (issue 14 item 5): on a file system whose
// link(2) returns EPERM a release succeeds through the exclusive-create
// fallback, and ε is charged exactly once.
func TestReleaseWithoutHardLinks(t *testing.T) {
	_, p := prepareKDE(t)
	e := newReleaseEnv(t)
	f := noLinkFS(t, syscall.EPERM)
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatalf("release on a file system without hard links: %v", err)
	}
	if !slices.Contains(f.trace, "link") || !slices.Contains(f.trace, "open") {
		t.Errorf("link and fallback not exercised: trace %v", f.trace)
	}
	if n := len(e.ledger.Entries(preparedKey(t, p))); n != 1 {
		t.Errorf("%d ledger entries, want 1", n)
	}
	if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != p.Params.Epsilon || res.Total != p.Params.Epsilon {
		t.Errorf("spent %v (result total %v), want %v once", spent, res.Total, p.Params.Epsilon)
	}
	if _, err := OpenSynopsis(e.opt.Out, e.trusted(t)); err != nil {
		t.Errorf("published synopsis: %v", err)
	}
	assertNoTemp(t, e.dir)
}

// TestReleaseWritePathBrokenChargesNothing (issue 14 item 5): when the
// output's directory cannot take the write at all — no hard links and the
// exclusive create refused, or a link that fails with an I/O error — the
// release is refused before the ledger is touched.
func TestReleaseWritePathBrokenChargesNothing(t *testing.T) {
	_, p := prepareKDE(t)
	cases := []struct {
		name string
		fs   faultOps
	}{
		{"no links, no exclusive create", faultOps{linkErr: syscall.EPERM, exclErr: syscall.EACCES}},
		{"link I/O error", faultOps{linkErr: syscall.EIO}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			f := tc.fs
			f.failAt = -1
			installFaults(t, &f)
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

// TestWriteFileAtomicClearsStaleTemps (issue 14 item 8): a write clears the
// stale temporary files it owns in its directory — its own name's and any
// .synopsis/.bernstein file's, older than an hour — and leaves everything
// else: fresh temporary files (a write in progress), other programs' files,
// folders and symlinks.
func TestWriteFileAtomicClearsStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	mk := func(name string, stale bool) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	gone := []string{
		mk(".out.csv.tmp-123456", true),
		mk(".other.synopsis.tmp-42", true),
		mk(".proj.bernstein.tmp-7", true),
		mk(".out.csv.tmp-99.probe", true),
		mk(".bernstein-probe-31337", true),
	}
	kept := []string{
		mk(".out.csv.tmp-555", false),      // a write in progress
		mk(".x.synopsis.tmp-8", false),     // idem
		mk(".notes.txt.tmp-1", true),       // not ours
		mk(".out.csv.tmp-12a", true),       // not our pattern
		mk("out.csv.tmp-1", true),          // no leading dot
		mk(".out.csv.tmp-", true),          // no digits
		mk(".synopsis.tmp-5.probe2", true), // not our pattern
		mk(".bernstein-probe-9", false),    // a probe in progress
	}
	sub := filepath.Join(dir, ".y.synopsis.tmp-3")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(sub, old, old); err != nil {
		t.Fatal(err)
	}
	target := kept[4]
	link := filepath.Join(dir, ".z.synopsis.tmp-4")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, sub, link)

	if err := WriteFileAtomic(filepath.Join(dir, "out.csv"), []byte("a,b\n"), 0o644, false); err != nil {
		t.Fatal(err)
	}
	for _, p := range gone {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s not removed (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

// TestReleaseErrorLeavesNoTemp (issue 14 item 8): whichever step of the
// synopsis write fails after the spend, the release reports it, keeps the
// spend and leaves neither the synopsis nor a temporary file behind
// (except when the failing step is the removal of that file itself).
func TestReleaseErrorLeavesNoTemp(t *testing.T) {
	_, p := prepareKDE(t)
	for failAt := 1; ; failAt++ {
		f := &faultOps{failAt: failAt}
		e := newReleaseEnv(t)
		restore := swapWriter(func(path string, file *SynopsisFile, s ssh.Signer, overwrite bool) error {
			installFaults(t, f)
			return WriteSynopsis(path, file, s, overwrite)
		})
		_, err := p.Release(context.Background(), e.opt)
		restore()
		ops = osOps{}
		if !f.hit {
			if err != nil {
				t.Fatal(err)
			}
			if failAt < 4 {
				t.Fatalf("the write took %d steps: the seam is not used", failAt-1)
			}
			break
		}
		if err == nil {
			if f.faulted() == "sync-dir" || f.faulted() == "remove" {
				continue // published; reported or harmless
			}
			t.Fatalf("fault at %s not reported", f.faulted())
		}
		if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != p.Params.Epsilon {
			t.Errorf("step %s: spent %v, want %v", f.faulted(), spent, p.Params.Epsilon)
		}
		if f.faulted() != "remove" {
			assertNoTemp(t, e.dir)
		}
	}
}

// prepareKDE prepares the KDE release of a 50-row test dataset.
func prepareKDE(t *testing.T) (*Dataset, *Prepared) {
	t.Helper()
	ds := releaseTestDataset(t, 50)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds, p
}
