package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

func TestChooseCommand(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	ledgerPath := w.path("ledger.jsonl")
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	args := []string{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde",
		"--param", "bandwidth=0.05", "--epsilon", "0.5", "--epsilon-select", "0.1", "--ledger", ledgerPath}
	r := te.mustRun(t, args...)
	m := regexp.MustCompile(`chosen: h = ([1-5]), k = (\d+)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no choice in stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "ε spent by this choice: 0.1 (ledger entry ") || !strings.Contains(r.stdout, "ε 0.1 of budget 1") {
		t.Errorf("stdout does not report the spend:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "--h "+m[1]+" --k "+m[2]) {
		t.Errorf("stdout does not show the release flags:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout+r.stderr, "score =") {
		t.Errorf("a score was printed:\n%s%s", r.stdout, r.stderr)
	}
	l, err := ledger.Open(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.ReadCSV(data, dataset.CSVOptions{Columns: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := ledger.IdentifyDataset(ds, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	entries := l.Entries(id.Records)
	if len(entries) != 1 || entries[0].Kind != ledger.KindValidation || entries[0].Epsilon != 0.1 {
		t.Fatalf("ledger entries %+v, want one validation entry of ε 0.1", entries)
	}
	if !strings.Contains(r.stdout, "ledger entry "+entries[0].ID) {
		t.Errorf("stdout does not name entry %s:\n%s", entries[0].ID, r.stdout)
	}

	// Over budget: exit 4, nothing recorded.
	over := append(append([]string{}, args[:len(args)-4]...), "--epsilon-select", "0.95", "--ledger", ledgerPath)
	if r := te.run(over...); r.code != exitBudget {
		t.Errorf("over budget: exit %d, want %d\n%s", r.code, exitBudget, r.stderr)
	}
	if err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	if n := len(l.Entries(id.Records)); n != 1 {
		t.Errorf("%d entries after a refused choice, want 1", n)
	}

	// Usage errors.
	for _, bad := range [][]string{
		{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde", "--epsilon", "0.5"},
		{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde", "--epsilon-select", "0.1"},
		{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "nope", "--epsilon", "1", "--epsilon-select", "0.1"},
	} {
		if r := te.run(bad...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, r.code, exitUsage)
		}
	}
}

// TestChooseParameters: with --parameters the SVM's C and σ are chosen
// with h and k; the output names them and gives the release flags, the
// ledger entry lists every candidate's parameters, and no score is printed.
func TestChooseParameters(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	ledgerPath := w.path("ledger.jsonl")
	r := te.mustRun(t, "choose", "--data", filepath.Join(w.demo, dataset.DemoTwoClass2DFile), "--features", "x1,x2",
		"--label", "label", "--classes", "0,1", "--bounds", "x1=0:1,x2=0:1", "--learner", "svm",
		"--epsilon", "1", "--epsilon-select", "0.5", "--parameters", "--ledger", ledgerPath)
	m := regexp.MustCompile(`chosen: h = [1-5], k = \d+, C = ([0-9.e-]+), sigma = ([0-9.e-]+)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no parameter choice in stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "--param C="+m[1]+" --param sigma="+m[2]+"\n") {
		t.Errorf("stdout does not give the release flags for C and sigma:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "(balanced-accuracy score)") || strings.Contains(r.stderr, "score score") || strings.Contains(r.stdout+r.stderr, "score =") {
		t.Errorf("score kind missing or a score printed:\n%s%s", r.stdout, r.stderr)
	}
	l, err := ledger.Open(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range l.Entries("") {
		if e.Kind == ledger.KindValidation {
			found = len(e.Params["candidate_C"]) > 1 && len(e.Params["candidate_C"]) == len(e.Params["candidate_sigma"])
		}
	}
	if !found {
		t.Error("no validation entry listing candidate_C and candidate_sigma")
	}
}
