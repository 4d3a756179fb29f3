package project

import "flag"

// Test flags of package project. They are defined here, in a file that
// sorts after every other file of the package, through testFlag: if another
// test file already defined the same flag, it is reused instead of
// panicking with "flag redefined".
var (
	// update rewrites golden files under testdata/.
	update = testFlag("update", "rewrite golden files under testdata/")
	// long enables slow tests (10^7-row CSV memory bound).
	long = testFlag("long", "run slow tests")
)

// testFlag defines a boolean test flag once and returns its reader.
func testFlag(name, usage string) func() bool {
	if flag.Lookup(name) == nil {
		flag.Bool(name, false, usage)
	}
	return func() bool { return flag.Lookup(name).Value.String() == "true" }
}
