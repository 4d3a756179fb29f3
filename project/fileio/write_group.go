package fileio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project/internal/fsops"
)

// maxKeyBackup bounds the old public files kept in memory for a rollback
// (real ones are below 1 KiB).
const maxKeyBackup = 64 << 10

// WriteGroup writes the files of a key pair, files[0] being the private
// key, so that a failure never loses the old key:
//
//  1. every target must be absent or a regular file (a folder or a device
//     there is refused before anything is written), and absent unless
//     overwrite (*ExistsError);
//  2. every file is written completely under a temporary name in its
//     directory (write, mode, fsync, close);
//  3. only then are they published, the public files first and the private
//     key last: by rename(2) when overwrite (atomic, so each target holds
//     either its old or its new content), else no-clobber (publishNoClobber);
//  4. if publishing fails, the public files already published are put
//     back (their old content, kept in memory, or removed if they were new)
//     and the private key is not touched — the old one is still there,
//     unchanged. Temporary files are removed on every error path.
//
// A crash between the renames of step 3 can leave new public files next to
// the old private key; the private key itself is always complete, old or
// new.
func WriteGroup(files []Pending, overwrite bool) (err error) {
	type backup struct {
		existed bool
		data    []byte
		mode    os.FileMode
	}
	backups := make([]backup, len(files))
	for i, f := range files {
		st, err := os.Lstat(f.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return err
		case !st.Mode().IsRegular():
			return fmt.Errorf("%s: exists and is not a regular file; nothing was written, the old key is unchanged", f.Path)
		case !overwrite:
			return &ExistsError{Path: f.Path}
		}
		backups[i] = backup{existed: true, mode: st.Mode().Perm()}
		if i > 0 {
			if st.Size() > maxKeyBackup {
				return fmt.Errorf("%s: larger than %d bytes, not a public key file; nothing was written", f.Path, maxKeyBackup)
			}
			if backups[i].data, err = ReadRegular(f.Path, maxKeyBackup); err != nil {
				return fmt.Errorf("%s: read the old file before replacing it: %w", f.Path, err)
			}
		}
	}

	// Step 2: complete temporary files.
	tmps := make([]string, len(files))
	defer func() {
		for _, tmp := range tmps {
			if tmp != "" {
				_ = fsops.Current.Remove(tmp)
			}
		}
	}()
	for i, f := range files {
		dir := filepath.Dir(f.Path)
		removeStaleTemps(dir, filepath.Base(f.Path))
		tmp, err := writeTemp(f)
		if err != nil {
			return err
		}
		tmps[i] = tmp
	}

	// Step 3: publish, the private key last.
	order := make([]int, 0, len(files))
	for i := 1; i < len(files); i++ {
		order = append(order, i)
	}
	order = append(order, 0)
	var published []int
	for _, i := range order {
		f := files[i]
		var perr error
		if overwrite {
			perr = fsops.Current.Rename(tmps[i], f.Path)
			if perr == nil {
				tmps[i] = ""
			} else {
				perr = fmt.Errorf("%s: rename into place: %w", f.Path, perr)
			}
		} else {
			var remains bool
			remains, perr = publishNoClobber(tmps[i], f.Path)
			if perr == nil && !remains {
				tmps[i] = ""
			}
		}
		if perr != nil {
			// Step 4: put back what was published (public files only).
			for _, j := range published {
				if b := backups[j]; b.existed {
					_ = WriteAtomic(files[j].Path, b.data, b.mode, true)
				} else {
					_ = fsops.Current.Remove(files[j].Path)
				}
			}
			return fmt.Errorf("%w; the old key files are unchanged", perr)
		}
		published = append(published, i)
	}
	// All published. Second names left by the link strategy are removed
	// now, and a failure is reported (a stray name for a private key must
	// not go unnoticed).
	for i, tmp := range tmps {
		if tmp == "" {
			continue
		}
		tmps[i] = ""
		if err := fsops.Current.Remove(tmp); err != nil {
			return fmt.Errorf("%s: written, but removing temporary file %s failed: %w", files[i].Path, tmp, err)
		}
	}
	if err := fsops.Current.SyncDir(filepath.Dir(files[0].Path)); err != nil {
		return fmt.Errorf("%s: written, but %w", files[0].Path, err)
	}
	return nil
}
