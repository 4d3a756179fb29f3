package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// preambleData is a dataset with a two-line preamble, a comment line, ';'
// and decimal commas (issue 17 item 2).
const preambleData = "Measurements, site 3\nexported 2026-11-24; 8 rows\n# x in cm\nx;y\n0,1;no\n0,4;yes\n0,5;no\n0,9;yes\n0,1;no\n0,4;yes\n0,5;no\n# one more\n0,9;yes\n"

// TestReleaseImportFlags: --header-row, --decimal-comma and --comment read
// a file with a preamble; without them the message points at the header
// row; invalid combinations are usage errors naming the rule.
func TestReleaseImportFlags(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := w.path("preamble.csv")
	if err := os.WriteFile(data, []byte(preambleData), 0o644); err != nil {
		t.Fatal(err)
	}
	release := func(extra ...string) cliResult {
		args := append([]string{"release", "--data", data, "--features", "x", "--label", "y", "--classes", "no,yes",
			"--bounds", "x=0:1", "--learner", "naive-bayes", "--epsilon", "0.5", "--k", "3",
			"--passphrase-file", w.pass, "--out", w.path("p.synopsis"), "--force"}, extra...)
		return te.run(args...)
	}
	r := release()
	if r.code != exitRuntime || !strings.Contains(r.stderr, `preamble.csv:1 (column "x"): no such column in the header (columns: "Measurements", "site 3"); is line 1 really the header? if the file starts with a preamble, set the header row with --header-row N`) {
		t.Errorf("defaults: exit %d, stderr %q", r.code, r.stderr)
	}
	r = release("--header-row", "4", "--decimal-comma", "--comment", "#")
	if r.code != exitOK || !strings.Contains(r.stderr, "0 values clipped, 0 filled") {
		t.Fatalf("with the layout flags: exit %d, stderr %q", r.code, r.stderr)
	}
	v, err := synopsis.Open(w.path("p.synopsis"), nil)
	if err != nil || v.File.Learner.N != 8 {
		t.Fatalf("synopsis: %v, n %d; want 8", err, v.File.Learner.N)
	}
	r = release("--header-row", "4", "--comment", "#", "--delimiter", ";")
	if r.code != exitOK || !strings.Contains(r.stderr, "1 filled") && !strings.Contains(r.stderr, "8 filled") {
		t.Errorf("without --decimal-comma the values are invalid and filled: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--delimiter", ",", "--decimal-comma"}, "delimiter ',' cannot be used with a decimal comma"},
		{[]string{"--delimiter", `"`}, `delimiter '"' cannot be a quote`},
		{[]string{"--delimiter", ";;"}, "want one character"},
		{[]string{"--comment", "//"}, `comment prefix "//": must be one character`},
		{[]string{"--header-row", "1001"}, "header row 1001: must be a line number from 1 to 1000"},
		{[]string{"--header-row", "x"}, "not a whole number"},
	} {
		if r := release(tc.args...); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, exitUsage, tc.want)
		}
	}
}

// TestEvalPointsImportFlags: a --points file with a preamble, ';' and
// decimal commas gives the plain file's results; the flags need --points.
func TestEvalPointsImportFlags(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	syn := w.path("p.synopsis")
	plainData := w.path("plain.csv")
	if err := os.WriteFile(plainData, []byte("x\n0.1\n0.4\n0.5\n0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	te.mustRun(t, "release", "--data", plainData, "--features", "x", "--bounds", "x=0:1", "--learner", "kde",
		"--epsilon", "0.5", "--k", "3", "--passphrase-file", w.pass, "--out", syn)
	plain, euro := w.path("q.csv"), w.path("q-euro.csv")
	if err := os.WriteFile(plain, []byte("x\n0.25\n0.75\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(euro, []byte("query points\n\nx\n0,25\n% skip\n0,75\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := te.mustRun(t, "eval", syn, "--points", plain).stdout
	got := te.mustRun(t, "eval", syn, "--points", euro, "--header-row", "3", "--decimal-comma", "--comment", "%").stdout
	if got != want || !strings.Contains(want, "0.25") {
		t.Errorf("eval with the layout flags:\n%s\nwant\n%s", got, want)
	}
	if r := te.run("eval", syn, "--at", "0.5", "--decimal-comma"); r.code != exitUsage || !strings.Contains(r.stderr, "apply to --points only") {
		t.Errorf("--decimal-comma with --at: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestReleaseNoHeader: scikit-learn's bundled CSVs have a count line and no
// header (walkthrough finding: they could not be read as shipped);
// --header-row 2 --no-header reads them with columns column1, column2, ….
func TestReleaseNoHeader(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := w.path("sklearn.csv")
	var b strings.Builder
	b.WriteString("12,2,benign,malignant\n")
	for i := range 12 {
		b.WriteString([]string{"0.1,0.2,0\n", "0.8,0.7,1\n", "0.4,0.5,0\n"}[i%3])
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := te.run("release", "--data", data, "--header-row", "2", "--no-header", "--features", "column1,column2", "--label", "column3",
		"--classes", "0,1", "--bounds", "column1=0:1,column2=0:1", "--learner", "naive-bayes", "--epsilon", "0.5", "--k", "3",
		"--passphrase-file", w.pass, "--out", w.path("s.synopsis"))
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	v, err := synopsis.Open(w.path("s.synopsis"), nil)
	if err != nil || v.File.Learner.N != 12 || v.File.Domain.Features[0].Name != "column1" {
		t.Fatalf("synopsis: %v, %+v", err, v)
	}
}
