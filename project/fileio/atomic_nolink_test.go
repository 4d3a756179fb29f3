package fileio

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// TestWriteFileAtomicWithoutHardLinks: where link(2) fails with EPERM,
// ENOTSUP, EOPNOTSUPP or ENOSYS, a no-clobber write still publishes the
// file (exclusive create of the final name, then rename over it), still
// refuses to replace an existing file, and leaves no temporary file.
func TestWriteFileAtomicWithoutHardLinks(t *testing.T) {
	for _, errno := range []error{syscall.EPERM, syscall.ENOTSUP, syscall.EOPNOTSUPP, syscall.ENOSYS} {
		t.Run(errno.Error(), func(t *testing.T) {
			f := fsops.InstallNoLinks(t, errno)
			dir := t.TempDir()
			path := filepath.Join(dir, "a.synopsis")
			if err := WriteAtomic(path, []byte("new"), 0o644, false); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); string(got) != "new" {
				t.Errorf("content %q", got)
			}
			if !slices.Contains(f.Trace, "open") || !slices.Contains(f.Trace, "rename") {
				t.Errorf("fallback not taken: trace %v", f.Trace)
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", st.Mode().Perm())
			}
			err := WriteAtomic(path, []byte("other"), 0o644, false)
			if !errors.Is(err, ErrExists) {
				t.Errorf("second write: err = %v, want ErrExists", err)
			}
			if got, _ := os.ReadFile(path); string(got) != "new" {
				t.Errorf("existing file changed to %q", got)
			}
			fsops.AssertNoTemp(t, dir)
		})
	}
}

// TestWriteFileAtomicLinkIOError: a link failure that does not mean "no
// hard links" (here EIO) is an error, not a reason to fall back.
func TestWriteFileAtomicLinkIOError(t *testing.T) {
	f := fsops.InstallNoLinks(t, syscall.EIO)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.synopsis")
	err := WriteAtomic(path, []byte("new"), 0o644, false)
	if !errors.Is(err, syscall.EIO) {
		t.Fatalf("err = %v, want EIO", err)
	}
	if slices.Contains(f.Trace, "rename") {
		t.Errorf("fell back after EIO: trace %v", f.Trace)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("path exists after a failed write: %v", err)
	}
	fsops.AssertNoTemp(t, dir)
}

// TestProbeWritePathFaults: whatever step of the probe fails, the probe
// reports it and (unless the process "died") leaves nothing behind, on a
// file system with and without hard links.
func TestProbeWritePathFaults(t *testing.T) {
	for _, fs := range []fsops.Faults{{}, {LinkErr: syscall.EPERM}} {
		for _, overwrite := range []bool{false, true} {
			t.Run(fmtBool("nolink", fs.LinkErr != nil)+"/"+fmtBool("overwrite", overwrite), func(t *testing.T) {
				fsops.ForEachWith(t, fs, func(t *testing.T, dir string, f *fsops.Faults) {
					fsops.Install(t, f)
					path := filepath.Join(dir, "out.synopsis")
					err := ProbeWritePath(path, overwrite)
					if f.Hit && err == nil && f.Faulted() != "remove" {
						t.Errorf("fault at %s not reported", f.Faulted())
					}
					if !f.Hit && err != nil {
						t.Errorf("probe failed without a fault: %v", err)
					}
					if !f.Crash && f.Faulted() != "remove" {
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

	if err := WriteAtomic(filepath.Join(dir, "out.csv"), []byte("a,b\n"), 0o644, false); err != nil {
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
