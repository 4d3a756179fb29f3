package cli

import (
	"slices"
	"testing"
)

// TestOpenedFileDispatch: a single bare file name, as the desktop entry's %f
// passes it on a double-click, opens the matching window; every other
// command line keeps its meaning.
func TestOpenedFileDispatch(t *testing.T) {
	cases := []struct {
		args []string
		want []string // GUI arguments, nil when the GUI must not be called
	}{
		{[]string{"/home/a/Downloads/q3.synopsis"}, []string{"view", "/home/a/Downloads/q3.synopsis"}},
		{[]string{"C:\\Users\\a\\Q3.SYNOPSIS"}, []string{"view", "C:\\Users\\a\\Q3.SYNOPSIS"}},
		{[]string{"data.csv"}, []string{"--open", "data.csv"}},
		{[]string{"study.Bernstein"}, []string{"--open", "study.Bernstein"}},
		{[]string{"version"}, nil},
		{[]string{"notes.txt"}, nil},
		{[]string{"a.csv", "b.csv"}, nil},
		{[]string{"--x.csv"}, nil},
	}
	for _, tc := range cases {
		te := newTestEnv()
		te.run(tc.args...)
		switch {
		case tc.want == nil && len(te.guiArgs) != 0:
			t.Errorf("%q: GUI called with %v, want no GUI", tc.args, te.guiArgs)
		case tc.want != nil && (len(te.guiArgs) != 1 || !slices.Equal(te.guiArgs[0], tc.want)):
			t.Errorf("%q: GUI called with %v, want [%v]", tc.args, te.guiArgs, tc.want)
		}
	}
}
