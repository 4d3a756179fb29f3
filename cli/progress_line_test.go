package cli

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name    string
		reports [][2]int // (done, total)
		finish  bool
		want    string
	}{
		{"to completion", [][2]int{{0, 4}, {1, 4}, {1, 4}, {2, 4}, {4, 4}}, false,
			"\rstep   0%\rstep  25%\rstep  50%\rstep 100%\n"},
		{"no repeats within a percent", [][2]int{{1, 1000}, {2, 1000}, {9, 1000}, {10, 1000}}, false,
			"\rstep   0%\rstep   1%"},
		{"interrupted line is ended by finish", [][2]int{{1, 3}}, true, "\rstep  33%\n"},
		{"finish without reports writes nothing", nil, true, ""},
		{"nothing after 100%", [][2]int{{5, 5}, {5, 5}}, true, "\rstep 100%\n"},
		{"out-of-range reports are clamped, zero totals ignored", [][2]int{{-3, 10}, {3, 0}, {12, 10}}, false,
			"\rstep   0%\rstep 100%\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			te := newTestEnv()
			te.Stderr = &b
			te.StderrTerminal = func() bool { return true }
			p := newProgressLine(&te.env, "step")
			for _, r := range tc.reports {
				p.callback()(r[0], r[1])
			}
			if tc.finish {
				p.finish()
			}
			if got := b.String(); got != tc.want {
				t.Errorf("wrote %q, want %q", got, tc.want)
			}
		})
	}
}

func TestProgressLineOffWithoutTerminal(t *testing.T) {
	te := newTestEnv() // StderrTerminal nil: a pipe or a log
	p := newProgressLine(&te.env, "step")
	if p != nil || p.callback() != nil {
		t.Fatal("progress line on a non-terminal")
	}
	p.report(1, 2) // a nil line ignores reports
	p.finish()
	if te.errb.Len() != 0 {
		t.Errorf("wrote %q", te.errb.String())
	}
}

// TestReleaseShowsProgressOnTerminal: on a terminal, release reports the
// lattice evaluation and the noise draws, each ending at 100%; the other
// messages still start on their own lines.
func TestReleaseShowsProgressOnTerminal(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	te.StderrTerminal = func() bool { return true }
	r := te.mustRun(t, w.kdeRelease(w.path("kde.synopsis"))...)
	for _, want := range []string{"fitting and evaluating F_D on the lattice: 100%\n", "drawing secure noise: 100%\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
	for line := range strings.SplitSeq(r.stderr, "\n") {
		if i := strings.LastIndex(line, "\r"); i >= 0 && !strings.HasSuffix(line, "%") {
			t.Errorf("a message was written into a progress line: %q", line)
		}
	}
}
