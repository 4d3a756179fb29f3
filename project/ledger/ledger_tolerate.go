package ledger

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// tolerated collects the harmless irregularities parseLedger reads past
// (docs/ledger.md, "Harmless irregularities"). None of them can hide an
// entry: a byte order mark and a carriage return are removed only around
// a line that must then verify byte for byte (its checksum), and a blank
// line is shorter than any entry (minEntryLen), so it cannot be an entry
// overwritten with spaces.
type tolerated struct {
	bom   bool
	crlf  []int // lines ending in "\r\n"
	blank []int // blank lines
}

// line returns the line without a trailing '\r', and whether it is blank:
// only spaces, tabs and carriage returns, and shorter than any entry.
func (t *tolerated) line(n int, b []byte) ([]byte, bool) {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
		t.crlf = append(t.crlf, n)
	}
	if isBlankLine(b) {
		t.blank = append(t.blank, n)
		return nil, true
	}
	return b, false
}

// isBlankLine reports whether b holds only spaces, tabs and carriage
// returns and is shorter than any entry.
func isBlankLine(b []byte) bool {
	return len(b) < minEntryLen && len(bytes.TrimLeft(b, " \t\r\v\f")) == 0
}

// blankTail returns the length of data without its blank tail: the blank
// lines after the last line that is not blank, and blank bytes without a
// line end after them. They hold no entry (isBlankLine), and the next write
// removes them: an entry appended after them would make them blank lines
// between entries (damage), or be glued to unterminated ones.
func blankTail(data []byte) int {
	cut := bytes.LastIndexByte(data, '\n') + 1
	if !isBlankLine(data[cut:]) {
		return len(data) // a torn or damaged last line: not ours to remove
	}
	for cut > 0 {
		start := bytes.LastIndexByte(data[:cut-1], '\n') + 1
		if !isBlankLine(data[start : cut-1]) {
			break
		}
		cut = start
	}
	return cut
}

// notes returns one sentence per kind of irregularity.
func (t *tolerated) notes() []string {
	var out []string
	if t.bom {
		out = append(out, "the ledger begins with a UTF-8 byte order mark, which was ignored (it holds no entry)")
	}
	if len(t.crlf) > 0 {
		out = append(out, fmt.Sprintf("%s in CR LF (Windows line ends); the CR was ignored and each line still verified byte for byte", lineList(t.crlf, "ends", "end")))
	}
	if len(t.blank) > 0 {
		out = append(out, fmt.Sprintf("%s blank and hold no entry; ignored at no charge", lineList(t.blank, "is", "are")))
	}
	return out
}

// lineList names line numbers with a verb: "line 3 is", "lines 1, 2 are";
// more than 10 are abbreviated.
func lineList(ns []int, one, many string) string {
	if len(ns) == 1 {
		return fmt.Sprintf("line %d %s", ns[0], one)
	}
	var parts []string
	for i, n := range ns {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(ns)))
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	return fmt.Sprintf("lines %s %s", strings.Join(parts, ", "), many)
}
