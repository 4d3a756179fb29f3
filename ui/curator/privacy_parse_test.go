package curator

import (
	"strings"
	"testing"
)

// TestPrivacyFieldsUseMechanismRules: the curator's ε, δ and k fields apply
// mechanism's rules (one home, issue 16), worded for the field: an ε below
// the secure noise library's 2⁻⁵⁰ is refused as typed, not at release.
func TestPrivacyFieldsUseMechanismRules(t *testing.T) {
	cases := []struct {
		field, in, wantErr string // wantErr "" = accepted
	}{
		{"ε", "0.5", ""},
		{"ε", "0", "ε = 0: must be > 0 and finite"},
		{"ε", "1e-16", "ε = 1e-16: must be ≥ 2^-50"},
		{"δ", "1e-6", ""},
		{"δ", "1", "δ = 1: must be in (0,1)"},
		{"δ", "0", "δ = 0: must be in (0,1)"},
		{"k", "12", ""},
		{"k", "2.5", "k = 2.5: must be a whole number"},
		{"k", "0", "k = 0: must be a whole number"},
		{"k", "100000", "k = 100000: must be between 1 and"},
	}
	for _, tc := range cases {
		var err error
		switch tc.field {
		case "ε":
			_, err = parseEpsilon(tc.in)
		case "δ":
			_, err = parseDelta(tc.in)
		case "k":
			_, err = parseK(tc.in)
		}
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s %q: %v, want accepted", tc.field, tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
			t.Errorf("%s %q: %v, want %q…", tc.field, tc.in, err, tc.wantErr)
		}
	}
}
