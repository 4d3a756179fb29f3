package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// openDefaultLedger opens the workspace's default ledger.
func openDefaultLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	p, err := ledger.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestReleaseBudgetAfterPassphrase reproduces issue 14 item 3: release
// --budget with a wrong passphrase recorded the budget entry. Every input,
// the passphrase included, is checked before the first ledger write.
func TestReleaseBudgetAfterPassphrase(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te) // an encrypted key: the passphrase matters
	wrong := w.path("wrong-pass")
	if err := os.WriteFile(wrong, []byte("not the passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"--budget", "3"}, {"--delta-budget", "1e-7"}, {"--budget", "3", "--delta-budget", "1e-7"}} {
		args := append(w.kdeRelease(w.path("a.synopsis"), flags...), "--passphrase-file", wrong)
		r := te.run(args...)
		if r.code != exitRuntime || !strings.Contains(r.stderr, "wrong passphrase") {
			t.Fatalf("%v with a wrong passphrase: exit %d %q", flags, r.code, r.stderr)
		}
		if n := len(openDefaultLedger(t).Entries("")); n != 0 {
			t.Errorf("%v with a wrong passphrase: the ledger has %d entries, want none", flags, n)
		}
	}
	if _, err := os.Stat(w.path("a.synopsis")); !errors.Is(err, os.ErrNotExist) {
		t.Error("release with a wrong passphrase wrote a synopsis")
	}
	// The right passphrase records the budget, then the release.
	te.mustRun(t, w.kdeRelease(w.path("a.synopsis"), "--budget", "3")...)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	fileHash, err := dataset.HashFile(data)
	if err != nil {
		t.Fatal(err)
	}
	l := openDefaultLedger(t)
	hash := ledger.DatasetsOfFile(l, fileHash)[0] // the ledger dataset of the records
	if b := l.Budget(hash); b != 3 {
		t.Errorf("budget = %v after a release with --budget 3", b)
	}
	if es := l.Entries(hash); len(es) != 2 || es[0].Kind != ledger.KindBudget || es[1].Kind != ledger.KindRelease {
		t.Errorf("entries = %+v, want budget then release", es)
	}
}

// TestLedgerShowsOverspend reproduces issue 14 item 4: an over-budget
// dataset showed "0 left".
func TestLedgerShowsOverspend(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	te.mustRun(t, w.kdeRelease(w.path("a.synopsis"), "--epsilon", "0.8")...)
	te.mustRun(t, w.kdeRelease(w.path("b.synopsis"), "--epsilon", "0.5", "--allow-over-budget")...)
	r := te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "spent ε 1.3 of budget ε 1; 0.3 over budget") || strings.Contains(r.stdout, "0 left") {
		t.Errorf("ledger --data:\n%s", r.stdout)
	}
	r = te.mustRun(t, "ledger")
	if !strings.Contains(r.stdout, "0.3 over budget") {
		t.Errorf("ledger summary:\n%s", r.stdout)
	}
}

// TestReleaseDeltaRefusals: issue 13 item 1. Three Gaussian releases at
// ε = 1e-9, δ = 0.999 all went through; the first is now refused (δ ≥ 1/n),
// with an error naming δ and 1/n, and nothing is recorded. The δ budget
// refuses like the ε budget, with the same --allow-over-budget escape.
func TestReleaseDeltaRefusals(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	gauss := func(out, eps, delta string, extra ...string) []string {
		return w.kdeRelease(w.path(out), append([]string{"--epsilon", eps, "--noise", "gaussian", "--delta", delta}, extra...)...)
	}
	for i := range 3 {
		r := te.run(gauss("g.synopsis", "1e-9", "0.999")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "δ = 0.999 is not below 1/n") || !strings.Contains(r.stderr, "n = ") {
			t.Fatalf("release %d at δ = 0.999: exit %d %q", i+1, r.code, r.stderr)
		}
	}
	if n := len(openDefaultLedger(t).Entries("")); n != 0 {
		t.Fatalf("refused releases recorded %d entries", n)
	}
	// δ budget (default 1e-6): 6e-7 fits, another 6e-7 does not. The
	// releases are (ε, δ)-only (Laplace-approx): Gaussian releases have a
	// zCDP account, in which their δ does not add (docs/ledger.md, "zCDP
	// accounting").
	approx := func(out, eps, delta string, extra ...string) []string {
		return w.kdeRelease(w.path(out), append([]string{"--epsilon", eps, "--noise", "laplace-approx", "--delta", delta}, extra...)...)
	}
	te.mustRun(t, approx("a.synopsis", "0.1", "6e-7")...)
	r := te.run(approx("b.synopsis", "0.1", "6e-7")...)
	for _, want := range []string{"δ = 6e-07", "spent δ 6e-07", "δ budget of 1e-06", "asks δ 6e-07", "at most δ 4e-07 would fit", "--allow-over-budget"} {
		if r.code != exitBudget || !strings.Contains(r.stderr, want) {
			t.Errorf("δ over budget: exit %d, stderr %q lacks %q", r.code, r.stderr, want)
		}
	}
	r = te.mustRun(t, approx("b.synopsis", "0.1", "6e-7", "--allow-over-budget")...)
	if !strings.Contains(r.stdout, "exceeded the dataset's budget") {
		t.Errorf("δ over budget, allowed: %q", r.stdout)
	}
	r = te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "spent δ 1.2e-06 of budget δ 1e-06; 2e-07 over budget") || !strings.Contains(r.stdout, "OVER BUDGET") {
		t.Errorf("ledger after a δ overspend:\n%s", r.stdout)
	}
	// Raising the δ budget is recorded and lets the release through.
	te.mustRun(t, "ledger", "--data", data, "--delta-budget", "1e-5")
	te.mustRun(t, approx("c.synopsis", "0.1", "6e-7")...)
	r = te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "δ budget set to 1e-05") || !strings.Contains(r.stdout, "spent δ 1.8e-06 of budget δ 1e-05") {
		t.Errorf("ledger after --delta-budget:\n%s", r.stdout)
	}
}

// TestLedgerShowsZCDPAccount: issue 19 item 3. 'ledger' shows both
// accounts — basic composition and zCDP (ρ, converted at the δ budget) —
// names the one in force, and says when Gaussian releases accounted in
// zCDP are the better choice for what is left.
func TestLedgerShowsZCDPAccount(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csv, []byte("x\n0.1\n0.2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hash, err := dataset.HashFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ledger.jsonl")
	l, err := ledger.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for range 15 {
		if _, err := l.Reserve(ledger.Entry{DatasetHash: hash, Epsilon: 0.1, Delta: 1e-8, Noise: "gaussian"}, false); err != nil {
			t.Fatal(err)
		}
	}
	te := newTestEnv()
	r := te.mustRun(t, "ledger", "--ledger", p, "--data", csv)
	for _, want := range []string{"spent ε 1.5 of budget ε 1; 0.5 over budget", "zCDP account: ρ ", "at the δ budget 1e-06",
		"in force: zCDP (its ε is the smaller), 0.5", "Gaussian releases (--noise gaussian) accounted in zCDP spend less",
		"The ε = 0.5"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ledger --data lacks %q:\n%s", want, r.stdout)
		}
	}
	r = te.mustRun(t, "ledger", "--ledger", p)
	if !strings.Contains(r.stdout, "ε zCDP") || !strings.Contains(r.stdout, " *") {
		t.Errorf("ledger lacks the zCDP column, starred in force:\n%s", r.stdout)
	}
}

// TestReleaseAdmittedByZCDP: issue 19 item 3 through the CLI. Four
// Gaussian releases of ε 0.3 (δ 1e-8) on a budget of ε 1 exceed it by basic
// composition (1.2) but not in zCDP (ε ≈ 0.6 at the δ budget): release's
// check before the passphrase prompt must not refuse what the ledger
// admits, and the fourth is recorded as admitted by the zCDP account.
func TestReleaseAdmittedByZCDP(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	te.mustRun(t, "ledger", "--data", data, "--budget", "1")
	for i := range 4 {
		out := "g" + strconv.Itoa(i) + ".synopsis"
		te.mustRun(t, w.kdeRelease(w.path(out), "--epsilon", "0.3", "--noise", "gaussian", "--delta", "1e-8")...)
	}
	entries := openDefaultLedger(t).Entries("")
	last := entries[len(entries)-1]
	if last.AdmittedBy != ledger.AdmittedByZCDP {
		t.Errorf("fourth Gaussian release: admitted_by %q, want zcdp", last.AdmittedBy)
	}
	// A Laplace release of ε 0.3 has no zCDP saving left to use: refused
	// before the passphrase, by both accounts.
	r := te.run(w.kdeRelease(w.path("l.synopsis"), "--epsilon", "0.3")...)
	if r.code != exitBudget || !strings.Contains(r.stderr, "zCDP") {
		t.Errorf("Laplace release past both accounts: exit %d %q", r.code, r.stderr)
	}
}

// TestLedgerBudgetSetAsideAndHardLink (tip review, issue 14): a budget
// entry cut from the end of the ledger is repaired with the dataset's
// budgets set aside (shown as such, releases refused saying so) until the
// curator sets them again; a hard link to the ledger is warned about and
// refuses releases.
func TestLedgerBudgetSetAsideAndHardLink(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	te.mustRun(t, w.kdeRelease(w.path("a.synopsis"), "--epsilon", "0.3")...)
	te.mustRun(t, "ledger", "--data", data, "--budget", "0.4")
	p := openDefaultLedger(t).Path()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cut := b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1] // the budget line cut at a line end
	if err := os.WriteFile(p, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	te.mustRun(t, "ledger", "--repair")
	r := te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "budget set aside by a repair") {
		t.Errorf("ledger --data after the repair:\n%s", r.stdout)
	}
	r = te.run(w.kdeRelease(w.path("b.synopsis"), "--epsilon", "0.05")...)
	if r.code != exitBudget || !strings.Contains(r.stderr, "set aside") {
		t.Errorf("a release after the repair: exit %d, %q; want refused, the budget set aside", r.code, r.stderr)
	}
	te.mustRun(t, "ledger", "--data", data, "--budget", "0.4", "--delta-budget", "1e-6")
	te.mustRun(t, w.kdeRelease(w.path("b.synopsis"), "--epsilon", "0.05")...)

	if err := os.Link(p, p+".hard"); err != nil {
		t.Fatal(err)
	}
	r = te.mustRun(t, "ledger")
	if !strings.Contains(r.stderr, "2 hard links") {
		t.Errorf("ledger with a hard link: stderr %q", r.stderr)
	}
	r = te.run(w.kdeRelease(w.path("c.synopsis"), "--epsilon", "0.01")...)
	if r.code == 0 || !strings.Contains(r.stderr, "hard links") {
		t.Errorf("a release through a hard-linked ledger: exit %d, %q", r.code, r.stderr)
	}
}

// TestReleaseLedgerRefusalsBeforePassphrase: a ledger cut at its end (its
// tip file shows it) or reached through a hard link refuses every release;
// release says so before it asks for (and checks) the key's passphrase, as
// it does for a damaged or over-budget ledger.
func TestReleaseLedgerRefusalsBeforePassphrase(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te) // an encrypted key: a wrong passphrase would be refused
	wrong := w.path("wrong-pass")
	if err := os.WriteFile(wrong, []byte("not the passphrase\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	te.mustRun(t, w.kdeRelease(w.path("a.synopsis"), "--epsilon", "0.1")...)
	te.mustRun(t, w.kdeRelease(w.path("b.synopsis"), "--epsilon", "0.1")...)
	p, err := ledger.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cut := b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
	if err := os.WriteFile(p, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	r := te.run(w.kdeRelease(w.path("c.synopsis"), "--passphrase-file", wrong)...)
	if r.code == 0 || !strings.Contains(lastLine(r.stderr), "tip file") {
		t.Errorf("release on a ledger cut at its end, wrong passphrase: exit %d, %q; want the tip refusal, not the passphrase's", r.code, r.stderr)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil { // restored: the tip's line is back
		t.Fatal(err)
	}
	if err := os.Link(p, p+".hard"); err != nil {
		t.Fatal(err)
	}
	r = te.run(w.kdeRelease(w.path("c.synopsis"), "--passphrase-file", wrong)...)
	if r.code == 0 || !strings.Contains(lastLine(r.stderr), "hard links") {
		t.Errorf("release through a hard-linked ledger, wrong passphrase: exit %d, %q; want the hard-link refusal", r.code, r.stderr)
	}
}

// lastLine is the last non-empty line of s (a command's error message).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
