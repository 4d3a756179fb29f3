package project

import (
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/golden"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// The golden-file comparison (and its -update flag) is
// project/internal/golden's, shared with the sub-packages.

// checkGolden compares got with the golden file (or rewrites it under
// -update).
func checkGolden(t *testing.T, path string, got []byte) { golden.Check(t, path, got) }

// openTestLedger opens a new ledger in a temporary directory.
func openTestLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(filepath.Join(t.TempDir(), "sub", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}
