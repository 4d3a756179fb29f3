// Package golden is the golden-file support shared by the tests of project
// and its sub-packages: one -update flag and one comparison, instead of a
// copy per package (test files of another package cannot be imported).
// Only tests import it.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Flag defines the boolean test flag name once (another package of the
// same test binary may already have defined it: then that one is reused
// instead of panicking with "flag redefined") and returns its reader.
func Flag(name, usage string) func() bool {
	if flag.Lookup(name) == nil {
		flag.Bool(name, false, usage)
	}
	return func() bool { return flag.Lookup(name).Value.String() == "true" }
}

// Update reports whether the tests run with -update, which rewrites the
// golden files instead of comparing with them.
var Update = Flag("update", "rewrite golden files under testdata/")

// Check compares got with the golden file at path, or rewrites it under
// -update. A difference fails the test and shows both.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update after checking the change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
