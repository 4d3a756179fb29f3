package curator

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// TestReleaseDialogBudgetUsesZCDP: issue 19 item 3 in the curator. The
// release dialog's budget sentence asks the ledger's admission rule, so a
// Gaussian release that only the zCDP account admits is not shown as over
// budget (which would ask for the over-budget box), and it says why; a
// Laplace release past both accounts is over.
func TestReleaseDialogBudgetUsesZCDP(t *testing.T) {
	l, err := ledger.Open(filepath.Join(t.TempDir(), "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const hash = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	if err := l.SetBudget(hash, 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e := ledger.Entry{Kind: ledger.KindRelease, DatasetHash: hash, Epsilon: 0.3, Delta: 1e-8, Noise: string(mechanism.NoiseGaussian)}
		if _, err := l.Reserve(e, false); err != nil {
			t.Fatal(err)
		}
	}
	fd := &ledger.IdentityFinding{Charges: []ledger.DatasetMatch{{DatasetHash: hash}}}
	cases := []struct {
		name     string
		eps, del float64
		kind     mechanism.NoiseKind
		over     bool
		zcdp     bool
	}{
		{"gaussian admitted by zCDP only", 0.3, 1e-8, mechanism.NoiseGaussian, false, true},
		{"gaussian within basic composition", 0.05, 1e-8, mechanism.NoiseGaussian, false, false},
		{"laplace past both accounts", 0.3, 0, mechanism.NoiseLaplace, true, false},
	}
	for _, tc := range cases {
		text, over := identityBudgetText(l, fd, tc.eps, tc.del, tc.kind)
		if over != tc.over || strings.Contains(text, "zCDP") != tc.zcdp {
			t.Errorf("%s: over %v (want %v), text %q", tc.name, over, tc.over, text)
		}
	}
}
