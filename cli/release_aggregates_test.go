package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestReleaseFromAggregates runs release --aggregates end to end: the
// table of a KDE query (the curator's own engine, here written by hand),
// the declared n and ledger dataset; the synopsis records the SHA-256 of
// exactly the text aggregate-sql prints for the same inputs, and inspect
// shows it. A table counting another n, the aggregate flags without
// --aggregates, and both sources at once are refused.
func TestReleaseFromAggregates(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	table := w.path("cells.csv")
	if err := os.WriteFile(table, []byte("bin_1,records\n0,3\n5,4\n15,3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--features", "x", "--bounds", "x=0:1", "--learner", "kde", "--bins", "16", "--dialect", "postgres", "--table", "survey"}
	args := append([]string{"release", "--aggregates", table, "--n", "10", "--dataset-id", "survey 2026",
		"--param", "bandwidth=0.1", "--epsilon", "0.25", "--k", "8", "--passphrase-file", w.pass, "--out", w.path("agg.synopsis")}, common...)
	r := te.mustRun(t, args...)
	if !strings.Contains(r.stdout, "ε spent by this release: 0.25") || !strings.Contains(r.stderr, `A new ledger dataset`) ||
		!strings.Contains(r.stderr, `"survey 2026"`) || strings.Contains(r.stderr, "private (not covered by ε)") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	q := te.mustRun(t, append([]string{"aggregate-sql"}, common...)...).stdout
	sum := sha256.Sum256([]byte(q))
	hash := hex.EncodeToString(sum[:])
	syn, err := os.ReadFile(w.path("agg.synopsis"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(syn), `"query_sha256": "`+hash+`"`) || !strings.Contains(string(syn), `"dialect": "postgres"`) {
		t.Errorf("the synopsis does not record the hash %s of aggregate-sql's text:\n%s", hash, syn)
	}
	in := te.mustRun(t, "inspect", w.path("agg.synopsis"))
	if !strings.Contains(in.stdout, "computed from:   an aggregate table computed by postgres (16 fine bins per axis), not the records; query SHA-256 "+hash) {
		t.Errorf("inspect:\n%s", in.stdout)
	}

	refusals := []struct {
		name string
		edit func([]string) []string
		want string
	}{
		{"other n", func(a []string) []string { return replaceArg(a, "--n", "11") }, "declared n is 11"},
		{"no dataset id", func(a []string) []string { return replaceArg(a, "--dataset-id", "") }, "--dataset-id"},
		{"both sources", func(a []string) []string { return append(a, "--data", table) }, "not both"},
		{"dialect without aggregates", func(a []string) []string { return append(replaceArg(a, "--aggregates", ""), "--data", table) }, "--dialect applies only to --aggregates"},
		{"different population", func(a []string) []string { return append(a, "--different-population") }, "--different-population"},
	}
	for _, c := range refusals {
		a := c.edit(replaceArg(args, "--out", w.path(c.name+".synopsis")))
		r := te.run(a...)
		if r.code == exitOK || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal saying %q", c.name, r.code, r.stderr, c.want)
		}
	}
	if r := te.run(replaceArg(args, "--n", "11")...); !strings.Contains(r.stderr, table) {
		t.Errorf("the n refusal does not name the table: %s", r.stderr)
	}
}

// replaceArg returns args with the value after flag replaced.
func replaceArg(args []string, flag, value string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == flag && i+1 < len(out) {
			out[i+1] = value
		}
	}
	return out
}
