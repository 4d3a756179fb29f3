package keys

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// FuzzParseAllowedSigners checks that no input makes ParseAllowedSigners or
// Match panic; that every rejection of a file within the size cap is an
// *AllowedSignersError naming a line of the file; that no accepted entry
// repeats a namespaces, valid-after or valid-before clause (ssh-keygen
// refuses those); and that an accepted file survives WriteTo and a second
// parse with the same entries. Seeds: the lines of
// TestAllowedSignersAgreeWithSSHKeygen, which compares our verdict with
// ssh-keygen's. CI runs it for 300000 executions (make fuzz).
func FuzzParseAllowedSigners(f *testing.F) {
	_, pub := sshkeygenTestKey(f)
	key := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	for _, c := range trickyAllowedSigners {
		f.Add([]byte(strings.ReplaceAll(c.line, "KEY", key) + "\n"))
	}
	f.Add([]byte("# comment\n\n"))
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseAllowedSigners(bytes.NewReader(data))
		if err != nil {
			var ae *AllowedSignersError
			if len(data) <= MaxAllowedSignersSize &&
				(!errors.As(err, &ae) || ae.Line < 1 || ae.Line > bytes.Count(data, []byte("\n"))+1) {
				t.Fatalf("error %v (%T) is not an *AllowedSignersError naming a line", err, err)
			}
			return
		}
		entries := a.Entries()
		for _, e := range entries {
			seen := map[string]bool{}
			for _, o := range e.Options {
				name, _, _ := strings.Cut(o, "=")
				name = strings.ToLower(name)
				if seen[name] && name != "cert-authority" {
					t.Fatalf("line %d: accepted a repeated %s clause: %q", e.Line, name, e.Options)
				}
				seen[name] = true
			}
			a.Match(e.Key, Namespace, now)
		}
		a.Match(pub, Namespace, now)
		var buf bytes.Buffer
		if _, err := a.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		b, err := ParseAllowedSigners(&buf)
		if err != nil {
			t.Fatalf("written file does not parse: %v", err)
		}
		again := b.Entries()
		if len(again) != len(entries) {
			t.Fatalf("round trip: %d entries, then %d", len(entries), len(again))
		}
		for i := range entries {
			x, y := entries[i], again[i]
			if x.Principals != y.Principals || x.Fingerprint != y.Fingerprint || x.CertAuthority != y.CertAuthority ||
				!x.ValidAfter.Equal(y.ValidAfter) || !x.ValidBefore.Equal(y.ValidBefore) ||
				strings.Join(x.Namespaces, ",") != strings.Join(y.Namespaces, ",") {
				t.Fatalf("round trip changed entry %d: %+v\nthen %+v", i, x, y)
			}
		}
	})
}
