package cli

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeTargetCSV writes n records of x in [0, 1] (a smooth bump, public
// test data) and returns the path.
func writeTargetCSV(t *testing.T, w *workspace, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("x\n")
	for i := range n {
		u := (float64(i) + 0.5) / float64(n)
		fmt.Fprintf(&b, "%.6f\n", 0.5+0.2*math.Sin(math.Pi*(u-0.5))) // concentrated in [0.3, 0.7]
	}
	path := w.path("bump.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestChooseTargetError(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	data := writeTargetCSV(t, w, 300)
	base := []string{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde", "--param", "bandwidth=0.1"}
	proposal := regexp.MustCompile(`proposal: ε = ([0-9.e+-]+), laplace noise, h = ([1-5]), k = (\d+) \((the automatic k|the k with the least simulated error) at this ε\)`)
	for _, tc := range []struct {
		name             string
		args             []string
		stdout, stderr   []string // must appear
		notStdout        []string
		wantProposal     bool
		proposalOnStdout bool
	}{
		{"stand-in, plot units", []string{"--target-error", "0.5"},
			[]string{"target: sup-norm error of 95% of the simulated releases ≤ 0.5 (density)", "% of the public range",
				"Monte-Carlo error of the 95% quantile", "what ε = ", "more or less likely", "release with: bernstein release … --epsilon ",
				"public stand-in: a uniform sample of n = 300 records", "400 seeded simulated releases per setting"},
			nil, nil, true, true},
		{"stand-in, share of the range", []string{"--target-error", "10%"},
			[]string{"≤ 0.3989 (density), 10% of the public range"}, nil, nil, true, true},
		{"private data: the numbers go to standard error", []string{"--target-error", "0.5", "--target-data", "private"},
			[]string{"proposal on standard error: it is computed from the private records"},
			[]string{"private (not covered by ε)", "simulated on the private data (curator only; from the private records, not covered by ε)"},
			[]string{"ε = ", "predicted", "density"}, true, false},
		{"not reachable", []string{"--target-error", "1e-9"},
			[]string{"not reachable within ε ≤ 100: the best reachable error is ", "what would help"}, nil, []string{"proposal:"}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := te.mustRun(t, append(append([]string{}, base...), tc.args...)...)
			for _, s := range tc.stdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
			for _, s := range tc.notStdout {
				if strings.Contains(r.stdout, s) {
					t.Errorf("stdout has %q (private):\n%s", s, r.stdout)
				}
			}
			out := r.stdout
			if !tc.proposalOnStdout {
				out = r.stderr
			}
			m := proposal.FindStringSubmatch(out)
			if (m != nil) != tc.wantProposal {
				t.Fatalf("proposal found %v, want %v:\n%s", m != nil, tc.wantProposal, out)
			}
			if m != nil {
				eps, err := strconv.ParseFloat(m[1], 64)
				if err != nil || eps < 1e-3 || eps > 100 {
					t.Errorf("ε = %q outside the search range", m[1])
				}
				// The k shown is the k applied: "auto" for the automatic
				// k, else the searched k itself.
				k := "auto"
				if m[4] != "the automatic k" {
					k = m[3]
				}
				if !strings.Contains(out, "--epsilon "+m[1]+" --noise laplace --h "+m[2]+" --k "+k+"\n") {
					t.Errorf("release flags do not match the proposal (--k %s):\n%s", k, out)
				}
			}
		})
	}
}

func TestChooseTargetErrorRefuses(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	data := writeTargetCSV(t, w, 50)
	base := []string{"choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target-error", "0"}, "--target-error \"0\": must be a positive number"},
		{[]string{"--target-error", "abc%"}, "must be a positive number, or a percentage"},
		{[]string{"--target-error", "0.1", "--epsilon", "1"}, "--target-error finds ε: leave out --epsilon"},
		{[]string{"--target-error", "0.1", "--epsilon-select", "0.1"}, "spends nothing"},
		{[]string{"--target-error", "0.1", "--target-data", w.path("missing.csv")}, "missing.csv"},
	} {
		r := te.run(append(append([]string{}, base...), tc.args...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// A classifier's target is the share of records on which the released
// classifier may disagree with the non-private one.
func TestChooseTargetErrorClassifier(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 200 {
		x := (float64(i) + 0.5) / 200
		y := "no"
		if x > 0.4 {
			y = "yes"
		}
		fmt.Fprintf(&b, "%.4f,%s\n", x, y)
	}
	data := w.path("classes.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := te.mustRun(t, "choose", "--data", data, "--features", "x", "--label", "y", "--classes", "no,yes", "--bounds", "x=0:1",
		"--learner", "naive-bayes", "--target-error", "10%", "--target-data", "private")
	for _, want := range []string{"target: disagreement with the non-private classifier in 95% of the simulated releases ≤ 0.1 of the records (10%)",
		"of the records", "simulated on the private data"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "of the records") {
		t.Errorf("private numbers on stdout:\n%s", r.stdout)
	}
}

// TestChooseTargetErrorPeer: the published peers are candidates of the
// search, each simulated as it would be released (Hall et al.'s GP on the
// grid of its k, interpolated) and built at the k of every ε tried. On
// 1000 records of a smooth bump (public test data, searched as the
// private data) with bandwidth 0.2 at δ = 10⁻⁶, the GP reaches a sup-norm
// error of 0.25 at a smaller ε than every Bernstein setting (deterministic:
// seeded simulations): the proposal names it with its k, stays within its
// theorem (ε ≤ 1), and the release flags select it at that k.
func TestChooseTargetErrorPeer(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	data := writeTargetCSV(t, w, 1000)
	r := te.mustRun(t, "choose", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde", "--param", "bandwidth=0.2",
		"--noise", "gaussian", "--delta", "1e-6", "--target-error", "0.25", "--target-data", "private")
	m := regexp.MustCompile(`proposal: ε = ([0-9.e+-]+), mechanism hall-gp \(Hall et al\. GP[^)]*\)\), gaussian noise, δ = 1e-06, k = (\d+)\n`).
		FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no GP proposal:\n%s", r.stderr)
	}
	if eps, err := strconv.ParseFloat(m[1], 64); err != nil || eps > 1 {
		t.Errorf("GP proposed at ε = %s: beyond its theorem (ε ≤ 1)", m[1])
	}
	if want := "release with: bernstein release … --mechanism hall-gp --epsilon " + m[1] + " --noise gaussian --delta 1e-06 --k " + m[2] + "\n"; !strings.Contains(r.stderr, want) {
		t.Errorf("release flags do not select the GP: want %q in\n%s", want, r.stderr)
	}
}
