package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxHeaderRow bounds ImportOptions.HeaderRow: a preamble (title, notes,
// counts) longer than this is not a CSV file a curator should import
// without editing it first.
const MaxHeaderRow = 1000

// ImportOptions says how a CSV file's text is laid out (issue 17): where
// the header is, which character separates the fields, how decimals are
// written and which lines are comments. They are the curator's
// declarations about the file's format, saved in the project file; the
// zero value is the format every earlier version read (header on the
// first line, delimiter detected, decimal point, no comments).
//
// Validate is the one home of their rules; ParseCSV, the command line and
// the project file call it where the options enter.
type ImportOptions struct {
	// HeaderRow is the 1-based line of the file where the header is; the
	// lines before it (the preamble: a title, a count, notes) are skipped
	// as text, never parsed as CSV, so an unbalanced quote in a title does
	// no harm. 0 means 1. Blank and comment lines at or after HeaderRow
	// are skipped as anywhere else, so the header is the first record
	// starting at or after that line. Line numbers in errors are the
	// file's own, counting the preamble.
	HeaderRow int
	// Delimiter separates the fields; 0 detects ',', ';' or tab from the
	// header line alone (detectDelimiter; ';' or tab with DecimalComma).
	// It cannot be a quote, a line break, a space, a letter, a digit or a
	// character of the number syntax ('.', ',' with DecimalComma, '+',
	// '-'), nor the Comment character.
	Delimiter rune
	// DecimalComma reads numbers with a decimal comma ("1,5", "-2,5e3";
	// ParseDecimalComma): a value with a point is then not a number. It
	// needs a delimiter other than ','.
	DecimalComma bool
	// Comment, if not empty, is one character that starts a comment line:
	// lines beginning with it (no spaces before) are skipped wherever a
	// record may start, before and after the header. A comment character
	// inside a record or a quoted field is data.
	Comment string
	// NoHeader says the file has no header line: the first record at or
	// after HeaderRow is data, and the columns are named column1,
	// column2, … (NoHeaderName), as the curator then refers to them.
	NoHeader bool
}

// NoHeaderName is the name of column i (0-based) of a file read with
// ImportOptions.NoHeader: "column1", "column2", ….
func NoHeaderName(i int) string { return "column" + strconv.Itoa(i+1) }

// Validate checks the options. Its errors name the value and the rule.
func (o ImportOptions) Validate() error {
	if o.HeaderRow < 0 || o.HeaderRow > MaxHeaderRow {
		return fmt.Errorf("header row %d: must be a line number from 1 to %d", o.HeaderRow, MaxHeaderRow)
	}
	if o.Delimiter != 0 {
		if rule := delimiterRule(o.Delimiter, o.DecimalComma); rule != "" {
			return fmt.Errorf("delimiter %s %s", DelimiterName(o.Delimiter), rule)
		}
	}
	if o.Comment != "" {
		c, size := utf8.DecodeRuneInString(o.Comment)
		switch {
		case size != len(o.Comment):
			return fmt.Errorf("comment prefix %s: must be one character, e.g. #", QuoteShort(o.Comment))
		case c == o.Delimiter:
			return fmt.Errorf("comment prefix %s: cannot be the delimiter", QuoteShort(o.Comment))
		case o.Delimiter == 0 && (c == ',' || c == ';' || c == '\t'):
			return fmt.Errorf("comment prefix %s: cannot be a delimiter the detection may pick (',', ';' or tab)", QuoteShort(o.Comment))
		}
		if rule := delimiterRule(c, o.DecimalComma); rule != "" {
			return fmt.Errorf("comment prefix %s %s", QuoteShort(o.Comment), rule)
		}
	}
	return nil
}

// delimiterRule is the rule a delimiter or comment character r breaks, or
// "": encoding/csv's own limits (no quote, line break or invalid rune), and
// nothing that occurs in names or numbers (space, letter, digit, '.', '+',
// '-', and ',' with a decimal comma).
func delimiterRule(r rune, decimalComma bool) string {
	switch {
	case r == '"':
		return "cannot be a quote (quotes enclose fields)"
	case r == '\r' || r == '\n':
		return "cannot be a line break"
	case r == utf8.RuneError || !utf8.ValidRune(r) || r == '\uFEFF' || unicode.IsControl(r) && r != '\t':
		return "must be a printable character or tab"
	case unicode.IsSpace(r) && r != '\t':
		return "cannot be a space (values are trimmed of spaces)"
	case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".+-", r):
		return "cannot be a letter, a digit, '.', '+' or '-' (they occur in names and numbers)"
	case r == ',' && decimalComma:
		return "cannot be used with a decimal comma (use ';' or tab)"
	}
	return ""
}

// ParseDelimiter reads a delimiter as a person writes it: "auto" or ""
// (detect: 0), "tab" or "\t" (a tab), "comma", "semicolon", "pipe", or
// one character. The character's rules are Validate's.
func ParseDelimiter(s string) (rune, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return 0, nil
	case "tab", `\t`, "\t":
		return '\t', nil
	case "comma":
		return ',', nil
	case "semicolon":
		return ';', nil
	case "pipe":
		return '|', nil
	}
	r, size := utf8.DecodeRuneInString(s)
	if size != len(s) {
		return 0, fmt.Errorf("delimiter %s: want one character, tab, or auto", QuoteShort(s))
	}
	if rule := delimiterRule(r, false); rule != "" {
		return 0, fmt.Errorf("delimiter %s %s", DelimiterName(r), rule)
	}
	return r, nil
}

// DelimiterName is the inverse of ParseDelimiter: "auto" for 0, "tab" for
// a tab, otherwise the character quoted ("','"), so a name in a message
// or on screen is never blank.
func DelimiterName(r rune) string {
	switch r {
	case 0:
		return "auto"
	case '\t':
		return "tab"
	}
	return strconv.QuoteRune(r)
}

// FormatDelimiter writes a delimiter as ParseDelimiter reads it, for
// flags and files: "auto" for 0, "tab", or the character itself.
func FormatDelimiter(r rune) string {
	switch r {
	case 0:
		return "auto"
	case '\t':
		return "tab"
	}
	return string(r)
}

// detectDelimiter picks ',', ';' or tab (only ';' or tab with a decimal
// comma), whichever occurs most often outside quotes in the header line:
// the first line of head that is neither empty nor a comment line. On a
// tie or if none occurs, the first candidate (',', or ';' with a decimal
// comma). Only the header is read, never a data row, so the choice does
// not depend on the private records (docs/security.md). With a decimal
// comma, a header line with commas outside quotes but neither ';' nor tab
// is refused (rule): it would be read as one column.
func detectDelimiter(head []byte, o ImportOptions) (delim rune, rule string) {
	line := headerLine(head, o.Comment)
	var n [3]int // ',', ';', '\t'
	inQuote := false
	for _, c := range line {
		if c == '"' {
			inQuote = !inQuote
			continue
		}
		if inQuote {
			continue
		}
		switch c {
		case ',':
			n[0]++
		case ';':
			n[1]++
		case '\t':
			n[2]++
		}
	}
	cands := []rune{',', ';', '\t'}
	first := 0
	if o.DecimalComma {
		first = 1
	}
	best := first
	for i := first + 1; i < 3; i++ {
		if n[i] > n[best] {
			best = i
		}
	}
	if o.DecimalComma && n[0] > 0 && n[best] == 0 {
		return 0, "the header line is separated by commas, which cannot be the delimiter of a file with a decimal comma (is the decimal comma right?)"
	}
	return cands[best], ""
}

// headerLine returns the first line of head that is not empty and does
// not start with the comment character; a newline inside quotes does not
// end the line.
func headerLine(head []byte, comment string) []byte {
	for len(head) > 0 {
		end, inQuote := len(head), false
		for i, c := range head {
			if c == '"' {
				inQuote = !inQuote
			} else if c == '\n' && !inQuote {
				end = i
				break
			}
		}
		line := head[:end]
		blank := len(line) == 0 || len(line) == 1 && line[0] == '\r'
		if !blank && (comment == "" || !strings.HasPrefix(string(line), comment)) {
			return line
		}
		if end == len(head) {
			break
		}
		head = head[end+1:]
	}
	return nil
}
