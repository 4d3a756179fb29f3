package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular: a path given as an input file names something that is not
// a regular file (a directory, FIFO, device or socket). Reading those could
// block forever (a FIFO with no writer, a terminal) or never end
// (/dev/zero, /dev/urandom). Test with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the file at path for reading, following symbolic
// links, and refuses anything but a regular file with an error matching
// ErrNotRegular that names path and what it is. It is the one way this
// package (and the CLI and UI) open an input file by path: CSV datasets,
// synopses, keys, passphrase files, allowed_signers and project files.
//
// It never blocks: the type is checked before opening, and on Unix the
// file is opened with O_NONBLOCK (no effect on regular files) and checked
// again on the open descriptor, so a FIFO swapped in between is refused
// too rather than waited on.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := OpenRegularStat(path)
	return f, err
}

// OpenRegularStat is OpenRegular, also returning the open descriptor's
// FileInfo (the one it checked), for callers that need the size or mode.
func OpenRegularStat(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err // *fs.PathError names the path
	}
	if err := checkRegular(path, st); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := checkRegular(path, st); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// checkRegular reports a non-regular file in words.
func checkRegular(path string, st fs.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %w: it is %s; give the path of an ordinary file", path, ErrNotRegular, describeMode(st.Mode()))
}

// describeMode names a non-regular file type in words ("a named pipe
// (FIFO)").
func describeMode(m fs.FileMode) string {
	what := "a special file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	}
	return what
}

// ReadRegular reads the regular file at path (OpenRegular) whole; a
// file of more than limit bytes is an error naming path and the limit,
// found without reading past limit+1 bytes.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
