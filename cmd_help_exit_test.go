package main

import (
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
