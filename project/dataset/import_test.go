package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseCSVImport reads files laid out in the ways ImportOptions
// describe: a preamble, ';' with a decimal comma, comment lines, tab and
// other delimiters.
func TestParseCSVImport(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		opts    ImportOptions
		columns []string
		delim   rune
		data    map[string][]float64
	}{
		{name: "two-line preamble", input: "Survey of 2024\nrows: 2\na,b\n1,2\n3,4\n", opts: ImportOptions{HeaderRow: 3},
			columns: []string{"a", "b"}, delim: ',', data: map[string][]float64{"a": {1, 3}, "b": {2, 4}}},
		{name: "preamble with an open quote and commas, not parsed", input: "Report \"Q1, 2024\n;;;\na;b\n1;2\n", opts: ImportOptions{HeaderRow: 3},
			columns: []string{"a", "b"}, delim: ';', data: map[string][]float64{"a": {1}, "b": {2}}},
		{name: "preamble, BOM and CRLF", input: "\xEF\xBB\xBFtitle\r\na,b\r\n1,2\r\n", opts: ImportOptions{HeaderRow: 2},
			columns: []string{"a", "b"}, delim: ',', data: map[string][]float64{"a": {1}, "b": {2}}},
		{name: "header row 1 is the default", input: "a,b\n1,2\n", opts: ImportOptions{HeaderRow: 1},
			columns: []string{"a", "b"}, delim: ',', data: map[string][]float64{"a": {1}, "b": {2}}},
		{name: "blank lines after the header row skipped", input: "title\n\n\na,b\n1,2\n", opts: ImportOptions{HeaderRow: 2},
			columns: []string{"a", "b"}, delim: ',', data: map[string][]float64{"a": {1}, "b": {2}}},
		{name: "semicolon and decimal comma, detected", input: "a;b\n1,5;-2,5e1\n,25;3\n", opts: ImportOptions{DecimalComma: true},
			columns: []string{"a", "b"}, delim: ';', data: map[string][]float64{"a": {1.5, 0.25}, "b": {-25, 3}}},
		{name: "tab and decimal comma, detected", input: "a\tb\n1,5\t2\n", opts: ImportOptions{DecimalComma: true},
			columns: []string{"a", "b"}, delim: '\t', data: map[string][]float64{"a": {1.5}, "b": {2}}},
		{name: "single column with decimal comma", input: "x\n0,5\n", opts: ImportOptions{DecimalComma: true},
			columns: []string{"x"}, delim: ';', data: map[string][]float64{"x": {0.5}}},
		{name: "comment lines before and after the header", input: "# exported by a tool\na,b\n# a note\n1,2\n#3,4\n5,6\n", opts: ImportOptions{Comment: "#"},
			columns: []string{"a", "b"}, delim: ',', data: map[string][]float64{"a": {1, 5}, "b": {2, 6}}},
		{name: "comment line decides no delimiter", input: "% a;b;c\nx,y\n1,2\n", opts: ImportOptions{Comment: "%"},
			columns: []string{"x", "y"}, delim: ',', data: map[string][]float64{"x": {1}, "y": {2}}},
		{name: "comment character inside a record is data", input: "a,note\n1,#x\n", opts: ImportOptions{Comment: "#"},
			columns: []string{"a", "note"}, delim: ',', data: map[string][]float64{"a": {1}}},
		{name: "tab given", input: "a,b\tc\n1\t2\n", opts: ImportOptions{Delimiter: '\t'},
			columns: []string{"a,b", "c"}, delim: '\t', data: map[string][]float64{"a,b": {1}, "c": {2}}},
		{name: "pipe given", input: "a|b\n1|2\n", opts: ImportOptions{Delimiter: '|'},
			columns: []string{"a", "b"}, delim: '|', data: map[string][]float64{"a": {1}, "b": {2}}},
		{name: "no header, scikit-learn's count line as preamble", input: "3,2,malignant,benign\n17.99,10.38,0\n20.57,17.77,1\n19.69,21.25,0\n", opts: ImportOptions{HeaderRow: 2, NoHeader: true},
			columns: []string{"column1", "column2", "column3"}, delim: ',', data: map[string][]float64{"column1": {17.99, 20.57, 19.69}, "column2": {10.38, 17.77, 21.25}, "column3": {0, 1, 0}}},
		{name: "no header on the first line, comments", input: "# data\n1;2\n3;4\n", opts: ImportOptions{NoHeader: true, Comment: "#"},
			columns: []string{"column1", "column2"}, delim: ';', data: map[string][]float64{"column1": {1, 3}, "column2": {2, 4}}},
		{name: "no header, one row", input: "5\n", opts: ImportOptions{NoHeader: true},
			columns: []string{"column1"}, delim: ',', data: map[string][]float64{"column1": {5}}},
		{name: "everything at once", input: "Messwerte\n# Einheit: cm\nlänge;breite\n1,5;2\n# Ende\n", opts: ImportOptions{HeaderRow: 2, DecimalComma: true, Comment: "#"},
			columns: []string{"länge", "breite"}, delim: ';', data: map[string][]float64{"länge": {1.5}, "breite": {2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseCSV(strings.NewReader(tc.input), "i.csv", CSVOptions{Import: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Columns, tc.columns) || d.Delimiter != tc.delim || !reflect.DeepEqual(d.Data, tc.data) {
				t.Errorf("got columns %q, delimiter %q, data %v; want %q, %q, %v", d.Columns, d.Delimiter, d.Data, tc.columns, tc.delim, tc.data)
			}
			if d.Import != tc.opts {
				t.Errorf("Import = %+v, want %+v", d.Import, tc.opts)
			}
			if sum := sha256.Sum256([]byte(tc.input)); d.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("Hash is not the SHA-256 of the whole file, preamble included")
			}
		})
	}
}

// TestParseCSVNoHeaderErrors: a file without a header names its rows'
// lines in errors (counting the preamble) and refuses an empty rest.
func TestParseCSVNoHeaderErrors(t *testing.T) {
	_, err := ParseCSV(strings.NewReader("count\n1,2\n3\n"), "n.csv", CSVOptions{Import: ImportOptions{HeaderRow: 2, NoHeader: true}})
	var ce *CSVError
	if !errors.As(err, &ce) || ce.Line != 3 || !strings.Contains(ce.Rule, "row has 1 field") || strings.Contains(ce.Rule, "really the header") {
		t.Errorf("short row: %v", err)
	}
	_, err = ParseCSV(strings.NewReader("count\n"), "n.csv", CSVOptions{Import: ImportOptions{HeaderRow: 2, NoHeader: true}})
	if !errors.As(err, &ce) || !strings.Contains(ce.Rule, "no data rows") {
		t.Errorf("no rows: %v", err)
	}
	pv, err := PreviewImport(strings.NewReader("3,2,a,b\n1,2,0\n3,4,1\n"), "p.csv", ImportOptions{HeaderRow: 2, NoHeader: true})
	if err != nil || pv.Err != nil || strings.Join(pv.Header, ",") != "column1,column2,column3" || len(pv.Rows) != 2 || pv.RowLines[0] != 2 {
		t.Errorf("preview: %+v, %v", pv, err)
	}
}

// TestParseCSVImportLines checks that every line a stream reports and a
// summarising error lists is the file's own line, counting the preamble.
func TestParseCSVImportLines(t *testing.T) {
	in := "title\n# note\nx;y\n1,5;2\n\n2;bad\n3;x\n# c\n4;5\n"
	opts := CSVOptions{Columns: []string{"x", "y"}, Import: ImportOptions{HeaderRow: 3, DecimalComma: true, Comment: "#"}}
	_, err := ParseCSV(strings.NewReader(in), "l.csv", opts)
	var ce *CSVError
	if !errors.As(err, &ce) || ce.Line != 6 || !reflect.DeepEqual(ce.Lines, []int{6, 7}) {
		t.Fatalf("err = %v (lines %v), want line 6 and lines [6 7]", err, ce.Lines)
	}
	var lines []int
	_, err = scanCSVFrom(strings.NewReader(in), "l.csv", opts, 2, func(*CSVError) {}, func(c csvChunk) error {
		lines = append(lines, c.lines...)
		return nil
	})
	if err != nil || !reflect.DeepEqual(lines, []int{4, 9}) {
		t.Errorf("streamed lines = %v, %v; want [4 9]", lines, err)
	}
}

func TestWithClassesKeepsImportOptions(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.csv")
	if err := os.WriteFile(p, []byte("title\nx;y\n0,5;no\n1,5;yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ReadCSV(p, CSVOptions{KeepInvalid: true, Import: ImportOptions{HeaderRow: 2, DecimalComma: true}})
	if err != nil {
		t.Fatal(err)
	}
	again, err := d.WithClasses("y", Classes{"no", "yes"})
	if err != nil {
		t.Fatal(err)
	}
	y, filled, err := again.DeclaredLabels("y", Classes{"no", "yes"}, -1)
	if err != nil || filled != 0 || !reflect.DeepEqual(y, []float64{-1, 1}) || !reflect.DeepEqual(again.Data["x"], []float64{0.5, 1.5}) {
		t.Errorf("labels %v (filled %d, %v), x %v; want [-1 1], x [0.5 1.5]", y, filled, err, again.Data["x"])
	}
}

func TestImportOptionsValidate(t *testing.T) {
	good := []ImportOptions{
		{}, {HeaderRow: 1}, {HeaderRow: MaxHeaderRow}, {Delimiter: ';', DecimalComma: true},
		{Delimiter: '|', Comment: "#"}, {Delimiter: '\t'}, {Comment: "%"}, {Delimiter: ',', Comment: ";"},
	}
	for _, o := range good {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	bad := []struct {
		o    ImportOptions
		want string
	}{
		{ImportOptions{HeaderRow: -1}, "header row -1: must be a line number from 1 to 1000"},
		{ImportOptions{HeaderRow: MaxHeaderRow + 1}, "header row 1001"},
		{ImportOptions{Delimiter: '"'}, `delimiter '"' cannot be a quote`},
		{ImportOptions{Delimiter: '\n'}, `delimiter '\n' cannot be a line break`},
		{ImportOptions{Delimiter: '\r'}, "cannot be a line break"},
		{ImportOptions{Delimiter: ' '}, "cannot be a space"},
		{ImportOptions{Delimiter: 'x'}, "cannot be a letter"},
		{ImportOptions{Delimiter: '.'}, "cannot be a letter, a digit, '.'"},
		{ImportOptions{Delimiter: 0xFFFD}, "must be a printable character"},
		{ImportOptions{Delimiter: '\x00' + 1}, "must be a printable character"},
		{ImportOptions{Delimiter: ',', DecimalComma: true}, "cannot be used with a decimal comma"},
		{ImportOptions{Comment: "##"}, "must be one character"},
		{ImportOptions{Comment: ";"}, "cannot be a delimiter the detection may pick"},
		{ImportOptions{Delimiter: ';', Comment: ";"}, "cannot be the delimiter"},
		{ImportOptions{Comment: "\""}, "cannot be a quote"},
		{ImportOptions{Comment: "\n"}, "cannot be a line break"},
	}
	for _, tc := range bad {
		if err := tc.o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestParseDelimiter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want rune
	}{{"", 0}, {"auto", 0}, {"AUTO", 0}, {",", ','}, {";", ';'}, {"tab", '\t'}, {`\t`, '\t'}, {"\t", '\t'}, {"|", '|'}, {"pipe", '|'}, {"comma", ','}, {"semicolon", ';'}, {"§", '§'}} {
		got, err := ParseDelimiter(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseDelimiter(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if back, err := ParseDelimiter(FormatDelimiter(got)); err != nil || back != got {
			t.Errorf("ParseDelimiter(FormatDelimiter(%q)) = %q, %v", got, back, err)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{";;", "want one character"}, {`"`, "cannot be a quote"}, {"a", "cannot be a letter"}, {"\n", "line break"},
	} {
		if _, err := ParseDelimiter(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDelimiter(%q) err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseDecimalComma(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{{"1,5", 1.5}, {" -2,5e3 ", -2500}, {",5", 0.5}, {"3", 3}, {"2,", 2}, {"+1E-2", 0.01}} {
		if got, err := ParseDecimalComma(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseDecimalComma(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"1.5", `"1.5" is not a number with a decimal comma`},
		{"1.234,5", "without thousands separators"},
		{"1,2,3", `"1,2,3" is not a number`},
		{"NaN", `"NaN" is not a finite number`},
		{"1_0", "an optional comma and exponent, e.g. -1,5e3"},
		{"1,5e999", `"1,5e999" is outside the range of a float64`},
		{"", "missing value"},
	} {
		if _, err := ParseDecimalComma(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDecimalComma(%q) err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestDetectDelimiterImport(t *testing.T) {
	tests := []struct {
		head string
		opts ImportOptions
		want rune
		rule string
	}{
		{"\n\r\na;b\n", ImportOptions{}, ';', ""},
		{"# x,y,z\na;b\n", ImportOptions{Comment: "#"}, ';', ""},
		{"# x,y,z\na;b\n", ImportOptions{}, ',', ""},
		{"a;b,c\n", ImportOptions{DecimalComma: true}, ';', ""},
		{"a\tb\n", ImportOptions{DecimalComma: true}, '\t', ""},
		{"a\n", ImportOptions{DecimalComma: true}, ';', ""},
		{"a,b\n", ImportOptions{DecimalComma: true}, 0, "separated by commas"},
		{"\"a,b\"\n", ImportOptions{DecimalComma: true}, ';', ""},
		{"a;b\n1,2,3,4,5,6\n", ImportOptions{}, ';', ""}, // the header only: never a data row
	}
	for _, tc := range tests {
		got, rule := detectDelimiter([]byte(tc.head), tc.opts)
		if got != tc.want || !strings.Contains(rule, tc.rule) || (tc.rule == "") != (rule == "") {
			t.Errorf("detectDelimiter(%q, %+v) = %q, %q; want %q, %q", tc.head, tc.opts, got, rule, tc.want, tc.rule)
		}
	}
}

// preambleCSV is a file with a two-line preamble, ';' and decimal commas.
const preambleCSV = "Blood pressure study, site 3\nexported 2026-11-24; 3 rows\nage;systolic;note\n41;120,5;ok\n52;131;\n# removed\n67;140,25;\"late; recheck\"\n"

func TestPreviewImport(t *testing.T) {
	tests := []struct {
		name     string
		opts     ImportOptions
		delim    rune
		header   []string
		rows     [][]string
		rowLines []int
		numeric  []bool
		problems []string
		errRule  string
	}{
		{name: "right options", opts: ImportOptions{HeaderRow: 3, DecimalComma: true, Comment: "#"}, delim: ';',
			header:   []string{"age", "systolic", "note"},
			rows:     [][]string{{"41", "120,5", "ok"}, {"52", "131", ""}, {"67", "140,25", "late; recheck"}},
			rowLines: []int{4, 5, 7}, numeric: []bool{true, true, false}},
		{name: "defaults: the title is read as the header", opts: ImportOptions{}, delim: ',',
			header:   []string{"Blood pressure study", "site 3"},
			rows:     [][]string{{"exported 2026-11-24; 3 rows"}, {"age;systolic;note"}, {"41;120", "5;ok"}, {"52;131;"}, {"# removed"}},
			rowLines: []int{2, 3, 4, 5, 6}, numeric: []bool{false, false},
			problems: []string{"p.csv:2: row has 1 field, the header has 2 (delimiter ',')", "p.csv:3: row has 1 field", "p.csv:5: row has 1 field", "p.csv:6: row has 1 field",
				`p.csv:7: bare " in non-quoted-field`}},
		{name: "no decimal comma", opts: ImportOptions{HeaderRow: 3, Comment: "#"}, delim: ';',
			header: []string{"age", "systolic", "note"},
			rows:   [][]string{{"41", "120,5", "ok"}, {"52", "131", ""}, {"67", "140,25", "late; recheck"}}, rowLines: []int{4, 5, 7},
			numeric:  []bool{true, false, false},
			problems: []string{`p.csv:4:2 (column "systolic"): "120,5" is not a number (decimal comma? read the file with a decimal comma, or use a point)`}},
		{name: "no comment prefix", opts: ImportOptions{HeaderRow: 3, DecimalComma: true}, delim: ';',
			header: []string{"age", "systolic", "note"},
			rows:   [][]string{{"41", "120,5", "ok"}, {"52", "131", ""}, {"# removed"}, {"67", "140,25", "late; recheck"}}, rowLines: []int{4, 5, 6, 7},
			numeric:  []bool{true, true, false},
			problems: []string{"p.csv:6: row has 1 field, the header has 3 (delimiter ';')"}},
		{name: "header row past the end", opts: ImportOptions{HeaderRow: 20}, errRule: "header row 20 is past the end of the file (7 lines)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pv, err := PreviewImport(strings.NewReader(preambleCSV), "p.csv", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(pv.Lines) != 7 || pv.Lines[0] != "Blood pressure study, site 3" || pv.Lines[6] != `67;140,25;"late; recheck"` {
				t.Errorf("Lines = %q", pv.Lines)
			}
			if tc.errRule != "" {
				if pv.Err == nil || !strings.Contains(pv.Err.Error(), tc.errRule) || pv.Header != nil {
					t.Errorf("Err = %v, header %q; want %q", pv.Err, pv.Header, tc.errRule)
				}
				return
			}
			if pv.Err != nil {
				t.Fatal(pv.Err)
			}
			if pv.Delimiter != tc.delim || !reflect.DeepEqual(pv.Header, tc.header) || !reflect.DeepEqual(pv.Rows, tc.rows) ||
				!reflect.DeepEqual(pv.RowLines, tc.rowLines) || !reflect.DeepEqual(pv.Numeric, tc.numeric) {
				t.Errorf("got %q %q %q %v %v", pv.Delimiter, pv.Header, pv.Rows, pv.RowLines, pv.Numeric)
			}
			var probs []string
			for _, p := range pv.Problems {
				probs = append(probs, p.Error())
			}
			if len(probs) != len(tc.problems) {
				t.Fatalf("problems %q, want %q", probs, tc.problems)
			}
			for i := range probs {
				if !strings.HasPrefix(probs[i], tc.problems[i]) {
					t.Errorf("problem %d = %q, want prefix %q", i, probs[i], tc.problems[i])
				}
			}
			if pv.Partial != (len(tc.problems) > 2) { // the bare quote stops the preview
				t.Errorf("Partial = %v", pv.Partial)
			}
		})
	}
}

// byteCount counts the bytes written to it (through an io.TeeReader: the
// bytes read).
type byteCount int64

func (c *byteCount) Write(p []byte) (int, error) {
	*c += byteCount(len(p))
	return len(p), nil
}

// TestPreviewImportReadsBounded checks the number to hold (issue 17: a
// 1 GB file's preview in ≤ 1 s) by what makes it hold: the preview of a
// file of 10^8 rows (about 2.5 GB, streamed, never held) reads at most
// ImportPreviewBytes of it and parses ImportPreviewRows rows, so its cost
// does not depend on the file's size (BenchmarkImportPreview times it).
func TestPreviewImportReadsBounded(t *testing.T) {
	var read byteCount
	pv, err := PreviewImport(io.TeeReader(newRowsReader(100_000_000), &read), "big.csv", ImportOptions{})
	if err != nil || pv.Err != nil {
		t.Fatal(err, pv.Err)
	}
	if read > ImportPreviewBytes {
		t.Errorf("read %d bytes, more than %d", read, ImportPreviewBytes)
	}
	if len(pv.Rows) != ImportPreviewRows || !pv.Partial || pv.RowLines[ImportPreviewRows-1] != ImportPreviewRows+1 {
		t.Errorf("%d rows (last at line %d), Partial %v; want %d, line %d, true", len(pv.Rows), pv.RowLines[len(pv.RowLines)-1], pv.Partial, ImportPreviewRows, ImportPreviewRows+1)
	}
	if len(pv.Lines) != importPreviewLines || len(pv.Problems) != 0 || !reflect.DeepEqual(pv.Numeric, []bool{true, false, true}) {
		t.Errorf("%d lines, problems %v, numeric %v", len(pv.Lines), pv.Problems, pv.Numeric)
	}
}

// TestPreviewImportCut covers the ends of the 1 MiB window: a header row
// beyond it, rows longer than it, a line cut in two.
func TestPreviewImportCut(t *testing.T) {
	long := strings.Repeat("x", 2000) + "\n"
	preamble := strings.Repeat(long, ImportPreviewBytes/len(long)+10)
	pv, err := PreviewImport(strings.NewReader(preamble+"a\n1\n"), "p.csv", ImportOptions{HeaderRow: MaxHeaderRow})
	if err != nil || pv.Err == nil || !strings.Contains(pv.Err.Error(), "header row 1000 is not within the first 1048576 bytes the preview reads") {
		t.Errorf("header beyond the window: %v, %v", err, pv.Err)
	}
	if pv.Lines[0] != strings.Repeat("x", 200)+"…" {
		t.Errorf("long line shown as %q", pv.Lines[0])
	}
	// Rows of 400 KB: two fit, the third is cut and not shown as a problem.
	row := "1," + strings.Repeat("y", 400<<10) + "\n"
	pv, err = PreviewImport(strings.NewReader("a,b\n"+strings.Repeat(row, 5)), "p.csv", ImportOptions{})
	if err != nil || pv.Err != nil || len(pv.Rows) != 2 || len(pv.Problems) != 0 || !pv.Partial {
		t.Errorf("long rows: %v, %v, %d rows, problems %v, partial %v", err, pv.Err, len(pv.Rows), pv.Problems, pv.Partial)
	}
}

func TestPreviewImportErrors(t *testing.T) {
	if _, err := PreviewImport(strings.NewReader("a\n1\n"), "p.csv", ImportOptions{Delimiter: '"'}); err == nil || !strings.Contains(err.Error(), `p.csv: delimiter '"' cannot be a quote`) {
		t.Errorf("bad options: err = %v", err)
	}
	boom := errors.New("disk on fire")
	if _, err := PreviewImport(&errReader{data: []byte("a\n1\n"), err: boom}, "p.csv", ImportOptions{}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "p.csv") {
		t.Errorf("read error: err = %v", err)
	}
	dir := t.TempDir()
	var ce *CSVError
	if _, err := PreviewImportFile(dir, ImportOptions{}); !errors.As(err, &ce) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v", err)
	}
	p := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(p, []byte(preambleCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	pv, err := PreviewImportFile(p, ImportOptions{HeaderRow: 3, DecimalComma: true, Comment: "#"})
	if err != nil || pv.Err != nil || len(pv.Rows) != 3 || pv.Partial {
		t.Errorf("file: %v, %v, %d rows, partial %v", err, pv.Err, len(pv.Rows), pv.Partial)
	}
}

// BenchmarkImportPreview previews a 1 GB file (issue 17: the preview
// appears in ≤ 1 s): 2 MiB of rows, extended to 1 GB sparsely with
// Truncate (the preview never reads that far; TestPreviewImportReadsBounded
// proves it reads at most ImportPreviewBytes).
func BenchmarkImportPreview(b *testing.B) {
	p := filepath.Join(b.TempDir(), "big.csv")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(f, io.LimitReader(newRowsReader(1_000_000), 2<<20)); err != nil {
		b.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pv, err := PreviewImportFile(p, ImportOptions{})
		if err != nil || pv.Err != nil || len(pv.Rows) != ImportPreviewRows {
			b.Fatal(err, pv.Err)
		}
	}
}

// TestMissingColumnClosestName is the walkthrough's reproduction: two long
// column names that differ after character 40 were quoted identically in
// "no such column"; the error now says where the closest name differs.
func TestMissingColumnClosestName(t *testing.T) {
	long := "patient_measurement_mean_radius_in_standard_units_v2"
	in := "id," + long + "\n1,2\n"
	_, err := ParseCSV(strings.NewReader(in), "l.csv", CSVOptions{Columns: []string{long + "_typo"}})
	want := `the closest is the header's column 2, which differs from character 53 on: …"units_v2", not …"units_v2_typo"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v\nwant it to contain %s", err, want)
	}
	_, err = ParseCSV(strings.NewReader(in), "l.csv", CSVOptions{Columns: []string{"age"}})
	if err == nil || strings.Contains(err.Error(), "closest") {
		t.Errorf("a name unlike every column: %v", err)
	}
}
