package dataset

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalAllAtOnce is the reference EvalPointsCSV must match byte for byte:
// the whole file read, evaluated and written at once.
func evalAllAtOnce(v *synopsis.Verified, path string) ([]byte, error) {
	var names []string
	for _, b := range v.File.Domain.Features {
		names = append(names, b.Name)
	}
	ds, err := ReadCSV(path, CSVOptions{Columns: names})
	if err != nil {
		return nil, err
	}
	x, err := QueryPoints(ds, v)
	if err != nil {
		return nil, err
	}
	res, err := EvalReleaseAt(context.Background(), v, x)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = res.WriteCSV(&b)
	return b.Bytes(), err
}

// queryCSV writes a query file with the given header and rows made by
// row(i) into dir.
func queryCSV(t *testing.T, dir, name, header string, rows int, row func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range rows {
		b.WriteString(row(i) + "\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// openSyn reads a synopsis encoded by the fixtures (key "alice", trusted).
func openSyn(t *testing.T, f *synopsis.File) *synopsis.Verified {
	t.Helper()
	data := encodeSyn(t, f, "alice")
	v, err := synopsis.Read(bytes.NewReader(data), int64(len(data)), synTrust(t, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEvalPointsCSVIdentical: streaming in chunks writes exactly the bytes
// of evaluating the whole file at once (issue 14 item 11), across chunk
// borders, with other columns in any order, for a classifier and for a
// feature named like a result column.
func TestEvalPointsCSVIdentical(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 14))
	dens := buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}, h: 2})
	prob := buildSynFile(t, synSpec{kind: learners.OutputProbability, k: []int{6}})
	prob.Domain.Features[0].Name = "value"
	cases := []struct {
		name string
		f    *synopsis.File
		path string
	}{
		{"density, 2 features, extra column, 2.5 chunks", dens, queryCSV(t, dir, "d.csv", "note,x1,x0", 2*evalChunk+evalChunk/2, func(i int) string {
			return fmt.Sprintf("r%d,%v,%v", i, 10+rng.Float64()*30, 10+rng.Float64()*20)
		})},
		{"probability, feature named value, exactly one chunk", prob, queryCSV(t, dir, "p.csv", "value", evalChunk, func(i int) string {
			return fmt.Sprintf("%v", 10+rng.Float64()*20)
		})},
		{"one row", dens, queryCSV(t, dir, "one.csv", "x0,x1", 1, func(int) string { return "10,40" })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := openSyn(t, c.f)
			want, err := evalAllAtOnce(v, c.path)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			sum, err := EvalPointsCSV(context.Background(), v, c.path, &got, EvalPointsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n := sum.Rows
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("streamed output (%d bytes) differs from the all-at-once output (%d bytes)", got.Len(), len(want))
			}
			if lines := bytes.Count(want, []byte("\n")) - 1; n != lines {
				t.Errorf("returned %d rows; the output has %d", n, lines)
			}
		})
	}
}

// TestEvalPointsCSVErrors: a file with invalid rows writes nothing and
// names the first invalid row by its line in the file (the header is line
// 1), also when it is in a later chunk than the first, with how many rows
// are invalid and their first lines (issue 18 item 3: the same numbering
// and wording as the viewer). Other errors are those of ReadCSV.
func TestEvalPointsCSVErrors(t *testing.T) {
	dir := t.TempDir()
	v := openSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}}))
	late := evalChunk + 17
	lateLine := late + 2
	cases := map[string]struct {
		path  string
		want  string // substring of the message
		count int    // invalid rows; 0: not an *InvalidPointsError
	}{
		"out of bounds in the second chunk": {queryCSV(t, dir, "oob.csv", "x0,x1", 2*evalChunk, func(i int) string {
			if i == late {
				return "31,20"
			}
			return "15,20"
		}), fmt.Sprintf("oob.csv:%d:1 (column \"x0\"): 31 is outside the public bounds [10, 30] cm; the release says nothing there", lateLine), 1},
		"bad number in the second chunk": {queryCSV(t, dir, "bad.csv", "x0,x1", 2*evalChunk, func(i int) string {
			if i == late || i == late+5 {
				return "15,abc"
			}
			return "15,20"
		}), fmt.Sprintf("bad.csv:%d:2 (column \"x1\"): \"abc\" is not a number; 2 rows cannot be evaluated (lines %d, %d)", lateLine, lateLine, lateLine+5), 2},
		"missing feature column": {queryCSV(t, dir, "missing.csv", "x0,z", 3, func(int) string { return "15,20" }), `(column "x1"): no such column in the header`, 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got bytes.Buffer
			_, err := EvalPointsCSV(context.Background(), v, c.path, &got, EvalPointsOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			if got.Len() != 0 {
				t.Errorf("wrote %d bytes for a file with an error", got.Len())
			}
			var bad *InvalidPointsError
			if c.count > 0 && (!errors.As(err, &bad) || bad.Count != c.count || bad.First.Line != lateLine) {
				t.Errorf("%v: want an *InvalidPointsError of %d rows, first at line %d", err, c.count, lateLine)
			}
			var oob *synopsis.OutOfBoundsError
			if strings.Contains(name, "bounds") && !errors.As(err, &oob) {
				t.Errorf("out of bounds error %v is not an *synopsis.OutOfBoundsError", err)
			}
			if strings.Contains(err.Error(), "fill") || strings.Contains(err.Error(), "drop") {
				t.Errorf("%v points to an option evaluation does not have", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvalPointsCSV(ctx, v, cases["out of bounds in the second chunk"].path, &bytes.Buffer{}, EvalPointsOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestEvalPointsCSVSkipInvalid: with SkipInvalid the valid rows are
// evaluated exactly as a file of only those rows, and the skipped rows are
// reported by line (issue 18 item 3), across chunk borders; quoted fields
// spanning lines and blank lines do not shift the numbering.
func TestEvalPointsCSVSkipInvalid(t *testing.T) {
	dir := t.TempDir()
	v := openSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}}))
	n := evalChunk + 40
	bad := map[int]string{3: "15,abc", 10: "31,20", evalChunk + 5: ",20", evalChunk + 30: "15,9"}
	var all, good strings.Builder
	all.WriteString("x0,x1,note\n\n") // line 2 is blank
	good.WriteString("x0,x1,note\n")
	line := 3
	var wantLines []int
	for i := range n {
		row, isBad := bad[i]
		if !isBad {
			row = fmt.Sprintf("%d,%d", 10+i%20, 10+i%30)
		}
		note := "x"
		if i == 7 {
			note = "\"two\nlines\"" // a quoted field spanning lines
		}
		fmt.Fprintf(&all, "%s,%s\n", row, note)
		if isBad {
			wantLines = append(wantLines, line)
		} else {
			fmt.Fprintf(&good, "%s,%s\n", row, note)
		}
		line += 1 + strings.Count(note, "\n")
	}
	path := filepath.Join(dir, "mixed.csv")
	goodPath := filepath.Join(dir, "good.csv")
	if err := os.WriteFile(path, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goodPath, []byte(good.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := evalAllAtOnce(v, goodPath)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	sum, err := EvalPointsCSV(context.Background(), v, path, &got, EvalPointsOptions{QueryOptions: QueryOptions{SkipInvalid: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("skipping wrote %d bytes; the file without the invalid rows gives %d", got.Len(), len(want))
	}
	if sum.Rows != n-len(bad) || sum.Skipped.Count != len(bad) || fmt.Sprint(sum.Skipped.Lines) != fmt.Sprint(wantLines) {
		t.Errorf("summary %+v, want %d rows and %d skipped at lines %v", sum, n-len(bad), len(bad), wantLines)
	}
	if s := sum.Skipped.Skipped(); !strings.HasPrefix(s, fmt.Sprintf("skipped 4 invalid rows (lines %d, %d, %d, %d); first: ", wantLines[0], wantLines[1], wantLines[2], wantLines[3])) ||
		!strings.Contains(s, `"abc" is not a number`) {
		t.Errorf("report %q", s)
	}
}

// TestEvalPointsCSVStdin: "-" reads standard input (a pipe cannot be read
// twice: it is copied to a temporary file that is removed afterwards) and
// gives the bytes of the same file given by path; messages name standard
// input.
func TestEvalPointsCSVStdin(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	v, want, data := densityQueries(t, dir, "x1,x0", 3*evalChunk/2, func(i int) string { return fmt.Sprintf("%d,%d", 10+i%30, 10+i%20) })
	pr, pw := io.Pipe()
	go func() { _, err := pw.Write(data); pw.CloseWithError(err) }()
	var got bytes.Buffer
	sum, err := EvalPointsCSV(context.Background(), v, "-", &got, EvalPointsOptions{Stdin: pr})
	if err != nil || !bytes.Equal(got.Bytes(), want) || sum.Rows != 3*evalChunk/2 {
		t.Fatalf("stdin: %d bytes, %+v, %v; want %d bytes", got.Len(), sum, err, len(want))
	}
	_, err = EvalPointsCSV(context.Background(), v, "-", &got, EvalPointsOptions{Stdin: strings.NewReader("x0,x1\n15,abc\n")})
	if err == nil || !strings.HasPrefix(err.Error(), StdinName+":2:2 ") {
		t.Errorf("error on standard input: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "bernstein-points-*"))
	if len(left) != 0 {
		t.Errorf("temporary copies left behind: %v", left)
	}
}

// TestEvalPointsCSVClamp: Clamp moves values outside the public output
// range to its ends and says so per row in the column clamped (issue 18
// item 10).
func TestEvalPointsCSVClamp(t *testing.T) {
	dir := t.TempDir()
	f := buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}})
	v := openSyn(t, f)
	path := queryCSV(t, dir, "q.csv", "x0,x1", 200, func(i int) string { return fmt.Sprintf("%v,%v", 10+float64(i%20), 10+float64(i%30)) })
	var plain bytes.Buffer
	if _, err := EvalPointsCSV(context.Background(), v, path, &plain, EvalPointsOptions{}); err != nil {
		t.Fatal(err)
	}
	// A range the values certainly leave: the middle half of them.
	rows := readRecords(t, plain.Bytes())
	var vals []float64
	for _, r := range rows[1:] {
		x, _ := strconv.ParseFloat(r[2], 64)
		vals = append(vals, x)
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	lo, hi := sorted[len(sorted)/4], sorted[3*len(sorted)/4]
	v.File.Output.Range = [2]float64{lo, hi}
	var got bytes.Buffer
	sum, err := EvalPointsCSV(context.Background(), v, path, &got, EvalPointsOptions{Clamp: true})
	if err != nil {
		t.Fatal(err)
	}
	out := readRecords(t, got.Bytes())
	if strings.Join(out[0], ",") != "x0,x1,value,noise_std,clamped" {
		t.Fatalf("header %v", out[0])
	}
	moved := 0
	for i, r := range out[1:] {
		c, _ := strconv.ParseFloat(r[2], 64)
		want := min(hi, max(lo, vals[i]))
		wasMoved := want != vals[i]
		if c != want || r[4] != strconv.FormatBool(wasMoved) || r[3] != rows[i+1][3] {
			t.Fatalf("row %d: %v, unclamped %v in [%v, %v]", i, r, vals[i], lo, hi)
		}
		if wasMoved {
			moved++
		}
	}
	if moved == 0 || sum.Clamped != moved {
		t.Errorf("clamped %d, counted %d", moved, sum.Clamped)
	}
}

// readRecords parses CSV bytes.
func readRecords(t *testing.T, b []byte) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestEvalPointsCSVImport: a query file with a preamble, ';' and decimal
// commas, read with its import options, gives the bytes the plain file
// gives, and its errors name its own lines.
func TestEvalPointsCSVImport(t *testing.T) {
	dir := t.TempDir()
	v, want, data := densityQueries(t, dir, "x0,x1", 30, func(i int) string { return fmt.Sprintf("%d.5,%d", 10+i%20, 10+i%30) })
	text := strings.NewReplacer(",", ";", ".", ",").Replace(string(data))
	euro := filepath.Join(dir, "euro.csv")
	if err := os.WriteFile(euro, []byte("Query points\n# generated\n"+text), 0o644); err != nil {
		t.Fatal(err)
	}
	imp := ImportOptions{HeaderRow: 2, DecimalComma: true, Comment: "#"}
	var got bytes.Buffer
	sum, err := EvalPointsCSV(context.Background(), v, euro, &got, EvalPointsOptions{QueryOptions: QueryOptions{Import: imp}})
	if err != nil || !bytes.Equal(got.Bytes(), want) || sum.Rows != 30 {
		t.Fatalf("%d bytes, %+v, %v; want the plain file's %d bytes", got.Len(), sum, err, len(want))
	}
	_, err = EvalPointsCSV(context.Background(), v, "-", &got, EvalPointsOptions{Stdin: strings.NewReader("title\nx0;x1\n15;1.5\n"),
		QueryOptions: QueryOptions{Import: imp}})
	if err == nil || !strings.HasPrefix(err.Error(), StdinName+":3:2 ") || !strings.Contains(err.Error(), "decimal comma") {
		t.Errorf("error after a preamble: %v", err)
	}
}

// densityQueries writes the query file q.csv in dir (queryCSV) for a 2-D
// density synopsis and returns the synopsis, the file's results evaluated
// all at once and the file's bytes.
func densityQueries(t *testing.T, dir, header string, rows int, row func(i int) string) (*synopsis.Verified, []byte, []byte) {
	t.Helper()
	v := openSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}}))
	path := queryCSV(t, dir, "q.csv", header, rows, row)
	want, err := evalAllAtOnce(v, path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return v, want, data
}
