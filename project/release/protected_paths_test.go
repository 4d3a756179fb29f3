package release

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

func TestCheckOutputPath(t *testing.T) {
	dir := t.TempDir()
	led := filepath.Join(dir, "cfg", "ledger.jsonl")
	key := filepath.Join(dir, "cfg", "curator_ed25519")
	data := filepath.Join(dir, "data.csv")
	signers := filepath.Join(dir, "cfg", "allowed_signers")
	other := filepath.Join(dir, "other.synopsis")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Dir(led), 0o700))
	for _, p := range []string{led, key, key + keys.PublicKeySuffix, data, signers, other} {
		must(os.WriteFile(p, []byte(filepath.Base(p)), 0o600))
	}
	must(os.Symlink(led, filepath.Join(dir, "link-to-ledger")))
	must(os.Symlink("cfg", filepath.Join(dir, "cfglink")))
	must(os.Link(data, filepath.Join(dir, "hardlink.csv")))
	must(os.Link(key, filepath.Join(dir, "hardkey")))
	// A dangling link to where the ledger's lock will be.
	must(os.Symlink(led+".lock", filepath.Join(dir, "future-lock")))
	// A chain of links.
	must(os.Symlink(filepath.Join(dir, "link-to-ledger"), filepath.Join(dir, "chain")))

	protected := slicesConcat(LedgerProtected(led), KeyProtected(key), DatasetProtected(data),
		AllowedSignersProtected(signers))
	cases := []struct {
		out  string
		role string // "" = allowed
	}{
		{led, "ledger"},
		{filepath.Join(dir, "cfg", ".", "..", "cfg", "ledger.jsonl"), "ledger"},
		{led + ".lock", "lock"},
		{filepath.Join(dir, "link-to-ledger"), "ledger"},
		{filepath.Join(dir, "chain"), "ledger"},
		{filepath.Join(dir, "cfglink", "ledger.jsonl"), "ledger"},
		{filepath.Join(dir, "cfglink", "ledger.jsonl.lock"), "lock"},
		{filepath.Join(dir, "future-lock"), "lock"},
		{led + ".sketches", "sketch store"},
		{led + ".tip", "tip file"},
		{filepath.Join(dir, "cfglink", "ledger.jsonl.tip"), "tip file"},
		{filepath.Join(dir, "cfglink", "ledger.jsonl.sketch-key"), "sketch key"},
		{filepath.Join(dir, "hardlink.csv"), "dataset"},
		{filepath.Join(dir, "hardkey"), "private key"},
		{key + keys.PublicKeySuffix, "public key"},
		{key + keys.AllowedSignersSuffix, "allowed_signers line"},
		{signers, "allowed_signers file"},
		{other, ""},
		{filepath.Join(dir, "new.synopsis"), ""},
		{filepath.Join(dir, "cfglink", "new.synopsis"), ""},
		{"", ""},
	}
	for _, tc := range cases {
		err := CheckOutputPath(tc.out, protected)
		if tc.role == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.out, err)
			}
			continue
		}
		var pe *ProtectedPathError
		if !errors.As(err, &pe) || !errors.Is(err, ErrProtectedPath) {
			t.Errorf("%s: err = %v, want a ProtectedPathError", tc.out, err)
			continue
		}
		if !strings.Contains(pe.Protected.Role, tc.role) || !strings.Contains(err.Error(), tc.out) {
			t.Errorf("%s: error %q does not name the path and %q", tc.out, err, tc.role)
		}
	}
	// A relative path to the protected file.
	wd, err := os.Getwd()
	must(err)
	t.Cleanup(func() { _ = os.Chdir(wd) })
	must(os.Chdir(dir))
	if err := CheckOutputPath("data.csv", protected); !errors.Is(err, ErrProtectedPath) {
		t.Errorf("relative data.csv: err = %v", err)
	}
	if !SamePath("hardlink.csv", data) || SamePath("other.synopsis", data) {
		t.Error("SamePath wrong")
	}
}

func slicesConcat(s ...[]ProtectedFile) []ProtectedFile {
	var out []ProtectedFile
	for _, x := range s {
		out = append(out, x...)
	}
	return out
}

// TestReleaseRefusesProtectedOutput (issue 14 item 6): a release whose
// output is the ledger (by name, symlink or hard link), its lock, the
// dataset or the signing key is refused before anything is spent, even
// with Overwrite, and the file is untouched.
func TestReleaseRefusesProtectedOutput(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(csvPath, []byte(releaseTestCSV(50)), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.ReadCSV(csvPath, dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		out  func(e *releaseEnv) string
	}{
		{"ledger", func(e *releaseEnv) string { return e.ledger.Path() }},
		{"ledger lock", func(e *releaseEnv) string { return e.ledger.Path() + ".lock" }},
		{"symlink to the ledger", func(e *releaseEnv) string {
			l := filepath.Join(e.dir, "l.synopsis")
			if err := os.Symlink(e.ledger.Path(), l); err != nil {
				t.Fatal(err)
			}
			return l
		}},
		{"hard link to the ledger", func(e *releaseEnv) string {
			l := filepath.Join(e.dir, "h.synopsis")
			if err := os.Link(e.ledger.Path(), l); err != nil {
				t.Fatal(err)
			}
			return l
		}},
		{"dataset", func(*releaseEnv) string { return csvPath }},
		{"signing key", func(*releaseEnv) string { return key }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			if err := e.ledger.SetBudget(strings.Repeat("ab", 32), 3); err != nil { // a non-empty ledger
				t.Fatal(err)
			}
			e.opt.Protected = KeyProtected(key)
			e.opt.Overwrite = true
			e.opt.Out = tc.out(e)
			before, _ := os.ReadFile(e.opt.Out)
			ledgerBefore, err := os.ReadFile(e.ledger.Path())
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Release(context.Background(), e.opt)
			if !errors.Is(err, ErrProtectedPath) {
				t.Fatalf("err = %v, want ErrProtectedPath", err)
			}
			if after, _ := os.ReadFile(e.opt.Out); !bytes.Equal(after, before) {
				t.Errorf("%s changed", e.opt.Out)
			}
			if after, _ := os.ReadFile(e.ledger.Path()); !bytes.Equal(after, ledgerBefore) {
				t.Errorf("ledger changed")
			}
			if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != 0 {
				t.Errorf("spent %v", spent)
			}
		})
	}
}
