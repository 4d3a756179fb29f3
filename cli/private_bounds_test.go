package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestReleaseBoundsPrivate: --bounds-private spends 5 % of the budget in a
// ledger entry of kind "bounds" before the release's own entry, prints the
// estimates, and the synopsis records both ends as estimated privately.
func TestReleaseBoundsPrivate(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	te := newTestEnv()
	out := w.path("private.synopsis")
	args := []string{"release", "--data", filepath.Join(w.demo, dataset.DemoKDE1DFile), "--features", "x",
		"--bounds-private", "x=-1:2", "--learner", "kde", "--param", "bandwidth=0.05", "--epsilon", "0.25",
		"--k", "12", "--h", "2", "--passphrase-file", w.pass, "--out", out}
	r := te.mustRun(t, args...)
	m := regexp.MustCompile(`bounds of x estimated privately: x=(\S+):(\S+) \(quantiles 0.01 and 0.99 of \[-1, 2\], ε 0.025 each\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no estimate in stdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "ε spent on bounds: 0.05 (ledger entry ") || !strings.Contains(r.stderr, "5% of the dataset's budget") {
		t.Errorf("the bounds spend is not reported:\n%s\n%s", r.stdout, r.stderr)
	}
	es := w.demoEntries(t)
	if len(es) != 2 || es[0].Kind != ledger.KindBounds || es[0].Epsilon != 0.05 || es[1].Kind != ledger.KindRelease {
		t.Fatalf("ledger %+v, want a bounds entry of ε 0.05, then the release", es)
	}
	b := openTrusted(t, out).Domain.Features[0]
	lo, _ := strconv.ParseFloat(m[1], 64)
	hi, _ := strconv.ParseFloat(m[2], 64)
	if b.LoSource != synopsis.EndPrivate || b.HiSource != synopsis.EndPrivate || b.Lo != lo || b.Hi != hi ||
		b.LoEstimate == nil || b.LoEstimate.Epsilon != 0.025 || b.FromData {
		t.Errorf("synopsis bound %+v, want both ends private at [%v, %v]", b, lo, hi)
	}
	if r := te.mustRun(t, "inspect", out); !strings.Contains(r.stdout, "(lower end estimated privately (ε 0.025, quantile 0.01 of [-1, 2]); upper end estimated privately (ε 0.025, quantile 0.99") {
		t.Errorf("inspect does not describe the private ends:\n%s", r.stdout)
	}
	// Accuracy is the mechanism's test (TestPrivateQuantileAccuracy); at
	// ε 0.025 per quantile only the range and the order are certain.
	if lo < -1 || hi > 2 || !(lo < hi) {
		t.Errorf("estimates [%v, %v] not ordered inside the public range [-1, 2]", lo, hi)
	}
}

func TestBoundsPrivateFlagErrors(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	te := newTestEnv()
	if err := os.WriteFile(w.path("exists.synopsis"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	base := []string{"release", "--data", data, "--features", "x", "--learner", "kde", "--epsilon", "0.25", "--out", w.path("o.synopsis")}
	for _, tc := range []struct {
		name  string
		extra []string
		want  string
	}{
		{"both", []string{"--bounds", "x=0:1", "--bounds-private", "x=0:10"}, "both --bounds and --bounds-private"},
		{"data", []string{"--bounds-private", "x=data"}, "give the wide public range"},
		{"unused", []string{"--bounds", "x=0:1", "--bounds-private", "y=0:1"}, "neither a feature"},
		{"quantiles alone", []string{"--bounds", "x=0:1", "--bounds-quantiles", "0.1:0.9"}, "apply only with --bounds-private"},
		{"bad quantiles", []string{"--bounds-private", "x=0:1", "--bounds-quantiles", "0.9:0.1"}, "0 < QLO < QHI < 1"},
		{"budget", []string{"--bounds-private", "x=0:1", "--budget", "2"}, "set the budget first"},
		{"over budget", []string{"--bounds-private", "x=0:1", "--bounds-epsilon", "0.8"}, "budget"},
		{"bad learner parameter", []string{"--bounds-private", "x=0:1", "--param", "bandwidth=-1"}, "bandwidth"},
		{"output exists", []string{"--bounds-private", "x=0:1", "--out", w.path("exists.synopsis")}, "exists"},
	} {
		r := te.run(append(append([]string{}, base...), tc.extra...)...)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error containing %q", tc.name, r.code, r.stderr, tc.want)
		}
	}
	if es := w.demoEntries(t); len(es) != 0 {
		t.Errorf("refused commands spent: %+v", es)
	}
}

// demoEntries returns the default ledger's entries for the 1-D KDE demo.
func (w *workspace) demoEntries(t *testing.T) []ledger.Entry {
	t.Helper()
	ds, err := dataset.ReadCSV(filepath.Join(w.demo, dataset.DemoKDE1DFile), dataset.CSVOptions{Columns: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open("")
	if err != nil {
		t.Fatal(err)
	}
	var es []ledger.Entry
	for _, h := range ledger.DatasetsOfFile(l, ds.Hash) {
		es = append(es, l.Entries(h)...)
	}
	return es
}

// openTrusted reads a synopsis signed by the default trusted key.
func openTrusted(t *testing.T, path string) *synopsis.File {
	t.Helper()
	signers, err := keys.DefaultAllowedSignersPath()
	if err != nil {
		t.Fatal(err)
	}
	trusted, err := keys.LoadAllowedSigners(signers)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(path, trusted)
	if err != nil {
		t.Fatal(err)
	}
	return v.File
}

// TestChooseBoundsPrivateThenRelease: 'choose --bounds-private' spends the
// bounds and the choice; the release reuses the estimates with
// --bounds-estimated/--bounds-entry without spending on bounds again, and
// the synopsis records them as estimated privately.
func TestChooseBoundsPrivateThenRelease(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	te := newTestEnv()
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	r := te.mustRun(t, "choose", "--data", data, "--features", "x", "--bounds-private", "x=-1:2", "--bounds-epsilon", "0.2",
		"--learner", "kde", "--param", "bandwidth=0.05", "--epsilon", "0.25", "--epsilon-select", "0.1")
	m := regexp.MustCompile(`reuse without spending again: (--bounds-estimated \S+ --bounds-entry \S+)\n`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no reuse hint in stdout:\n%s", r.stdout)
	}
	reuse := strings.Fields(m[1])
	out := w.path("reused.synopsis")
	args := append([]string{"release", "--data", data, "--features", "x", "--learner", "kde", "--param", "bandwidth=0.05",
		"--epsilon", "0.25", "--k", "12", "--h", "2", "--passphrase-file", w.pass, "--out", out}, reuse...)
	te.mustRun(t, args...)
	es := w.demoEntries(t)
	if len(es) != 3 || es[0].Kind != ledger.KindBounds || es[1].Kind != ledger.KindValidation || es[2].Kind != ledger.KindRelease {
		t.Fatalf("ledger %+v, want bounds, validation, release", es)
	}
	if b := openTrusted(t, out).Domain.Features[0]; b.LoSource != synopsis.EndPrivate || b.HiEstimate == nil || b.HiEstimate.Epsilon != 0.1 {
		t.Errorf("synopsis bound %+v, want private ends of ε 0.1", b)
	}
	// A wrong entry, or bounds outside the searched range, are refused.
	bad := append(args[:len(args)-4:len(args)-4], "--bounds-estimated", "x=-5:1", "--bounds-entry", reuse[3], "--force")
	if r := te.run(bad...); r.code == 0 || !strings.Contains(r.stderr, "not inside the range") {
		t.Errorf("bounds outside the range: exit %d, %s", r.code, r.stderr)
	}
	bad = append(args[:len(args)-4:len(args)-4], "--bounds-estimated", "x=0:1", "--bounds-entry", es[1].ID, "--force")
	if r := te.run(bad...); r.code == 0 || !strings.Contains(r.stderr, "not bounds") {
		t.Errorf("a validation entry: exit %d, %s", r.code, r.stderr)
	}
}
