package dataset

import (
	"testing"

	"github.com/bernsteinrelease/bernstein/project/internal/golden"
)

// long enables slow tests (10^7-row CSV memory bound).
var long = golden.Flag("long", "run slow tests")

// checkGolden compares got with the golden file (or rewrites it under
// -update).
func checkGolden(t *testing.T, path string, got []byte) { golden.Check(t, path, got) }
