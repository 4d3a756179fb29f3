package release

import "flag"

// testFlag defines a boolean test flag once and returns its reader (the
// same helper as package project's).
func testFlag(name, usage string) func() bool {
	if flag.Lookup(name) == nil {
		flag.Bool(name, false, usage)
	}
	return func() bool { return flag.Lookup(name).Value.String() == "true" }
}
