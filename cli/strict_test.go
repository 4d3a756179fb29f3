package cli

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// TestNumericFlagsStrict: every numeric flag takes only plain decimal
// numbers (dataset.ParseNumber / ParseWholeNumber, the rule CSV values
// follow too) and refuses what strconv and the flag package would take
// (issue 14 item 15). Flag syntax fails while parsing the command line,
// before any file is read: exit 2.
func TestNumericFlagsStrict(t *testing.T) {
	flags := []struct {
		cmd  []string
		flag string
		wrap func(string) string // the flag value around the number
	}{
		{[]string{"release"}, "--epsilon", nil},
		{[]string{"release"}, "--delta", nil},
		{[]string{"release"}, "--beta", nil},
		{[]string{"release"}, "--positive", nil},
		{[]string{"release"}, "--budget", nil},
		{[]string{"release"}, "--bounds", func(v string) string { return "x=" + v + ":10" }},
		{[]string{"release"}, "--bounds", func(v string) string { return "x=0:" + v }},
		{[]string{"release"}, "--param", func(v string) string { return "bandwidth=" + v }},
		{[]string{"release"}, "--k", nil},
		{[]string{"release"}, "--k", func(v string) string { return "3," + v }},
		{[]string{"release"}, "--h", nil},
		{[]string{"choose"}, "--epsilon-select", nil},
		{[]string{"choose"}, "--validation-fraction", nil},
		{[]string{"choose"}, "--draws", nil},
		{[]string{"eval", "f.synopsis"}, "--at", func(v string) string { return "0.5," + v }},
		{[]string{"ledger"}, "--budget", nil},
		{[]string{"figure", "1"}, "--repeats", nil},
		{[]string{"figure", "1"}, "--bandwidth", nil},
		{[]string{"figure", "1"}, "--seed", nil},
	}
	bad := []string{"1_0", "0x1p-2", "0x10", "Inf", "NaN", "+Infinity", "1e", "0b11", "--1"}
	for _, f := range flags {
		for _, v := range bad {
			if f.wrap != nil {
				v = f.wrap(v)
			}
			args := append(append([]string{}, f.cmd...), f.flag, v)
			r := newTestEnv().run(args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "invalid value") || !strings.Contains(r.stderr, strings.TrimPrefix(f.flag, "-")) {
				t.Errorf("bernstein %s: exit %d, stderr %q; want exit %d naming the flag", strings.Join(args, " "), r.code, r.stderr, exitUsage)
			}
		}
	}
}

// TestBadTitleNoteExitUsage: a title or note that breaks the synopsis
// rules is a usage error (exit 2), not "verification failed" (exit 3),
// and nothing is spent or written (issue 14 item 16).
func TestBadTitleNoteExitUsage(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	te := newTestEnv()
	for _, c := range []struct{ flag, value, want string }{
		{"--title", "two\nlines", "title"},
		{"--title", "bell\a", "title"},
		{"--title", strings.Repeat("t", 201), "title"},
		{"--note", "nul\x00", "note"},
		{"--note", "bad \xff utf-8", "note"},
	} {
		out := w.path("t.synopsis")
		r := te.run(w.kdeRelease(out, c.flag, c.value)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s %q: exit %d, stderr %q; want exit %d naming %s", c.flag, c.value, r.code, r.stderr, exitUsage, c.want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s %q: a synopsis was written", c.flag, c.value)
		}
	}
	// A multi-line note with tabs is fine.
	te.mustRun(t, w.kdeRelease(w.path("ok.synopsis"), "--note", "line 1\n\tline 2")...)
}

// TestUnencryptedKeyWarns: an unencrypted key is announced on stderr and
// no passphrase is demanded for it (no file, no variable, no terminal);
// an encrypted key still needs one (issue 14 item 16).
func TestUnencryptedKeyWarns(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t) // unencrypted
	te := newTestEnv()
	args := w.kdeRelease(w.path("a.synopsis"))
	i := indexOf(args, "--passphrase-file")
	noPass := append(append([]string{}, args[:i]...), args[i+2:]...)
	r := te.mustRun(t, noPass...)
	if !strings.Contains(r.stderr, "warning: the signing key") || !strings.Contains(r.stderr, "not encrypted") {
		t.Errorf("no warning for an unencrypted key; stderr %q", r.stderr)
	}
	if strings.Contains(r.stdout, "warning") {
		t.Errorf("the warning went to stdout: %q", r.stdout)
	}
	// The encrypted key from keygen: no warning, and a passphrase is needed.
	w.keygenForce(t, te)
	noPass[indexOf(noPass, w.path("a.synopsis"))] = w.path("b.synopsis")
	r = te.run(noPass...)
	if r.code != exitRuntime || !strings.Contains(r.stderr, "no passphrase") || strings.Contains(r.stderr, "not encrypted") {
		t.Errorf("encrypted key without a passphrase: exit %d, stderr %q", r.code, r.stderr)
	}
	key, _ := keys.DefaultKeyPath()
	if enc, err := keys.KeyEncrypted(key); err != nil || !enc {
		t.Errorf("KeyEncrypted(keygen's key) = %v, %v", enc, err)
	}
}

// keygenForce replaces the default key with an encrypted one from keygen.
func (w *workspace) keygenForce(t *testing.T, te *testEnv) {
	t.Helper()
	key, _ := keys.DefaultKeyPath()
	for _, p := range []string{key, key + keys.PublicKeySuffix, key + keys.AllowedSignersSuffix} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
	w.keygen(t, te)
}

// indexOf is slices.Index that must find v.
func indexOf(s []string, v string) int {
	i := slices.Index(s, v)
	if i < 0 {
		panic("missing " + v)
	}
	return i
}
