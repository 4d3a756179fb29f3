package cli

import (
	"flag"
	"io"
	"strconv"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/release"
)

// TestReleaseDefaultH (issue 18 item 13): bernstein release's --h
// defaults to release.DefaultH, the curator window's default too (the UI
// test TestDefaultHOneHome checks that side).
func TestReleaseDefaultH(t *testing.T) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	releaseCommand().Setup(fs, &env{Stdout: io.Discard, Stderr: io.Discard})
	f := fs.Lookup("h")
	if f == nil {
		t.Fatal("release has no --h flag")
	}
	if f.DefValue != strconv.Itoa(release.DefaultH) {
		t.Errorf("--h defaults to %s, want release.DefaultH = %d", f.DefValue, release.DefaultH)
	}
}
