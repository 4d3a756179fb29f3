package project

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/ledger"
)

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

// checkGolden compares got with the golden file (or rewrites it under
// -update).
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if update() {
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

// openTestLedger opens a new ledger in a temporary directory.
func openTestLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l, err := ledger.OpenLedger(filepath.Join(t.TempDir(), "sub", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}
