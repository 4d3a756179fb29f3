package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestReleaseBudgetFollowsRecords is the reproduction of issue 13 item 6 on
// the command line: seven releases of ε 0.3 on the same records against a
// budget of 0.5 (the original file, rows reordered, one row added, a
// trailing blank line, CRLF line ends, a BOM, an extra unused column) all
// succeeded. Now only the first does; the others are refused with exit 4.
func TestReleaseBudgetFollowsRecords(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	orig, err := os.ReadFile(filepath.Join(w.demo, dataset.DemoKDE1DFile))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(orig), "\n")
	lines := strings.Split(text, "\n")
	header, rows := lines[0], lines[1:]
	reordered := slices.Clone(rows)
	slices.Reverse(reordered)
	extra := []string{"id," + header}
	for i, r := range rows {
		extra = append(extra, strings.Repeat("7", i%3+1)+","+r)
	}
	variants := []struct{ name, text string }{
		{"rows reordered", header + "\n" + strings.Join(reordered, "\n") + "\n"},
		{"one row added", text + "\n" + rows[0] + "\n"},
		{"trailing blank line", text + "\n\n"},
		{"CRLF", strings.ReplaceAll(text+"\n", "\n", "\r\n")},
		{"BOM", "\uFEFF" + text + "\n"},
		{"extra unused column", strings.Join(extra, "\n") + "\n"},
	}
	release := func(data, out string, extraArgs ...string) cliResult {
		args := w.kdeRelease(w.path(out), extraArgs...)
		args[slices.Index(args, "--data")+1] = data
		args[slices.Index(args, "--epsilon")+1] = "0.3"
		return te.run(args...)
	}
	first := release(filepath.Join(w.demo, dataset.DemoKDE1DFile), "first.synopsis", "--budget", "0.5")
	if first.code != 0 {
		t.Fatalf("first release: exit %d\n%s", first.code, first.stderr)
	}
	if !strings.Contains(first.stderr, "new to the ledger") {
		t.Errorf("first release: no dataset finding on stderr:\n%s", first.stderr)
	}
	for i, v := range variants {
		data := w.path("variant.csv")
		if err := os.WriteFile(data, []byte(v.text), 0o600); err != nil {
			t.Fatal(err)
		}
		r := release(data, "variant.synopsis")
		if r.code != exitBudget || !strings.Contains(r.stderr, "of its ε budget of 0.5") {
			t.Errorf("%d %s: exit %d, want %d (budget 0.5 refusing)\n%s", i, v.name, r.code, exitBudget, r.stderr)
		}
		if v.name == "one row added" && !strings.Contains(r.stderr, "of these rows are also in ledger dataset") {
			t.Errorf("%s: the near-duplicate is not named on stderr:\n%s", v.name, r.stderr)
		}
		if strings.Contains(r.stdout, "rows are also") {
			t.Errorf("%s: the finding went to standard output", v.name)
		}
	}
	// Declared a different population, the near-duplicate gets its own budget.
	data := w.path("added.csv")
	if err := os.WriteFile(data, []byte(variants[1].text), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := release(data, "added.synopsis", "--different-population"); r.code != 0 || !strings.Contains(r.stderr, "declared a different population") {
		t.Errorf("--different-population: exit %d\n%s", r.code, r.stderr)
	}
	if r := te.mustRun(t, "ledger", "--data", data); !strings.Contains(r.stdout, "declared a different population from") {
		t.Errorf("ledger --data does not show the declaration:\n%s", r.stdout)
	}
}
