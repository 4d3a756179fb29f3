package keys

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

func authorized(t testing.TB, name string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(synSigner(t, name).PublicKey())))
}

func TestParseAllowedSigners(t *testing.T) {
	alice, bob := authorized(t, "alice"), authorized(t, "bob")
	file := strings.Join([]string{
		"# analysts' trusted curators",
		"",
		"alice@example.org " + alice + " Alice's laptop",
		`"bob@example.org,bob@example.net" namespaces="bernstein-synopsis,git" ` + bob,
		"  carol@example.org cert-authority,valid-after=\"20250101\",valid-before=20271231235959Z " + alice,
		"dave@example.org\tvalid-after=202501011200Z\t" + bob + "\r",
	}, "\n") + "\n"
	a, err := ParseAllowedSigners(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	e := a.Entries()
	if len(e) != 4 {
		t.Fatalf("%d entries, want 4", len(e))
	}
	if e[0].Principals != "alice@example.org" || e[0].Comment != "Alice's laptop" || e[0].Namespaces != nil || e[0].Line != 3 {
		t.Errorf("entry 0: %+v", e[0])
	}
	if e[1].Principals != "bob@example.org,bob@example.net" || strings.Join(e[1].Namespaces, "|") != "bernstein-synopsis|git" {
		t.Errorf("entry 1: %+v", e[1])
	}
	if !e[2].CertAuthority || e[2].ValidAfter.IsZero() || !e[2].ValidBefore.Equal(time.Date(2027, 12, 31, 23, 59, 59, 0, time.UTC)) {
		t.Errorf("entry 2: %+v", e[2])
	}
	if !e[3].ValidAfter.Equal(time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)) || e[3].Fingerprint != ssh.FingerprintSHA256(synSigner(t, "bob").PublicKey()) {
		t.Errorf("entry 3: %+v", e[3])
	}
	// Unchanged files are written back byte for byte (less the CR).
	var out bytes.Buffer
	if _, err := a.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if out.String() != strings.Replace(file, "\r", "", 1) {
		t.Errorf("WriteTo changed the file:\n%s", out.String())
	}

	bad := []struct{ line, msg string }{
		{"alice@example.org", "only"},
		{"alice@example.org ssh-ed25519 AAAAnotbase64", "key"},
		{`"alice@example.org ` + alice, "unterminated"},
		{"alice@example.org restrict " + alice, "unsupported option"},
		{"alice@example.org no-touch-required " + alice, "unsupported option"},
		{"alice@example.org namespaces=\"\" " + alice, "namespaces"},
		{"alice@example.org valid-after=2025 " + alice, "valid-after"},
		{"alice@example.org cert-authority=yes " + alice, "cert-authority"},
		// Issue 14 item 14: a repeated clause is refused, as ssh-keygen does.
		{`alice@example.org valid-before="20200101",valid-before="29990101" ` + alice, `multiple "valid-before" clauses`},
		{`alice@example.org valid-after="20200101",VALID-AFTER="20210101" ` + alice, `multiple "valid-after" clauses`},
		{`alice@example.org namespaces="git",namespaces="bernstein-synopsis" ` + alice, `multiple "namespaces" clauses`},
	}
	for _, c := range bad {
		_, err := ParseAllowedSigners(strings.NewReader("# ok\n" + c.line + "\n"))
		var ae *AllowedSignersError
		if !errors.As(err, &ae) || ae.Line != 2 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: %v; want an AllowedSignersError on line 2 mentioning %q", c.line, err, c.msg)
		}
	}
	if _, err := ParseAllowedSigners(bytes.NewReader(bytes.Repeat([]byte("#"), MaxAllowedSignersSize+1))); err == nil {
		t.Error("oversized file accepted")
	}
}

func TestAllowedSignersMatch(t *testing.T) {
	key := synSigner(t, "alice").PublicKey()
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name, options string
		trusted       bool
		note          string
	}{
		{"no options", "", true, "line 1"},
		{"our namespace", `namespaces="bernstein-synopsis"`, true, ""},
		{"wildcard", `namespaces="bernstein-*"`, true, ""},
		{"question mark", `namespaces="bernstein?synopsis"`, true, ""},
		{"other namespaces", `namespaces="git,file"`, false, "namespace"},
		{"negated", `namespaces="*,!bernstein-synopsis"`, false, "namespace"},
		{"negated other", `namespaces="*,!git"`, true, ""},
		{"cert authority", `cert-authority`, false, "cert-authority"},
		{"not yet valid", `valid-after=20260602Z`, false, "valid only from"},
		{"expired", `valid-before=20260531Z`, false, "expired"},
		{"within window", `valid-after=20260101Z,valid-before=20261231Z`, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			line := "alice@example.org " + c.options + " " + authorized(t, "alice")
			a, err := ParseAllowedSigners(strings.NewReader(line))
			if err != nil {
				t.Fatal(err)
			}
			p, note, ok := a.Match(key, Namespace, now)
			if ok != c.trusted || (ok && p != "alice@example.org") || (!ok && p != "") || !strings.Contains(note, c.note) {
				t.Errorf("Match = %q, %q, %v; want trusted %v, note containing %q", p, note, ok, c.trusted, c.note)
			}
		})
	}
	var none *AllowedSigners
	if _, _, ok := none.Match(key, Namespace, now); ok {
		t.Error("nil AllowedSigners trusts a key")
	}
	other := synTrust(t, "bob")
	if _, note, ok := other.Match(key, Namespace, now); ok || !strings.Contains(note, "not in") {
		t.Errorf("unlisted key: %v, %q", ok, note)
	}
}

func TestAllowedSignersEdit(t *testing.T) {
	a, err := ParseAllowedSigners(strings.NewReader("# mine\nbob@example.org " + authorized(t, "bob") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	alice := synSigner(t, "alice").PublicKey()
	if err := a.Add("alice@example.org", alice); err != nil {
		t.Fatal(err)
	}
	if err := a.Add("alice@example.org", alice); err != nil {
		t.Fatal(err)
	}
	if n := len(a.Entries()); n != 2 {
		t.Errorf("%d entries after adding alice twice, want 2", n)
	}
	for _, p := range []string{"", "a b", "a,b", "x*", "!x", `q"`, "#c"} {
		if err := a.Add(p, alice); err == nil {
			t.Errorf("principal %q accepted", p)
		}
	}
	if err := a.Add("x@y", nil); err == nil {
		t.Error("nil key accepted")
	}

	path := filepath.Join(t.TempDir(), "sub", "allowed_signers")
	if err := a.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := LoadAllowedSigners(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# mine\nbob@example.org " + authorized(t, "bob") + "\nalice@example.org namespaces=\"bernstein-synopsis\" " + authorized(t, "alice") + "\n"
	var buf bytes.Buffer
	if _, err := b.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("saved file:\n%s\nwant:\n%s", buf.String(), want)
	}
	if _, _, ok := b.Match(alice, Namespace, time.Now()); !ok {
		t.Error("added key not trusted after Save and Load")
	}
	if n := b.Remove(ssh.FingerprintSHA256(alice)); n != 1 {
		t.Errorf("Remove removed %d entries, want 1", n)
	}
	if _, _, ok := b.Match(alice, Namespace, time.Now()); ok {
		t.Error("removed key still trusted")
	}
	if n := b.Remove("SHA256:nothing"); n != 0 {
		t.Errorf("Remove of an unknown fingerprint removed %d", n)
	}
	if _, err := LoadAllowedSigners(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestMatchPattern(t *testing.T) {
	cases := []struct {
		s, p string
		want bool
	}{
		{"bernstein-synopsis", "bernstein-synopsis", true},
		{"bernstein-synopsis", "*", true},
		{"bernstein-synopsis", "bern*", true},
		{"bernstein-synopsis", "*synopsis", true},
		{"bernstein-synopsis", "*-*", true},
		{"bernstein-synopsis", "b?rnstein-synopsis", true},
		{"bernstein-synopsis", "bernstein", false},
		{"bernstein-synopsis", "bernstein-synopsis?", false},
		{"", "*", true},
		{"", "", true},
		{"a", "", false},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", strings.Repeat("a*", 30) + "b", false},
	}
	for _, c := range cases {
		if got := matchPattern(c.s, c.p); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v", c.s, c.p, got)
		}
	}
}
