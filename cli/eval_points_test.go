package cli

import (
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalPointsFixture releases the KDE demo (x in [0, 1]) and returns the
// workspace, the environment and the synopsis path.
func evalPointsFixture(t *testing.T) (*workspace, *testEnv, string) {
	t.Helper()
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	out := w.path("kde.synopsis")
	te.mustRun(t, w.kdeRelease(out)...)
	return w, te, out
}

// TestEvalPointsInvalidRowsByLine: invalid rows of a points file are named
// by their line in the file (the header is line 1), in the wording the
// viewer uses, and the message points to --skip-invalid, which exists; no
// message points to an option eval does not have (issue 18 item 3).
func TestEvalPointsInvalidRowsByLine(t *testing.T) {
	w, te, syn := evalPointsFixture(t)
	q := w.path("q.csv")
	if err := os.WriteFile(q, []byte("id,x\na,0.5\nb,1.7\nc,abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := te.run("eval", syn, "--points", q)
	want := q + `:3:2 (column "x"): 1.7 is outside the public bounds [0, 1]; the release says nothing there; 2 rows cannot be evaluated (lines 3, 4); fix the file, or give --skip-invalid to evaluate the other rows`
	if r.code != exitRuntime || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want\n%s", r.code, r.stdout, r.stderr, want)
	}
	for _, nowhere := range []string{"drop", "fill"} {
		if strings.Contains(r.stderr, nowhere) {
			t.Errorf("the message points to a %s option eval does not have: %q", nowhere, r.stderr)
		}
	}
	if h := te.run("help", "eval"); !strings.Contains(h.stdout+h.stderr, "--skip-invalid") {
		t.Error("eval has no --skip-invalid flag")
	}
}

// TestEvalPointsSkipInvalid: --skip-invalid evaluates the other rows and
// reports on standard error how many rows it skipped and their lines.
func TestEvalPointsSkipInvalid(t *testing.T) {
	w, te, syn := evalPointsFixture(t)
	q := w.path("q.csv")
	if err := os.WriteFile(q, []byte("id,x\na,0.5\nb,1.7\n\nc,abc\nd,0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := te.mustRun(t, "eval", syn, "--points", q, "--skip-invalid")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "0.5" || rows[2][0] != "0.25" {
		t.Errorf("rows %v, want the points 0.5 and 0.25", rows)
	}
	if want := "skipped 2 invalid rows (lines 3, 5); first: " + q + `:3:2 (column "x"): 1.7 is outside`; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q lacks %q", r.stderr, want)
	}
	if r := te.run("eval", syn, "--at", "0.5", "--skip-invalid"); r.code != exitUsage {
		t.Errorf("--skip-invalid with --at: exit %d %q", r.code, r.stderr)
	}
}

// TestEvalPointsStdin: --points - reads the points from standard input (a
// pipe) and writes what the same file gives; errors name standard input.
func TestEvalPointsStdin(t *testing.T) {
	w, te, syn := evalPointsFixture(t)
	data := "x,id\n0,a\n0.25,b\n1,c\n"
	q := w.path("q.csv")
	if err := os.WriteFile(q, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	want := te.mustRun(t, "eval", syn, "--points", q).stdout
	te.Stdin = strings.NewReader(data)
	if got := te.mustRun(t, "eval", syn, "--points", "-").stdout; got != want {
		t.Errorf("--points -:\n%s\nwant\n%s", got, want)
	}
	te.Stdin = strings.NewReader("x\n0.5\nabc\n")
	if r := te.run("eval", syn, "--points", "-"); r.code != exitRuntime || !strings.Contains(r.stderr, dataset.StdinName+`:3:1 (column "x"): "abc" is not a number`) {
		t.Errorf("bad row on standard input: exit %d %q", r.code, r.stderr)
	}
}

// TestEvalClamp: --clamp keeps every value within the public output range,
// adds the column clamped, and says how many values it moved; without it
// the output is unchanged (issue 18 item 10).
func TestEvalClamp(t *testing.T) {
	w, te, syn := evalPointsFixture(t)
	var b strings.Builder
	b.WriteString("x\n")
	for i := range 101 {
		b.WriteString(strconv.FormatFloat(float64(i)/100, 'g', -1, 64) + "\n")
	}
	q := w.path("q.csv")
	if err := os.WriteFile(q, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(syn, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := v.File.Output.Range[0], v.File.Output.Range[1]
	plain, err := csv.NewReader(strings.NewReader(te.mustRun(t, "eval", syn, "--points", q).stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	r := te.mustRun(t, "eval", syn, "--points", q, "--clamp")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plain[0], ",") != "x,value,noise_std" || strings.Join(rows[0], ",") != "x,value,noise_std,clamped" {
		t.Fatalf("headers %v and %v", plain[0], rows[0])
	}
	moved := 0
	for i := 1; i < len(rows); i++ {
		raw, _ := strconv.ParseFloat(plain[i][1], 64)
		got, _ := strconv.ParseFloat(rows[i][1], 64)
		want := min(hi, max(lo, raw))
		if got != want || rows[i][3] != strconv.FormatBool(want != raw) {
			t.Errorf("row %d: %v, unclamped %v, range [%v, %v]", i, rows[i], raw, lo, hi)
		}
		if want != raw {
			moved++
		}
	}
	if moved > 0 && !strings.Contains(r.stderr, "clamped "+strconv.Itoa(moved)+" value(s)") {
		t.Errorf("stderr %q does not report %d clamped values", r.stderr, moved)
	}
}
