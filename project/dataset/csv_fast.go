package dataset

// The fast path of ReadCSV for large files (issue 20: "streaming CSV for
// the in-memory learners: one pass, memory proportional to the columns
// used"). A first, cheap pass over the file's bytes (csvShapeOf) counts its
// line breaks — an upper bound on the data rows, so the used columns are
// allocated once at their final size instead of growing by appends — and
// checks whether any byte is a double quote. A file without quotes is read
// after its header by fastRows: line by line from the same buffered reader,
// split at the delimiter into fields that are views of the line (no string
// is allocated per row or value), with exactly encoding/csv's reading of a
// quote-free line (CRLF as LF, a final CR dropped, empty and comment lines
// skipped, MaxRecordBytes per record). Each row then goes through the same
// checks, number rule, fill and class rules as the encoding/csv path
// (csvParser.readRows), so the Table and every error are the same.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// csvShape is what the first pass learned about a file.
type csvShape struct {
	lines     int  // line breaks ('\n'), so data rows ≤ lines + 1
	quoteFree bool // no '"' anywhere: every field is unquoted
}

// csvShapeOf reads the file at path once, in 1 MiB blocks (bounded memory,
// about 0.1 s per 150 MB from the page cache), and returns its shape.
func csvShapeOf(path string) (*csvShape, error) {
	f, err := fileio.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &csvShape{quoteFree: true}
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		b := buf[:n]
		s.lines += bytes.Count(b, []byte{'\n'})
		if s.quoteFree && bytes.IndexByte(b, '"') >= 0 {
			s.quoteFree = false
		}
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// fastRows reads the data records of a quote-free file after its header.
type fastRows struct {
	br      *bufio.Reader
	comma   []byte // the delimiter, UTF-8
	comment rune   // 0: none
	offset  int64  // bytes consumed after the preamble (encoding/csv's InputOffset)
	line    int    // the file's line of the record just read
	raw     []byte // a record longer than the reader's buffer
	rec     []string
}

// next returns the next record: its fields are views of the reader's
// buffer, valid until the following call (csvParser copies what it keeps).
// Errors and line numbers are csvParser.nextRecord's.
func (f *fastRows) next(p *csvParser, prevEnd int) ([]string, error) {
	for {
		line, err := f.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			f.raw = append(f.raw[:0], line...)
			for err == bufio.ErrBufferFull && len(f.raw) <= MaxRecordBytes {
				line, err = f.br.ReadSlice('\n')
				f.raw = append(f.raw, line...)
			}
			line = f.raw
		}
		if errors.Is(err, errRecordTooLong) || len(line) > MaxRecordBytes {
			return nil, p.errAt(prevEnd+1, -1, fmt.Sprintf("record starting here is longer than %d bytes (is this really a CSV file, or a quote left open?)", MaxRecordBytes))
		}
		if err != nil && err != io.EOF {
			return nil, p.readErr(err, prevEnd+1)
		}
		if len(line) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		f.offset += int64(len(line))
		f.line++
		p.lim.limit = p.base + f.offset + MaxRecordBytes + readAhead
		if err == io.EOF && line[len(line)-1] == '\r' {
			line = line[:len(line)-1] // encoding/csv drops a final CR
		}
		if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
			line = line[:n-2]
		} else if n >= 1 && line[n-1] == '\n' {
			line = line[:n-1]
		}
		if f.comment != 0 {
			if r, _ := utf8.DecodeRune(line); r == f.comment {
				continue
			}
		}
		if len(line) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue // an empty line
		}
		f.rec = f.rec[:0]
		for {
			i := bytes.Index(line, f.comma)
			if i < 0 {
				f.rec = append(f.rec, view(line))
				break
			}
			f.rec = append(f.rec, view(line[:i]))
			line = line[i+len(f.comma):]
		}
		return f.rec, nil
	}
}

// view returns b as a string without copying: valid while b is not
// overwritten (the next ReadSlice). Nothing the parser keeps holds one:
// the preview copies its rows (cloneRecord), errors format their text.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// cloneRecord copies a record's fields (the preview keeps them).
func cloneRecord(rec []string) []string {
	out := make([]string, len(rec))
	for i, s := range rec {
		out[i] = strings.Clone(s)
	}
	return out
}
