package synopsis

import "testing"

// TestOutputNameAndKind: the kind follows the name only where it adds
// something (inspect printed "regression (regression)").
func TestOutputNameAndKind(t *testing.T) {
	for _, tc := range []struct {
		name, kind, want string
	}{
		{"regression", "regression", "regression"},
		{"density", "density", "density"},
		{"probability", "probability", "probability"},
		{"score", "class-score", "score (class-score)"},
		{"income", "regression", "income (regression)"},
		{"density", "", "density"},
	} {
		if got := (OutputInfo{Name: tc.name, Kind: tc.kind}).NameAndKind(); got != tc.want {
			t.Errorf("OutputInfo{Name: %q, Kind: %q}.NameAndKind() = %q, want %q", tc.name, tc.kind, got, tc.want)
		}
	}
}
