package ledger

import (
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/golden"
)

// checkGolden compares got with the golden file (or rewrites it under
// -update).
func checkGolden(t *testing.T, path string, got []byte) { golden.Check(t, path, got) }
