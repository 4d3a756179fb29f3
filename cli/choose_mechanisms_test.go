package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestChooseMechanismFlags: the release flags printed for each kind of
// chosen candidate (release.ApplyCandidate's meaning): h and k alone at the
// request's noise; --noise (and --delta) for another noise kind; --mechanism
// for a peer, pure ε-DP ones at Laplace noise, the GP with its grid k and δ.
func TestChooseMechanismFlags(t *testing.T) {
	gauss := release.Request{Features: []string{"a", "b"}, Privacy: mechanism.Params{Epsilon: 1, Delta: 1e-6, Noise: mechanism.NoiseGaussian, H: 1}}
	pure := release.Request{Features: []string{"a", "b"}, Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, H: 1}}
	for _, tc := range []struct {
		req          release.Request
		c            release.Candidate
		chosen, uses string
	}{
		{pure, release.Candidate{H: 2, K: 5}, "h = 2, k = 5", "--h 2 --k 5"},
		{gauss, release.Candidate{H: 2, K: 5}, "h = 2, k = 5", "--h 2 --k 5"},
		{gauss, release.Candidate{H: 1, K: 3, Noise: mechanism.NoiseLaplace}, "h = 1, k = 3, noise = laplace", "--h 1 --k 3 --noise laplace"},
		{pure, release.Candidate{Mechanism: synopsis.MechanismOutputPerturbation},
			"mechanism output-perturbation, noise = laplace", "--mechanism output-perturbation --noise laplace"},
		{gauss, release.Candidate{Mechanism: synopsis.MechanismOutputPerturbation},
			"mechanism output-perturbation, noise = laplace", "--mechanism output-perturbation --noise laplace"},
		{pure, release.Candidate{Mechanism: synopsis.MechanismTrig, H: 1, K: 8},
			"mechanism " + synopsis.MechanismTrig + ", k = 8, noise = laplace", "--mechanism " + synopsis.MechanismTrig + " --k 8 --noise laplace"},
		{gauss, release.Candidate{Mechanism: synopsis.MechanismGP, H: 1, K: 8},
			"mechanism " + synopsis.MechanismGP + ", k = 8, noise = gaussian", "--mechanism " + synopsis.MechanismGP + " --k 8 --noise gaussian --delta 1e-06"},
	} {
		chosen, use := chosenMechanism(tc.req, tc.c)
		if chosen != tc.chosen || use != tc.uses {
			t.Errorf("%s at %s: %q, %q; want %q, %q", tc.c, tc.req.Privacy.Noise, chosen, use, tc.chosen, tc.uses)
		}
	}
}

// TestChooseMechanisms: `choose --mechanisms` for logistic regression at
// (ε, δ) prints the chosen mechanism and the release flags, charges one
// validation entry of --epsilon-select, and the printed flags release.
func TestChooseMechanisms(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	ledgerPath := w.path("ledger.jsonl")
	base := []string{"--data", filepath.Join(w.demo, dataset.DemoTwoClass2DFile), "--features", "x1,x2",
		"--label", "label", "--classes", "0,1", "--bounds", "x1=0:1,x2=0:1", "--learner", "logistic",
		"--epsilon", "1", "--ledger", ledgerPath, "--allow-over-budget"}
	r := te.mustRun(t, append(append([]string{"choose"}, base...), "--noise", "gaussian", "--delta", "1e-6",
		"--epsilon-select", "0.5", "--mechanisms", "--parameters")...)
	if !regexp.MustCompile(`chosen: (h = \d, k = \d+(, noise = laplace)?|mechanism output-perturbation, noise = laplace), C = `).MatchString(r.stdout) {
		t.Fatalf("no mechanism choice in stdout:\n%s", r.stdout)
	}
	m := regexp.MustCompile(`release with: bernstein release … --epsilon 1 (.*)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no release flags in stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "ε spent by this choice: 0.5 (ledger entry ") {
		t.Errorf("stdout does not report the spend of 0.5:\n%s", r.stdout)
	}
	flags := strings.Fields(m[1])
	if !strings.Contains(m[1], "--noise") {
		flags = append(flags, "--noise", "gaussian", "--delta", "1e-6") // the request's noise
	}
	out := w.path("chosen.synopsis")
	rel := append(append(append([]string{"release"}, base...), flags...), "--title", "chosen", "--passphrase-file", w.pass, "--out", out)
	te.mustRun(t, rel...)
	want := synopsis.MechanismBernstein
	if i := slices.Index(flags, "--mechanism"); i >= 0 {
		want = flags[i+1]
	}
	if r := te.mustRun(t, "inspect", out); !regexp.MustCompile(`(?m)^\s*mechanism\b.*` + regexp.QuoteMeta(want)).MatchString(r.stdout) {
		t.Errorf("inspect of the release does not name the chosen mechanism %s:\n%s", want, r.stdout)
	}
}

// TestChooseMechanismsGeneralized: `choose --mechanisms` for a
// one-dimensional KDE compares Wang et al.'s trigonometric release too;
// its score sensitivity is more than twice the Bernstein candidates', so
// the choice says it selects by the generalized exponential mechanism
// (standard error, public quantities only), and the printed flags release
// whichever candidate was chosen.
func TestChooseMechanismsGeneralized(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	data := w.path("bimodal.csv")
	var b strings.Builder
	b.WriteString("x\n")
	for i := range 600 {
		// two modes, at 2.5 and 7.5, spread evenly (public test records)
		mode := 2.5 + 5*float64(i%2)
		fmt.Fprintf(&b, "%.4f\n", mode+1.2*(float64(i%97)/96-0.5))
	}
	if err := os.WriteFile(data, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"--data", data, "--features", "x", "--bounds", "x=0:10", "--learner", "kde", "--param", "bandwidth=0.05",
		"--epsilon", "2", "--ledger", w.path("ledger.jsonl"), "--allow-over-budget"}
	r := te.mustRun(t, append(append([]string{"choose"}, base...), "--epsilon-select", "1", "--mechanisms")...)
	if !strings.Contains(r.stderr, "generalized exponential mechanism") || !strings.Contains(r.stderr, "of every Bernstein setting's") {
		t.Fatalf("the generalized selection is not stated:\n%s", r.stderr)
	}
	if strings.Contains(r.stdout, "β") {
		t.Errorf("standard output states β (it goes to standard error with the other selection figures):\n%s", r.stdout)
	}
	m := regexp.MustCompile(`release with: bernstein release … --epsilon 2 (.*)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no release flags in stdout:\n%s", r.stdout)
	}
	flags := strings.Fields(m[1])
	out := w.path("chosen.synopsis")
	te.mustRun(t, append(append(append([]string{"release"}, base...), flags...), "--title", "chosen", "--passphrase-file", w.pass, "--out", out)...)
	want := synopsis.MechanismBernstein
	if i := slices.Index(flags, "--mechanism"); i >= 0 {
		want = flags[i+1]
	}
	if r := te.mustRun(t, "inspect", out); !regexp.MustCompile(`(?m)^\s*mechanism\b.*` + regexp.QuoteMeta(want)).MatchString(r.stdout) {
		t.Errorf("inspect of the release does not name the chosen mechanism %s:\n%s", want, r.stdout)
	}
}
