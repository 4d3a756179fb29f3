package project

import (
	"slices"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestOwnedTempExtensions: fileio sits below the formats and so cannot name
// their extensions; the list of extensions whose stale temporary files every
// write clears must be exactly the app's own formats.
func TestOwnedTempExtensions(t *testing.T) {
	got := fileio.OwnedTempExtensions()
	want := []string{synopsis.Ext, WorkspaceExt}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("fileio.OwnedTempExtensions() = %q, want %q", got, want)
	}
}
