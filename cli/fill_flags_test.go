package cli

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestReleaseDeclaredTextClasses is the command-line reproduction of issue
// 13 item 3: a label column with text values and a third value is no
// longer refused, a file where only one class occurs is released, and the
// synopsis's class_labels and fill rules are the declaration; the private
// fill count goes to standard error only.
func TestReleaseDeclaredTextClasses(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	for _, tc := range []struct {
		name, labels string
		filled       string
	}{
		{"three values", "no,yes,maybe,yes,no,yes,no,no", "0 values clipped, 1 filled (y: 1 filled)"},
		{"one class", "yes,yes,yes,yes,yes,yes,yes,yes", "0 values clipped, 0 filled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("x,y\n")
			for i, l := range strings.Split(tc.labels, ",") {
				b.WriteString([]string{"0.1", "0.4", "0.5", "0.9"}[i%4] + "," + l + "\n")
			}
			data := w.path(strings.ReplaceAll(tc.name, " ", "-") + ".csv")
			if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			out := w.path(strings.ReplaceAll(tc.name, " ", "-") + ".synopsis")
			r := te.mustRun(t, "release", "--data", data, "--features", "x", "--label", "y", "--classes", "no,yes",
				"--bounds", "x=0:1", "--learner", "naive-bayes", "--epsilon", "0.5", "--k", "3",
				"--passphrase-file", w.pass, "--out", out)
			if want := "private (not covered by ε): " + tc.filled + "\n"; !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q; want %q", r.stderr, want)
			}
			if strings.Contains(r.stdout, "private") || strings.Contains(r.stdout, "filled") || strings.Contains(r.stdout, "clipped") {
				t.Errorf("private counts on standard output: %q", r.stdout)
			}
			v, err := synopsis.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			f := v.File
			if !slices.Equal(f.Output.ClassLabels, []string{"no", "yes"}) || f.Learner.N != 8 ||
				len(f.Fill) != 2 || f.Fill[1] != (synopsis.FillRule{Column: "y", Class: "no"}) || *f.Fill[0].Value != 0.5 {
				t.Errorf("class_labels %q, n %d, fill %+v", f.Output.ClassLabels, f.Learner.N, f.Fill)
			}
			r = te.mustRun(t, "inspect", out)
			if want := "x → 0.5, y → class no (replacing missing or invalid values; every row kept)"; !strings.Contains(r.stdout, want) {
				t.Errorf("inspect lacks the fill rules %q:\n%s", want, r.stdout)
			}
		})
	}
}

// TestChoosePrivateCountsOnStderr: choose prints the private counts on
// standard error only.
func TestChoosePrivateCountsOnStderr(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	data := w.path("gaps.csv")
	var b strings.Builder
	b.WriteString("x\n")
	for i := range 60 {
		// A missing value of a one-column file is a quoted empty field: an
		// empty line is no CSV record at all.
		b.WriteString([]string{"0.2", `""`, "1.5", "0.7", "abc", "0.4"}[i%6] + "\n")
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := te.mustRun(t, "choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--fill", "x=0.3", "--learner", "kde",
		"--epsilon", "0.5", "--epsilon-select", "0.1", "--ledger", w.path("ledger.jsonl"))
	if want := "private (not covered by ε): 10 values clipped, 20 filled (x: 10 clipped, 20 filled)\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
	if strings.Contains(r.stdout, "filled") || strings.Contains(r.stdout, "clipped") {
		t.Errorf("private counts on standard output: %q", r.stdout)
	}
}
