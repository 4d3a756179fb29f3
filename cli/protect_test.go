package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/cli/figure"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// TestOutputRefusesProtectedFiles (issue 14 item 6): no command writes over
// the ledger, its lock, the dataset, a key or the allowed_signers file —
// by name, symlink or hard link, with --force too. The refusal is a usage
// error (exit 2) and the file is unchanged.
func TestOutputRefusesProtectedFiles(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	te.mustRun(t, w.kdeRelease(w.path("first.synopsis"))...)
	led, err := ledger.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	key, err := keys.DefaultKeyPath()
	if err != nil {
		t.Fatal(err)
	}
	signers, err := keys.DefaultAllowedSignersPath()
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	if err := os.Symlink(led, w.path("ledger-link.synopsis")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(led, w.path("ledger-hard.synopsis")); err != nil {
		t.Fatal(err)
	}
	otherLedger := w.path("other-ledger.jsonl")
	te.mustRun(t, w.kdeRelease(w.path("second.synopsis"), "--ledger", otherLedger)...)

	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		for _, p := range []string{led, key, signers, data, otherLedger} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = b
		}
		return m
	}
	before := snapshot()

	figDir := w.path("fig")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(led, filepath.Join(figDir, figure.CSV1File)); err != nil {
		t.Fatal(err)
	}
	demoDir := w.path("demo2")
	if err := os.MkdirAll(demoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(signers, filepath.Join(demoDir, dataset.DemoTwoClass2DFile)); err != nil {
		t.Fatal(err)
	}
	first := w.path("first.synopsis")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"release --out LEDGER --force", w.kdeRelease(led, "--force"), "ledger"},
		{"release --out the lock", w.kdeRelease(led+".lock", "--force"), "lock"},
		{"release --out a symlink to the ledger", w.kdeRelease(w.path("ledger-link.synopsis"), "--force"), "ledger"},
		{"release --out a hard link to the ledger", w.kdeRelease(w.path("ledger-hard.synopsis"), "--force"), "ledger"},
		{"release --out --ledger FILE", w.kdeRelease(otherLedger, "--force", "--ledger", otherLedger), "ledger"},
		{"release --out the dataset", w.kdeRelease(data, "--force"), "dataset"},
		{"release --out the key", w.kdeRelease(key, "--force"), "private key"},
		{"release --out the public key", w.kdeRelease(key+".pub", "--force"), "public key"},
		{"release --out allowed_signers", w.kdeRelease(signers, "--force"), "allowed_signers"},
		{"keygen --out allowed_signers", []string{"keygen", "--out", signers, "--force", "--passphrase-file", w.pass}, "allowed_signers"},
		{"keygen --out LEDGER", []string{"keygen", "--out", led, "--force", "--passphrase-file", w.pass}, "ledger"},
		{"keygen --out KEY.pub", []string{"keygen", "--out", key + ".pub", "--force", "--passphrase-file", w.pass}, "public key"},
		{"eval --out LEDGER", []string{"eval", first, "--at", "0.5", "--out", led, "--force"}, "ledger"},
		{"eval --out its synopsis", []string{"eval", first, "--at", "0.5", "--out", first, "--force"}, "synopsis being evaluated"},
		{"figure into a symlink to the ledger", []string{"figure", "1", "--out", figDir, "--force", "--repeats", "1"}, "ledger"},
		{"demo-data onto a hard link to allowed_signers", []string{"demo-data", "--out", demoDir, "--force"}, "allowed_signers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synBefore, _ := os.ReadFile(first)
			r := te.run(tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "refusing to write there") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", r.code, r.stderr, exitUsage, tc.want)
			}
			for p, b := range snapshot() {
				if !bytes.Equal(b, before[p]) {
					t.Errorf("%s changed", p)
				}
			}
			if after, _ := os.ReadFile(first); !bytes.Equal(after, synBefore) {
				t.Error("the synopsis changed")
			}
		})
	}
	r := te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "spent ε 0.25 ") {
		t.Errorf("a refused release was charged:\n%s", r.stdout)
	}
}

// TestKeygenForceKeepsOldKey (issue 14 item 7): with fk.pub made a folder,
// keygen --out fk --force fails and the old private key is still there,
// unchanged.
func TestKeygenForceKeepsOldKey(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	fk := w.path("fk")
	te.mustRun(t, "keygen", "--out", fk, "--passphrase-file", w.pass, "--principal", "curator@example.org")
	old, err := os.ReadFile(fk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(fk + ".pub"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(fk+".pub", 0o755); err != nil {
		t.Fatal(err)
	}
	r := te.run("keygen", "--out", fk, "--force", "--passphrase-file", w.pass, "--principal", "curator@example.org")
	if r.code == exitOK {
		t.Fatal("keygen --force succeeded with a folder at fk.pub")
	}
	if !strings.Contains(r.stderr, "fk.pub") {
		t.Errorf("error does not name fk.pub: %q", r.stderr)
	}
	now, err := os.ReadFile(fk)
	if err != nil || !bytes.Equal(now, old) {
		t.Fatalf("the old private key was lost or changed (%v)", err)
	}
	if _, err := keys.LoadSigner(fk, []byte("correct horse battery staple")); err != nil {
		t.Errorf("the old key no longer loads: %v", err)
	}
}

// TestOutputRefusesPassphraseAndLedgerOnInputs (adversarial review, item
// 3): --out never names the --passphrase-file (release and keygen), and
// --ledger (written by every release) never names the dataset, the key or
// the passphrase file; each refusal is exit 2 and the file is unchanged.
func TestOutputRefusesPassphraseAndLedgerOnInputs(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	key, err := keys.DefaultKeyPath()
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	pf := w.path("pf.txt")
	if err := os.WriteFile(pf, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	release := func(extra ...string) []string {
		a := w.kdeRelease(w.path("r.synopsis"), extra...)
		a[indexOf(a, "--passphrase-file")+1] = pf
		return a
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"release --out the passphrase file", append(release(), "--force", "--out", pf), "passphrase file"},
		{"keygen --out the passphrase file", []string{"keygen", "--out", pf, "--force", "--passphrase-file", pf}, "passphrase file"},
		{"release --ledger the dataset", release("--ledger", data), "dataset"},
		{"release --ledger the key", release("--ledger", key), "private key"},
		{"release --ledger the passphrase file", release("--ledger", pf), "passphrase file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := map[string][]byte{}
			for _, p := range []string{pf, data, key} {
				if before[p], err = os.ReadFile(p); err != nil {
					t.Fatal(err)
				}
			}
			r := te.run(c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "refusing to write there") || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", r.code, r.stderr, exitUsage, c.want)
			}
			for p, b := range before {
				if after, _ := os.ReadFile(p); !bytes.Equal(after, b) {
					t.Errorf("%s changed", p)
				}
			}
		})
	}
}
