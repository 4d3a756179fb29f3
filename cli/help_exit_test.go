package cli

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestEveryHelpListsEveryExitCode (adversarial review, item 4): `keygen
// --help` once listed exit codes 0–3 only. Every command's --help, and
// `help`, lists all of them, 0 to exitTrust.
func TestEveryHelpListsEveryExitCode(t *testing.T) {
	te := newTestEnv()
	want := []string{"  0  success", "  1  ", "  2  ", "  3  ", "  4  ", "  5  "}
	runs := [][]string{{"help"}}
	for _, c := range commands() {
		runs = append(runs, []string{c.Name, "--help"})
	}
	for _, args := range runs {
		r := te.run(args...)
		out := r.stdout + r.stderr
		for _, w := range want {
			if !strings.Contains(out, "\n"+w) {
				t.Errorf("%q: help does not list exit code %q:\n%s", args, w, out)
			}
		}
	}
}

// TestOutDash (adversarial review, item 5): `--out -` is standard output
// for eval (the same CSV as without --out, no file named -), and a clear
// usage error for the commands that cannot stream; no file or folder named
// - is created.
func TestOutDash(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	syn := w.path("s.synopsis")
	te.mustRun(t, w.kdeRelease(syn)...)
	t.Chdir(w.dir)
	plain := te.mustRun(t, "eval", syn, "--at", "0.5")
	dash := te.mustRun(t, "eval", syn, "--at", "0.5", "--out", "-")
	if dash.stdout != plain.stdout || dash.stdout == "" {
		t.Errorf("eval --out - wrote %q to standard output; want %q", dash.stdout, plain.stdout)
	}
	for _, args := range [][]string{
		w.kdeRelease("-", "--force"),
		{"keygen", "--out", "-", "--passphrase-file", w.pass},
		{"figure", "1", "--out", "-", "--repeats", "1"},
		{"demo-data", "--out", "-"},
	} {
		r := te.run(args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--out -") || !strings.Contains(r.stderr, "standard output") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error about --out -", args, r.code, r.stderr)
		}
	}
	if _, err := os.Lstat(w.path("-")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file or folder named - exists (%v)", err)
	}
}
