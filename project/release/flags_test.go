package release

import "github.com/bernsteinrelease/bernstein/project/internal/golden"

// testFlag defines a boolean test flag once and returns its reader.
var testFlag = golden.Flag
